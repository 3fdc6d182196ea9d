// Teardown: addTeardownBlock without its leak. corelibs XCTest keeps every teardown block after it ran, and the
// test case (with its blocks) until the process exits — so whatever a block captured (a world with its sshd, a
// home) was never released: its deinit never stopped the server or removed the folder.
import Foundation
import XCTest

extension XCTestCase {
    /// Runs `block` when the test ends (before tearDown, as addTeardownBlock), then lets go of it and of what it
    /// captured.
    public func addTeardown(_ block: @escaping () -> Void) {
        let once = Once(block)
        addTeardownBlock { once.run() }
    }
}

private final class Once: @unchecked Sendable {
    private var block: (() -> Void)?
    init(_ block: @escaping () -> Void) { self.block = block }

    func run() {
        let block = self.block
        self.block = nil
        block?()
    }
}
