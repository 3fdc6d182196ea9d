// OpenSSHSessionLog: ssh's own log for a fleet host handed to OpenSSH for post-quantum key exchange, so the session
// is recorded as the host's last with the key exchange it used (`show`, `check`) as one of sshelf's own client is.
// ssh writes it (`-E`, `LogLevel DEBUG1`: "kex: algorithm:" is a debug1 line) to a private file (0600 in the runtime
// directory, removed after); the command's own output is not in it. What is read back: whether ssh logged in, the
// first key exchange (written before the server can send a banner), and ssh's words for the report (its errors),
// without its debug lines.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSystem

final class OpenSSHSessionLog {
    let path: String

    init(_ locations: DataLocations) throws {
        try PrivateFiles.ensureDirectory(locations.runtimeDirectory)
        path = locations.runtimeDirectory + "/run-ssh-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        // Created 0600 before ssh opens it (ssh would create it with the umask's mode); a scratch file in a private
        // folder needs no fsync (an atomic write's two cost a connect tens of milliseconds on a busy disk).
        try PrivateFiles.ensureFile(path)
    }

    /// Whether `plan` goes to OpenSSH for post-quantum key exchange: a hop requires it, or a server offers only it.
    static func wanted(_ plan: ConnectPlan, why: String) -> Bool {
        PostQuantumWords.handover(plan) != nil || why.contains(" offers only post-quantum key exchange (")
    }

    /// ssh's options: its log to the file (the first LogLevel given wins over a later one).
    var arguments: [String] { ["-E", path, "-o", "LogLevel=DEBUG1"] }

    struct Read {
        var loggedIn = false
        var keyExchange: String?
        /// ssh's own lines, as it would have written them to its standard error at its default level.
        var said: [UInt8] = []
    }

    func read() -> Read { Self.read((try? String(contentsOfFile: path, encoding: .utf8)) ?? "") }

    /// What ssh's log `text` says (from the file, or from scp's standard error where its ssh logged).
    static func read(_ text: String) -> Read {
        var read = Read()
        // ssh ends each line of its log with "\r\n" (one Character to Swift: split on newlines, not on "\n").
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.hasPrefix("debug") {
                if read.keyExchange == nil { read.keyExchange = keyExchange(in: line) }
                continue
            }
            if line.hasPrefix("Authenticated to ") { read.loggedIn = true }
            if isSaid(line) { read.said += Array((line + "\n").utf8) }
        }
        return read
    }

    /// Whether ssh's log line `line` is one ssh would have written to its standard error at its default level: not
    /// a debug line, nor what it says only above that level (VERBOSE), nor the end of a terminal session.
    static func isSaid(_ line: String) -> Bool {
        if line.hasPrefix("debug") { return false }
        let verbose = ["Authenticated to ", "Transferred: ", "Bytes per second"].contains(where: line.hasPrefix)
        let closed = line.hasPrefix("Connection to ") && line.hasSuffix(" closed.")
        return !verbose && !closed
    }

    /// The key exchange ssh's own line `line` names ("debug1: kex: algorithm: NAME"), nil for any other line. The
    /// whole line is ssh's only from its start: a server's words appear inside ssh's lines (its version string in
    /// "Remote protocol version …, remote software version …", which sshd's VersionAddendum sets), so a line that
    /// merely contains the words does not count. The first such line is the one: it comes before a server can
    /// have a whole line of its own written (keyboard-interactive's name and instruction, after the key exchange).
    static func keyExchange(in line: String) -> String? {
        let prefix = "debug1: kex: algorithm: "
        guard line.hasPrefix(prefix) else { return nil }
        let name = String(line.dropFirst(prefix.count)).trimmingSpaces()
        return name.isEmpty || name == "(no match)" ? nil : Display.safe(name)
    }

    func remove() { unlink(path) }
}
