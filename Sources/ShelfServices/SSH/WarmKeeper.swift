// WarmKeeper: the background process behind `exec --persist` — logs in once without asking anything (vault,
// agent, key file only), then serves exec requests from our own uid over a 0600 unix socket, one channel each and
// side by side (KeeperLoop), until it has been idle for its time (WarmIdle), is told to stop, its socket was
// replaced, or its server stopped answering (ServerAliveInterval / ServerAliveCountMax, SSHConnectionWatch).
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
                    at: path, directory: WarmSocket.directory(context.locations))
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
            fingerprint: WarmSocket.fingerprint(plan.endpoints), idle: .seconds(idle))
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

    private static func tell(_ fd: Int32?, _ line: String) {
        guard let fd else { return }
        let bytes = Array((Display.safe(line) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
