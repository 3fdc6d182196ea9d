// AppContext: what a command runs with — environment, data locations, output streams, and the store,
// opened on first use so `--help` and `--version` never touch the disk.
import Foundation
import ShelfCore
import ShelfStore

final class AppContext: @unchecked Sendable {
    let environment: [String: String]
    let locations: DataLocations
    private var openedStore: Store?
    var output: (String) -> Void
    var errorOutput: (String) -> Void

    init(environment: [String: String], output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void) {
        self.environment = environment
        self.locations = DataLocations.resolve(environment: environment)
        self.output = output
        self.errorOutput = errorOutput
    }

    var homeDirectory: String { environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() }

    func store() throws -> Store {
        if let openedStore { return openedStore }
        do {
            let store = try Store(path: locations.store)
            openedStore = store
            return store
        } catch {
            throw ShelfError(.storage, error.message, hint: error.hint)
        }
    }

    func print(_ text: String) { output(text.hasSuffix("\n") ? text : text + "\n") }
    func warn(_ text: String) { errorOutput("sshelf: warning: \(text)\n") }
}
