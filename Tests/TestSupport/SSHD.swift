// SSHD: the test harness's real OpenSSH server — started on a free loopback port with its own config, host keys,
// authorized_keys and log file; stopped when the object goes away, and killed with the test process however that
// ends (SpawnedProcess). Shared by the SSH, forward and TUI tests.
import Foundation
import XCTest

public final class SSHD: @unchecked Sendable {
    public enum KeyType: String, CaseIterable, Sendable {
        case ed25519, ecdsa, rsa
        public var algorithm: String {
            switch self {
            case .ed25519: "ssh-ed25519"
            case .ecdsa: "ecdsa-sha2-nistp256"
            case .rsa: "ssh-rsa"
            }
        }
    }

    public struct Options: Sendable {
        public var hostKeyTypes: [KeyType] = [.ed25519]
        /// Public key lines for authorized_keys (shared by every user on this server).
        public var authorizedKeys: [String] = []
        public var passwordAuthentication = true
        /// Keyboard-interactive needs PAM on Linux (no other kbd-int device); turning this on sets UsePAM yes.
        public var keyboardInteractive = false
        public var listenAddress = "127.0.0.1"
        public var logLevel = "DEBUG1"
        /// Appended to sshd_config as given (e.g. "HostKeyAlgorithms +ssh-rsa", "AllowTcpForwarding no").
        public var extraConfig: [String] = []
        /// Reuse the host keys of an earlier server (its `directory`): the same server identity on a new port.
        public var hostKeysFrom: String? = nil
        /// Listen on this port instead of a free one (restarting a server where its clients expect it).
        public var port: Int? = nil
        /// Sign every host key with a CA and serve the certificates (HostCertificate).
        public var hostCertificate: HostCertificate? = nil
        public init() {}
    }

    /// A host certificate as `ssh-keygen -s CA -h -n PRINCIPALS -V VALIDITY` makes it.
    public struct HostCertificate: Sendable {
        /// The CA's private key file.
        public var caPrivatePath: String
        public var principals: [String]
        /// ssh-keygen's `-V` (e.g. "-5m:+1h", or "-2d:-1d" for an expired one).
        public var validity: String
        public init(caPrivatePath: String, principals: [String], validity: String = "-5m:+1h") {
            self.caPrivatePath = caPrivatePath
            self.principals = principals
            self.validity = validity
        }
    }

    public let port: Int
    public let directory: String
    public let logPath: String
    public let options: Options
    private let process: SpawnedProcess

    /// Where sshd's log goes; tests read it to prove what the server saw.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `[127.0.0.1]:port` (or `[::1]:port`), the known_hosts name of this server.
    public var knownHostsName: String { "[\(options.listenAddress)]:\(port)" }

    /// The host public key line (`type base64`) of one of this server's host keys.
    public func hostPublicKey(_ type: KeyType) -> String {
        let text =
            (try? String(contentsOfFile: "\(directory)/ssh_host_\(type.rawValue)_key.pub", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(2).joined(separator: " ")
    }

    /// Starts one server; retries on a port race.
    public static func start(_ options: Options = Options()) throws -> SSHD {
        var lastError: Error = HarnessError("sshd did not start")
        for _ in 0..<5 {
            do { return try SSHD(options) } catch { lastError = error }
        }
        throw lastError
    }

    /// Starts `count` servers with the same options (each with its own keys, port and log).
    public static func start(count: Int, _ options: Options = Options()) throws -> [SSHD] {
        try (0..<count).map { _ in try start(options) }
    }

    private init(_ options: Options) throws {
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        self.options = options
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        directory = base + "/sshelf-sshd-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if ProcessInfo.processInfo.environment["SSHELF_KEEP_SSHD"] == nil { TestScratch.removeAtExit(directory) }
        logPath = directory + "/sshd.log"
        port = try options.port ?? Self.freePort(options.listenAddress)
        var config = [
            "Port \(port)", "ListenAddress \(options.listenAddress)", "PidFile \(directory)/sshd.pid",
            "AuthorizedKeysFile \(directory)/authorized_keys", "StrictModes no", "PermitRootLogin yes",
            "PubkeyAuthentication yes", "PasswordAuthentication \(options.passwordAuthentication ? "yes" : "no")",
            "KbdInteractiveAuthentication \(options.keyboardInteractive ? "yes" : "no")",
            "UsePAM \(options.keyboardInteractive ? "yes" : "no")", "LogLevel \(options.logLevel)",
            "AllowTcpForwarding yes", "GatewayPorts no", "X11Forwarding no", "PrintMotd no", "UseDNS no",
            "MaxAuthTries 10", "Subsystem sftp internal-sftp", "AcceptEnv LANG LC_*",
        ]
        for type in options.hostKeyTypes {
            let path = "\(directory)/ssh_host_\(type.rawValue)_key"
            if let source = options.hostKeysFrom {
                try FileManager.default.copyItem(atPath: "\(source)/ssh_host_\(type.rawValue)_key", toPath: path)
                try FileManager.default.copyItem(
                    atPath: "\(source)/ssh_host_\(type.rawValue)_key.pub", toPath: path + ".pub")
            } else {
                try Shell.run(TestTool.sshKeygen.path, ["-q", "-t", type.rawValue, "-N", "", "-f", path])
            }
            config.append("HostKey \(path)")
            if let certificate = options.hostCertificate {
                try Shell.run(
                    TestTool.sshKeygen.path,
                    [
                        "-q", "-s", certificate.caPrivatePath, "-h", "-I", "sshelf-test-host", "-z", "7",
                        "-n", certificate.principals.joined(separator: ","), "-V", certificate.validity, path + ".pub",
                    ])
                config.append("HostCertificate \(path)-cert.pub")
            }
        }
        config += options.extraConfig
        try (config.joined(separator: "\n") + "\n").write(
            toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
        try (options.authorizedKeys.joined(separator: "\n") + "\n")
            .write(toFile: directory + "/authorized_keys", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try SpawnedProcess(TestTool.sshd.path, ["-D", "-f", directory + "/sshd_config", "-E", logPath])
        // Listening, or gone (a port taken meanwhile: the caller retries on another one).
        _ = waitUntil { log.contains("Server listening on") || !process.isRunning }
        if log.contains("Server listening on") && process.isRunning { return }
        let text = log
        stop()
        throw HarnessError("sshd did not start on port \(port):\n\(tail(text))")
    }

    /// Stops the server and removes its directory (kept when SSHELF_KEEP_SSHD is set, for debugging).
    deinit {
        stop()
        if ProcessInfo.processInfo.environment["SSHELF_KEEP_SSHD"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    public func stop() { process.stop() }

    /// Adds a public key line to authorized_keys while the server runs (sshd reads it per login).
    public func authorize(_ publicKeyLine: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/authorized_keys"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((publicKeyLine + "\n").utf8))
        try handle.close()
    }

    /// How often `text` occurs in the log (e.g. "userauth-request", "direct-tcpip"). Counted on the raw text:
    /// sshd ends some lines with CRLF, which Swift treats as one Character, so splitting on "\n" miscounts.
    public func logCount(_ text: String) -> Int { log.components(separatedBy: text).count - 1 }

    /// Waits until `text` appears `count` times in the log (sshd's monitor writes its log asynchronously). Use
    /// before asserting on the log, and before asserting that something is absent. On timeout the test fails
    /// here with the log's tail, and false comes back.
    @discardableResult
    public func waitForLog(_ text: String, count: Int = 1, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        (try? eventually(
            "'\(text)' \(count)× in the sshd log", file: file, line: line, context: { "sshd log:\n" + tail(log) }
        ) {
            logCount(text) >= count
        }) != nil
    }

    /// Waits until the server has seen `count` connections end, however they ended: "Disconnected from" when the
    /// client said goodbye, "Connection closed by" when the socket closed first (a hop through a jump host may
    /// end either way, depending on which side gets there first). Use before asserting what a connection did not do.
    @discardableResult
    public func waitForConnectionsEnded(_ count: Int = 1, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        (try? eventually(
            "\(count) connection(s) to end in the sshd log", file: file, line: line,
            context: { "sshd log:\n" + tail(log) }
        ) {
            Self.connectionEndings.map(logCount).reduce(0, +) >= count
        }) != nil
    }

    static let connectionEndings = ["Disconnected from", "Connection closed by", "Connection reset by"]

    /// The session processes under this server (by pid, from its pid file and /proc).
    public func sessionPIDs() throws -> [pid_t] {
        let text = try String(contentsOfFile: directory + "/sshd.pid", encoding: .utf8)
        guard let main = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("no sshd pid in \(directory)/sshd.pid")
        }
        return ProcessTree.descendants(of: main)
    }

    /// Kills every session process under this server (SIGKILL) while its listener stays up: clients see their
    /// connection cut. Returns how many processes it killed.
    @discardableResult
    public func killSessions() throws -> Int {
        let victims = try sessionPIDs()
        for pid in victims { kill(pid, SIGKILL) }
        return victims.count
    }

    /// Stops the listener and kills the sessions too (stopping sshd alone leaves open sessions running), so
    /// clients see the connection drop as when a machine goes away.
    public func stopWithSessions() throws {
        let victims = try sessionPIDs()
        stop()
        for pid in victims { kill(pid, SIGKILL) }
    }

    /// A port for sshd to listen on (see TestPorts: below the kernel's range for outgoing connections).
    static func freePort(_ address: String) throws -> Int { try TestPorts.free(address) }
}

/// A loopback TCP listener that accepts connections into its backlog and never says a word: for timeouts.
public final class SilentListener {
    public let port: Int
    private let fd: Int32

    /// Listens on `port` (0: any port the kernel chooses) of `address`.
    public init(_ address: String = "127.0.0.1", port wanted: Int = 0) throws {
        let v6 = address.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        self.fd = fd
        var storage = sockaddr_storage()
        var length: socklen_t
        if v6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = in_port_t(UInt16(wanted).bigEndian)
            inet_pton(AF_INET6, address, &addr.sin6_addr)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: withUnsafeBytes(of: addr) { $0 }) }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(wanted).bigEndian)
            inet_pton(AF_INET, address, &addr.sin_addr)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: withUnsafeBytes(of: addr) { $0 }) }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw HarnessError("cannot listen on \(address)")
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        port = withUnsafeBytes(of: actual) { raw in
            // sin_port and sin6_port sit at the same offset (2), in network byte order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }

    deinit { close(fd) }
}

/// A user key pair for tests, generated with ssh-keygen in a private directory.
public struct TestKey {
    public let privatePath: String
    public let publicLine: String
    public var privateBytes: [UInt8] { [UInt8](FileManager.default.contents(atPath: privatePath) ?? Data()) }

    public static func generate(_ type: SSHD.KeyType, passphrase: String = "", in directory: String? = nil) throws
        -> TestKey
    {
        let dir = directory ?? (TestScratch.root + "/key-" + UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/id_" + type.rawValue
        try Shell.run(
            TestTool.sshKeygen.path, ["-q", "-t", type.rawValue, "-N", passphrase, "-C", "sshelf-test", "-f", path])
        let line = try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return TestKey(privatePath: path, publicLine: line)
    }
}

/// The dedicated account for password and keyboard-interactive tests, created idempotently (tests run as root).
public enum TestAccount {
    public static let name = "sshelftest"
    /// A test-only password for a throwaway local account.
    public static let password = "correct horse 42"

    /// Creates the account and sets its password unless a run before us already did. Serialised across the
    /// parallel test processes by a lock file: concurrent useradd/chpasswd calls contend for /etc/shadow's lock,
    /// and rewriting /etc/shadow under every SSH test is needless churn while other tests' sshd read it.
    public static func ensure() throws {
        let lockFD = open("/tmp/sshelf-test-account.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else {
            throw HarnessError("cannot open the test account lock: \(String(cString: strerror(errno)))")
        }
        defer { close(lockFD) }
        while flock(lockFD, LOCK_EX) != 0 && errno == EINTR {}
        if (try? Shell.run(TestTool.id.path, ["-u", name])) == nil {
            try Shell.run(TestTool.useradd.path, ["-m", "-s", TestTool.sh.path, name])
        }
        // Tests read the remote prompt: sh's "$ ", whatever an older run (or a person) set.
        let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? ""
        if passwd.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })?.hasSuffix(":" + TestTool.sh.path)
            != true
        {
            try Shell.run(TestTool.usermod.path, ["-s", TestTool.sh.path, name])
        }
        // The shadow hash we set last time (kept beside the lock) still there means the password is ours.
        let marker = "/tmp/sshelf-test-account.hash"
        if let hash = shadowHash(), hash == (try? String(contentsOfFile: marker, encoding: .utf8)) { return }
        // Another program (an older checkout's tests) may hold /etc/shadow's own lock for a moment.
        var lastError: Error?
        let set = waitUntil {
            do {
                try Shell.run(TestTool.chpasswd.path, [], input: "\(name):\(password)\n")
                return true
            } catch {
                lastError = error
                return false
            }
        }
        if !set, let lastError { throw lastError }
        try shadowHash()?.write(toFile: marker, atomically: true, encoding: .utf8)
    }

    private static func shadowHash() -> String? {
        guard let shadow = try? String(contentsOfFile: "/etc/shadow", encoding: .utf8) else { return nil }
        return shadow.split(separator: "\n").first { $0.hasPrefix(name + ":") }?.split(separator: ":").dropFirst().first
            .map(String.init)
    }
}

/// A real ssh-agent on a private socket, ended on deinit — and with the test process, however that ends.
public final class TestAgent {
    public let socketPath: String
    /// What the agent runs and watches: ssh-agent is set-group-id, so the kernel drops the parent-death signal
    /// SpawnedProcess gives it, but an agent started with a command exits when that command's process goes (it
    /// looks every 10 s). The command is a sleep that has the parent-death signal set again.
    private let process: SpawnedProcess
    /// The agent itself (SSH_AGENT_PID in the command's environment), stopped at once on deinit.
    private var agentPID: pid_t?

    public init() throws {
        let dir = TestScratch.root + "/agent-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        socketPath = dir + "/agent.sock"
        process = try SpawnedProcess(
            TestTool.sshAgent.path,
            ["-a", socketPath, TestTool.setpriv.path, "--pdeathsig", "KILL", TestTool.sleep.path, "infinity"])
        guard waitUntil({ FileManager.default.fileExists(atPath: socketPath) || !process.isRunning }), process.isRunning
        else {
            throw HarnessError("ssh-agent did not create \(socketPath)")
        }
        _ = waitUntil {
            agentPID = Self.agentPID(in: process.pid)
            return agentPID != nil || !process.isRunning
        }
    }

    /// SSH_AGENT_PID in the environment of `pid`, once the agent's command runs there.
    private static func agentPID(in pid: pid_t) -> pid_t? {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/environ") else { return nil }
        defer { try? file.close() }
        let variables = ((try? file.readToEnd()) ?? Data()).split(separator: 0)
        let prefix = "SSH_AGENT_PID="
        return variables.lazy.map { String(decoding: $0, as: UTF8.self) }.first { $0.hasPrefix(prefix) }
            .flatMap { pid_t($0.dropFirst(prefix.count)) }
    }

    public func add(_ key: TestKey) throws {
        try Shell.run(TestTool.sshAdd.path, ["-q", key.privatePath], environment: ["SSH_AUTH_SOCK": socketPath])
    }

    deinit {
        if let agentPID { kill(agentPID, SIGTERM) }
        process.stop()
    }
}

/// One scratch directory per test process for keys and agent sockets, removed when the process exits, with the
/// other directories handed to `removeAtExit` (a server's, when XCTest still holds its test case at exit).
public enum TestScratch {
    public static let root: String = {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let path = "\(base)/sshelf-scratch-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(atPath: TestScratch.root)
            for other in TestScratch.others.lock.withLock({ TestScratch.others.paths }) {
                try? FileManager.default.removeItem(atPath: other)
            }
        }
        return path
    }()

    /// Removes `path` when the process exits, if nothing removed it before.
    public static func removeAtExit(_ path: String) {
        _ = root
        others.lock.withLock { others.paths.append(path) }
    }

    private final class Others: @unchecked Sendable {
        let lock = NSLock()
        var paths: [String] = []
    }
    private static let others = Others()
}

public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

public enum Shell {
    /// Runs a program and returns its stdout; throws with stderr when it fails.
    @discardableResult
    public static func run(
        _ path: String, _ arguments: [String], input: String? = nil,
        environment: [String: String]? = nil
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let inPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try inPipe.fileHandleForWriting.close()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError(
                "\(path) \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
