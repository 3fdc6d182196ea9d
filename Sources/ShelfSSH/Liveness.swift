// Liveness: ServerAliveInterval / ServerAliveCountMax, as in ssh — after `interval` seconds in which the server sent
// nothing, a keepalive asking for a reply goes out; when `countMax` of them in a row got nothing back, the server
// counts as gone. Shared by exec and the shell (ChannelPump) and by a connection held between commands (a warm
// keeper, SSHConnectionWatch). Without the options, sshelf sends a keepalive every 30 s and ends nothing.
import FoundationEssentials
import ShelfCore

struct Liveness {
    var interval = 30
    /// Seconds of silence after which the server counts as gone; nil: never.
    var deadAfter: Double? = nil
    var host = ""
    var description = ""
    /// The same in short, for a held connection's message: "ServerAliveInterval 15 × 3".
    var summary = ""

    init() {}

    init(_ settings: HostSettings, host: String) {
        self.host = host
        guard let interval = settings.serverAliveInterval else { return }
        self.interval = interval
        if settings.serverAliveCountMax > 0 {
            // libssh2 sends a keepalive every 2 s when asked for every second (libssh2_keepalive_config), so a
            // healthy server's answers come that far apart: the silence allowed counts in the interval it uses.
            deadAfter = Double(max(2, interval) * (settings.serverAliveCountMax + 1))
            description = "ServerAliveInterval \(interval), ServerAliveCountMax \(settings.serverAliveCountMax)"
            summary = "ServerAliveInterval \(interval) × \(settings.serverAliveCountMax)"
        }
    }

    /// Seconds of silence left before the server counts as gone; nil: never.
    func remaining(_ session: Session) -> Double? {
        deadAfter.map { $0 - session.context.silence }
    }

    func check(_ session: Session) throws(SSHError) {
        guard let deadAfter else { return }
        let silence = session.context.silence
        guard silence > deadAfter else { return }
        throw SSHError(
            .disconnected,
            "\(host) stopped answering: nothing came back for \(Int(silence)) s, keepalives included "
                + "(\(description)); the session was ended",
            hint: "the server or the network on the way is down or overloaded")
    }

    /// What a connection held between commands ends with when its server stopped answering (`.timedOut`, so the
    /// holder tells it apart from a connection the server closed).
    func stoppedAnswering() -> SSHError {
        SSHError(
            .timedOut, "the connection to \(host) stopped answering (\(summary)); run again to reconnect",
            hint: "the server or the network on the way is down or overloaded")
    }
}
