// OpenSSHAgentUnlock: before a session goes to OpenSSH's ssh with the sshelf agent, the agent must be able to sign
// with the hops' vault keys. The sshelf process may hold the vault passphrase (`--passphrase-fd N`) while the agent
// is another process: where no kernel keyring shares an unlock between processes, the passphrase is handed to the
// agent over its private socket (an UNLOCK request, as `ssh-add -X`, the bridge's guard and `agent start --unlock`
// do), before ssh starts; never in an argument, the environment or a file. When nothing can give it (no descriptor,
// no terminal for the bridge's guard to ask on), the error says what to do before ssh runs. docs/SSH.md.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfVault
import ShelfVault

/// Where a command's vault passphrase comes from for the agent: a descriptor (`--passphrase-fd N`), read once.
public struct AgentPassphrase {
    /// The option as the user typed it ("--passphrase-fd 3"), for the error when it does not open the vault.
    public let given: String
    public let read: () -> SecretBytes?

    public init(given: String, read: @escaping () -> SecretBytes?) {
        self.given = given
        self.read = read
    }
}

enum OpenSSHAgentUnlock {
    /// Makes sure the agent at `socket` can sign for `plan`'s hops before ssh starts: a hop whose vault key is locked
    /// for the agent gets `passphrase` handed to the agent; without one, a terminal is left to the bridge's guard
    /// (it asks there), and with neither this throws, saying how to give it. `interactive` false (a fleet's ssh
    /// runs in batch mode: its guard asks nobody) counts as no terminal.
    static func ensure(
        _ plan: ConnectPlan, store: Store, socket: String, passphrase: AgentPassphrase?, interactive: Bool,
        context: AppContext
    ) throws {
        let vaultKeys = Set(try store.identities().filter { $0.privateKeyRef != nil }.map(\.id))
        var seen = Set<String>()
        for host in plan.hosts where host.identityID.map(vaultKeys.contains) == true {
            guard seen.insert(host.name).inserted,
                let state = AgentClient.keyState(socket: socket, host: host.name), state.state == .locked
            else { continue }
            let name = Display.safe(host.name)
            let key = Display.safe(state.key ?? "?")
            if let passphrase {
                guard let secret = passphrase.read(), !secret.isEmpty else {
                    throw ShelfError(
                        .invalid, "no vault passphrase was read from \(passphrase.given): \(name) was not contacted",
                        hint: "give the vault passphrase as the first line on that descriptor")
                }
                guard AgentClient.unlock(socket: socket, passphrase: secret) else {
                    throw ShelfError(
                        .invalid,
                        "the sshelf agent did not open the vault with the passphrase from \(passphrase.given) (not the "
                            + "vault passphrase, or the agent is locked): \(name) was not contacted",
                        hint: "give the right vault passphrase; 'sshelf agent status' shows whether the agent itself "
                            + "is locked")
                }
                return
            }
            if interactive && hasTerminal { return }
            throw ShelfError(
                .failure,
                "\(name) logs in with key '\(key)' from the sshelf vault, which is locked for the sshelf agent that "
                    + "OpenSSH's ssh signs through, and nothing here can ask for the vault passphrase (no terminal): "
                    + "\(name) was not contacted",
                guidance: sharedSession(context)
                    ? Hint(.passphrase(.give), .text(", or run "), .command(["vault", "unlock"]), .text(" first"))
                    : Hint(
                        .passphrase(.give), .text(", or unlock the agent first with "),
                        .command(["agent", "start", "--unlock"]),
                        .text(" (this system keeps no unlock between processes: no kernel keyring)")))
        }
    }

    /// Whether an unlock in one process holds for the others here (the kernel keyring).
    private static func sharedSession(_ context: AppContext) -> Bool {
        (try? VaultAccess.open(context.workspace, create: false).session().shared) == true
    }

    private static var hasTerminal: Bool {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { return false }
        close(tty)
        return true
    }
}
