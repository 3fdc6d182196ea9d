// TestSupport/CLI: runs the real `sshelf` binary in a private SSHELF_HOME and captures what it printed.
import Foundation
import XCTest

public struct CLIResult: CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// A throwaway SSHELF_HOME (and HOME) for one test; removed, with every process still running on it, when the test
/// ends — or when the test process exits, for a home XCTest still holds then (a test case's property).
public final class TempHome {
    public let root: String
    public var sshelfHome: String { root + "/sshelf" }
    public var home: String { root + "/home" }
    public var extraEnvironment: [String: String] = [:]

    public init(file: StaticString = #filePath) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        root = base + "/sshelf-test-" + UUID().uuidString.prefix(12)
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        Self.live.insert(root)
    }

    deinit {
        // A vault this home unlocked keeps its class keys in the kernel user keyring for 10–12 h, past the folder:
        // lock it first (keyring on, whatever the test chose: an in-process unlock may have used it), so a test run
        // leaves no keys of deleted vaults behind.
        if FileManager.default.fileExists(atPath: sshelfHome + "/data/vault.sqlite") {
            var env = environment
            env["SSHELF_VAULT_NO_KEYRING"] = "0"
            _ = try? CLI.run(["vault", "lock"], environment: env)
        }
        Self.live.remove(root)
        Self.remove(root)
    }

    /// Ends what still runs on the home, then deletes it.
    private static func remove(_ root: String) {
        HomeProcesses.end(home: root + "/sshelf")
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The homes not yet released, removed at exit.
    private static let live: LiveHomes = {
        atexit { TempHome.live.drain().forEach(TempHome.remove) }
        return LiveHomes()
    }()

    private final class LiveHomes: @unchecked Sendable {
        private let lock = NSLock()
        private var roots: Set<String> = []
        func insert(_ root: String) { lock.withLock { _ = roots.insert(root) } }
        func remove(_ root: String) { lock.withLock { _ = roots.remove(root) } }
        func drain() -> Set<String> {
            lock.withLock {
                defer { roots = [] }; return roots
            }
        }
    }

    public var environment: [String: String] {
        var env = [
            "SSHELF_HOME": sshelfHome, "HOME": home,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8", "NO_COLOR": "1",
            // Every sshelf of the test, detached daemons included, ends with this process (TestOwnerWatch).
            "SSHELF_TEST_OWNER_PID": String(getpid()),
        ]
        // make test's second run loads libssh2 1.11.1 this way (scripts/test-matrix): sshelf must load it too.
        if let path = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] { env["LD_LIBRARY_PATH"] = path }
        for (key, value) in extraEnvironment { env[key] = value }
        return env
    }

    /// Runs `sshelf ARGS…` and waits; stdin is the given text (or /dev/null).
    @discardableResult
    public func run(_ arguments: [String], stdin: String? = nil, umask mask: mode_t? = nil) throws -> CLIResult {
        try CLI.run(arguments, environment: environment, stdin: stdin, umask: mask)
    }

    @discardableResult
    public func run(_ arguments: String...) throws -> CLIResult { try run(arguments) }

    /// Runs `sshelf ARGS…` with `text` (and a newline) readable on file descriptor 3, the way a script hands
    /// over a secret (`--secret-fd 3`, `--passphrase-fd 3`, `--code-fd 3`).
    @discardableResult
    public func run(_ arguments: [String], fd3 text: String) throws -> CLIResult {
        let file = try write(text + "\n", to: "fd3-\(UUID().uuidString.prefix(6))")
        return try CLI.run(
            ["-c", "exec \"$0\" \"$@\" 3<'\(file)'", CLI.binary] + arguments, environment: environment,
            shell: true)
    }

    public func write(_ text: String, to relativePath: String) throws -> String {
        let path = home + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

public enum CLI {
    /// The built binary: $SSHELF_BIN (set by scripts/run-tests), else next to the test bundle.
    public static var binary: String {
        if let path = ProcessInfo.processInfo.environment["SSHELF_BIN"], !path.isEmpty { return path }
        var url = Bundle.main.bundleURL
        while url.path != "/" {
            let candidate = url.appendingPathComponent("sshelf").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            url.deleteLastPathComponent()
        }
        return "sshelf"
    }

    /// Runs `program` (the built binary unless told otherwise) with these arguments.
    public static func run(
        _ arguments: [String], environment: [String: String], stdin: String? = nil,
        umask mask: mode_t? = nil, shell: Bool = false, program: String? = nil
    ) throws -> CLIResult {
        let binary = program ?? Self.binary
        let process = Process()
        if shell {
            // The arguments are a `sh -c` script and its parameters (for redirections such as 3<file).
            process.executableURL = TestTool.sh.url
            process.arguments = arguments
        } else if let mask {
            // Process has no umask setting: run through sh so the child really starts with this umask.
            process.executableURL = TestTool.sh.url
            process.arguments = ["-c", "umask \(String(mask, radix: 8)); exec \"$0\" \"$@\"", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let input = Pipe()
            process.standardInput = input
            try process.run()
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        // Drain both pipes concurrently so a large output cannot dead-lock the child.
        final class Collected: @unchecked Sendable { var data = Data() }
        let errData = Collected()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.data, as: UTF8.self))
    }
}

/// Fails the test with the full output when a command did not exit as expected.
public func XCTAssertExit(_ result: CLIResult, _ status: Int32, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(result.status, status, "\(result)", file: file, line: line)
}
