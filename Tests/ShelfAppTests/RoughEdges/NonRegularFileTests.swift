// NonRegularFileTests: where sshelf expects a plain file (device key, vault, store, a key to import, an export,
// known_hosts) a FIFO, socket, directory or device is refused at once, saying what it found. Each command runs
// under `timeout`, so a command that would block on a FIFO fails the test instead of hanging the suite.
import Foundation
import TestSupport
import XCTest

final class NonRegularFileTests: XCTestCase {
    enum Kind: CaseIterable { case fifo, socket, directory, device }

    /// Replaces `path` with a `kind` node; nil when this process may not make one (devices need root).
    @discardableResult
    func make(_ kind: Kind, at path: String) throws -> String? {
        try? FileManager.default.removeItem(atPath: path)
        switch kind {
        case .fifo:
            XCTAssertEqual(mkfifo(path, 0o600), 0, String(cString: strerror(errno)))
            return "a FIFO (named pipe)"
        case .directory:
            XCTAssertEqual(mkdir(path, 0o700), 0, String(cString: strerror(errno)))
            return "a directory"
        case .socket:
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                path.utf8CString.withUnsafeBytes {
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count)))
                }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            XCTAssertEqual(bound, 0, "bind \(path): \(String(cString: strerror(errno)))")
            chmod(path, 0o600)
            return "a socket"
        case .device:
            guard geteuid() == 0 else { return nil }
            // /dev/null's numbers (major 1, minor 3).
            XCTAssertEqual(mknod(path, S_IFCHR | 0o600, dev_t((1 << 8) | 3)), 0, String(cString: strerror(errno)))
            return "a character device"
        }
    }

    /// `sshelf ARGS` killed after a minute if it has not ended (exit 137 then).
    func run(_ home: TempHome, _ arguments: [String]) throws -> CLIResult {
        try CLI.run(
            ["-c", "exec timeout -s KILL 60 \"$0\" \"$@\"", CLI.binary] + arguments, environment: home.environment,
            shell: true)
    }

    func testADeviceKeyThatIsNotAFileIsRefusedWithWhatItIs() throws {
        for kind in Kind.allCases {
            let home = TempHome()
            home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
            XCTAssertExit(try home.run("vault", "init"), 0)
            XCTAssertExit(try home.run("add", "web", "--host", "web.example"), 0)
            guard let what = try make(kind, at: home.sshelfHome + "/state/device.key") else { continue }
            for arguments in [["vault", "status"], ["vault", "set-password", "web", "--secret-fd", "0"]] {
                let result = try run(home, arguments)
                XCTAssertExit(result, 5)
                XCTAssertTrue(
                    result.stderr.contains("device.key is \(what), not a regular file"),
                    "\(kind) \(arguments): \(result)")
                XCTAssertTrue(result.stderr.contains("sshelf: hint: "), result.stderr)
            }
        }
    }

    func testAVaultOrStoreThatIsNotAFileIsRefused() throws {
        for kind in Kind.allCases {
            let home = TempHome()
            home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
            XCTAssertExit(try home.run("vault", "init"), 0)
            guard let what = try make(kind, at: home.sshelfHome + "/data/vault.sqlite") else { continue }
            let vault = try run(home, ["vault", "status"])
            XCTAssertExit(vault, 5)
            XCTAssertTrue(vault.stderr.contains("vault.sqlite is \(what), not a regular file"), "\(kind): \(vault)")

            try make(kind, at: home.sshelfHome + "/data/store.sqlite")
            let store = try run(home, ["list"])
            XCTAssertExit(store, 5)
            XCTAssertTrue(store.stderr.contains("store.sqlite is \(what), not a regular file"), "\(kind): \(store)")
        }
    }

    func testFilesToReadThatAreNotFilesAreRefused() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let fifo = home.home + "/pipe"
        try make(.fifo, at: fifo)
        let key = try run(home, ["identity", "import", "work", fifo])
        XCTAssertExit(key, 4)
        XCTAssertTrue(key.stderr.contains("pipe is a FIFO (named pipe), not a regular file"), key.stderr)
        let export = try run(home, ["vault", "import", fifo, "--passphrase-fd", "0"])
        XCTAssertExit(export, 4)
        XCTAssertTrue(export.stderr.contains("pipe is a FIFO (named pipe), not a regular file"), export.stderr)
        let config = try run(home, ["import", "ssh-config", fifo])
        XCTAssertExit(config, 4)
        XCTAssertTrue(config.stderr.contains("pipe is a FIFO (named pipe), not a regular file"), config.stderr)

        // known_hosts files are only read for the plan: a FIFO there is passed over, not waited on.
        XCTAssertExit(try home.run("add", "web", "--host", "127.0.0.1"), 0)
        try FileManager.default.createDirectory(atPath: home.home + "/.ssh", withIntermediateDirectories: true)
        try make(.fifo, at: home.home + "/.ssh/known_hosts")
        try FileManager.default.createDirectory(atPath: home.sshelfHome + "/data", withIntermediateDirectories: true)
        try make(.fifo, at: home.sshelfHome + "/data/known_hosts")
        let plan = try run(home, ["connect", "web", "--dry-run"])
        XCTAssertExit(plan, 0)
        XCTAssertTrue(plan.stdout.contains("unknown: you will be asked"), plan.stdout)
    }
}
