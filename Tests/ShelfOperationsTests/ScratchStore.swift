// ScratchStore: a real store file in a throwaway SSHELF_HOME for one test — what the operations run on, without the
// sshelf binary or sshd.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import TestSupport

struct ScratchStore {
    let home = TempHome()
    let store: Store

    init() throws {
        store = try Store(path: DataLocations.resolve(environment: home.environment).store)
    }

    /// A workspace on the same home whose warnings are kept in `warnings`.
    func workspace(_ warnings: Warnings = Warnings()) -> Workspace {
        Workspace(environment: home.environment) { warnings.append($0) }
    }

    /// Saves hosts as they are (no operation's rules): the state a test starts from.
    @discardableResult
    func seed(_ hosts: ShelfCore.Host...) throws -> [ShelfCore.Host] {
        try store.write { store in for host in hosts { try store.save(host) } }
        return hosts
    }

    /// The stored hosts' names, sorted.
    func hostNames() throws -> [String] { try store.hosts().map(\.name).sorted() }

    /// The stored groups' paths, sorted.
    func groupPaths() throws -> [String] {
        let tree = GroupTree(try store.groups())
        return tree.groups.keys.map { tree.path(of: $0) }.sorted()
    }
}

/// Warnings an operation gave, in order.
final class Warnings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
