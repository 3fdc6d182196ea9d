// WarmKeeper: the background process behind `exec --persist` — logs in once without asking anything (vault,
// agent, key file only), then serves exec requests from our own uid over a 0600 unix socket, one channel each and
// side by side (KeeperLoop), each only once the host key was checked again against the pins and known_hosts, until
// it has been idle for its time (WarmIdle), is told to stop, its socket was replaced, a host key no longer holds, or
// its server stopped answering (ServerAliveInterval / ServerAliveCountMax, SSHConnectionWatch).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem

public enum WarmKeeper {
    /// Runs the keeper in this process. `ready` (a pipe from the spawning `exec`) gets "ready\n" or the reason the
    /// login failed, and is closed; from then on the keeper talks only through its socket. Without `ready`, a
    /// failure is thrown, so it is printed like any command's.
    public static func serve(
        _ plan: ConnectPlan, store: Store, options: ConnectOptions, idle: Int, ready: Int32?,
        context: AppContext
    ) throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let connection: SSHConnection
        let listener: Int32
        let inode: ino_t
        let path = WarmSocket.path(context.locations, host: plan.target.id)
        do {
            connection = try login(plan, store: store, options: options, context: context)
            do {
                try connection.startWatch()
                (listener, inode) = try PrivateSocket.listen(
                    at: path, directory: WarmSocket.directory(context.locations),
                    within: context.locations.runtimeDirectory)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            guard ready != nil else { throw error }
            let failure = ShelfError(from: error)
            tell(ready, "error: " + failure.message)
            return failure.exitCode
        }
        defer { connection.close() }
        try? ConnectPlan.record(connection.outcome, target: plan.target.id, store: store)

        tell(ready, "ready")

        let loop = KeeperLoop(
            connection: connection, listener: listener, path: path, inode: inode,
            fingerprint: WarmSocket.fingerprint(plan.endpoints), idle: .seconds(idle),
            recheck: { recheck(connection, plan: plan, store: store, trust: options.trust) })
        loop.run()
        return 0
    }

    /// The credential source (and the vault it opened, with its keys) lives only for the login: afterwards the
    /// keeper holds the session and nothing secret.
    private static func login(_ plan: ConnectPlan, store: Store, options: ConnectOptions, context: AppContext)
        throws(SSHError)
        -> SSHConnection
    {
        let source = VaultCredentialSource(
            workspace: context.workspace, store: store, releasedBy: "exec", askPassphrase: nil)
        return try plan.connect(
            SSHConnector(options: options, credentials: source, delegate: UnattendedPrompts()), store: store)
    }

    /// The session's host keys checked again before a caller's command: each hop's pin as the store has it now
    /// (a host record gone has none), the known_hosts files as they are now. Nil when they still hold; else the
    /// refusal a new login would meet (a key revoked, changed or no longer known).
    static func recheck(_ connection: SSHConnection, plan: ConnectPlan, store: Store, trust: HostKeyTrustStore)
        -> SSHError?
    {
        var hops = plan.endpoints
        do {
            try store.read { store in
                for index in hops.indices {
                    guard let id = hops[index].hostID else { continue }
                    hops[index].pinnedHostKey = try store.host(id: id)?.pinnedHostKey
                }
            }
        } catch {
            return SSHError(
                .invalidConfiguration,
                "the host records could not be read to check the host key again: \(ShelfError(from: error).message)")
        }
        do {
            try connection.recheckHostKeys(hops, trust: trust)
            return nil
        } catch {
            return error
        }
    }

    private static func tell(_ fd: Int32?, _ line: String) {
        guard let fd else { return }
        let bytes = Array((Display.safe(line) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
