// AgentUnlockGuard: `sshelf agent ensure-unlocked HOST [SOCKET]`, the command the ssh_config bridge's `Match exec`
// runs before ssh connects to a host whose key only the sshelf agent serves (SSHConfigAgentCheck). It asks the
// agent whether that key can be signed with now; when its vault class is locked it asks for the vault passphrase
// where the user is — the terminal ssh runs in (/dev/tty: ssh gives the command /dev/null as stdin), an open sshelf
// TUI (its passphrase dialog, through the confirm socket), or SSH_ASKPASS by OpenSSH's own rules (no terminal and a
// display, or SSH_ASKPASS_REQUIRE=force) — and hands it to the agent as `ssh-add -X` does, so the agent's tries and
// back-off hold (UnlockBackoff). Exit 1 lets ssh go on;
// exit 0 (nothing could ask, the passphrase was not given, the agent is not running) matches the bridge's block
// that ends ssh quietly, after the one line printed here says what to run.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfVault

#if canImport(Glibc)
import Glibc
#endif

enum AgentUnlockGuard {
    static let command = CommandSpec(
        path: ["agent", "ensure-unlocked"],
        summary:
            "before ssh connects (the ssh_config bridge runs it): ask for the vault passphrase if HOST's key is locked",
        details: """
            Run by the ssh_config bridge's Match exec for the hosts whose key is in the vault. Asks on the terminal \
            ssh runs in, else in an open sshelf TUI, else through SSH_ASKPASS (OpenSSH's rules: no terminal and a \
            display, or SSH_ASKPASS_REQUIRE=force); with ssh -o BatchMode=yes, or nothing to ask with, it prints \
            what to run. \
            Exits 1 when ssh may go on, 0 when the bridge should end ssh (the line printed says why).
            """,
        arguments: [
            ArgumentSpec(name: "HOST", help: "the host name as typed to ssh (%n)", completion: .host),
            ArgumentSpec(name: "SOCKET", help: "the agent's socket (default: this profile's)", optional: true),
        ],
        run: run)

    /// Wrong passphrases before giving up (as `connect` asks on the terminal).
    static let tries = 3
    /// How long an open TUI's dialog may take to be answered.
    static let tuiDeadline: Duration = .seconds(120)
    static let goOn: Int32 = 1
    static let stop: Int32 = 0

    static func run(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let host = call.argument(0) ?? ""
        let socket = call.argument(1) ?? context.locations.agentSocket
        let parent = SSHParentInvocation.current()
        // `ssh -G` and `-O` run the bridge's Match exec too: they connect nowhere, so nothing is asked or said.
        if parent?.onlyInspects == true { return goOn }
        let shown = Display.safe(host)
        func line(_ text: String) { context.errorOutput("sshelf: \(text)\n") }
        guard let state = AgentClient.keyState(socket: socket, host: host) else {
            line(
                "the key of this host is in the sshelf vault and the sshelf agent is not running: run sshelf agent "
                    + "start")
            return stop
        }
        switch state.state {
        case .open: return goOn
        case .agentLocked:
            line("the sshelf agent is locked (ssh-add -x): unlock it with 'ssh-add -X', then run ssh again")
            return stop
        case .locked: break
        }
        let key = Display.safe(state.key ?? "?")
        let locked =
            "\(shown) logs in with key '\(key)' from the sshelf vault, which is locked: run 'sshelf vault unlock' "
            + "(or 'ssh-add -X'), then run ssh again"
        let prompt = "Vault passphrase for sshelf (key '\(key)' for \(shown)): "
        let environment = context.environment
        let batch = parent?.batchMode == true
        let askpass = batch ? nil : Askpass(environment: environment)
        let asker: (() -> SecretBytes?)?
        if let askpass, askpass.forced {
            asker = { askpass.ask(prompt) }
        } else if !batch, AgentCommands.hasTerminal {
            asker = { try? SecretInput(fd: nil, option: "passphrase-fd").read(prompt: prompt) }
        } else if !batch,
            let answered = ConfirmChannel.askUnlock(
                "ssh to \(shown) needs key '\(key)', which the vault keeps locked.", locations: context.locations,
                deadline: .now + tuiDeadline)
        {
            // An open TUI asked in its own dialog and handed the passphrase to the agent itself.
            if answered { return goOn }
            line("the vault stayed locked (not unlocked in the sshelf TUI): " + locked)
            return stop
        } else if let askpass, askpass.allowed {
            asker = { askpass.ask(prompt) }
        } else {
            asker = nil
        }
        guard let asker else {
            line(locked)
            return stop
        }
        for attempt in 1...tries {
            guard let passphrase = asker(), !passphrase.isEmpty else {
                line("no passphrase given: " + locked)
                return stop
            }
            if AgentClient.unlock(socket: socket, passphrase: passphrase) { return goOn }
            if attempt < tries { line("that is not the vault passphrase; try again") }
        }
        line("the vault stayed locked (a wrong passphrase \(tries) times); \(shown) was not contacted")
        return stop
    }
}

/// OpenSSH's askpass rules (readpass.c): SSH_ASKPASS_REQUIRE=force uses it always, `prefer` over the terminal when a
/// display is there, `never` not at all; otherwise it is used without a terminal when a display is there.
struct Askpass {
    let program: String
    let forced: Bool
    let allowed: Bool

    init?(environment: [String: String]) {
        guard let program = environment["SSH_ASKPASS"], !program.isEmpty else { return nil }
        let display = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let require = (environment["SSH_ASKPASS_REQUIRE"] ?? "").lowercased()
        self.program = program
        forced = require == "force" || (require == "prefer" && display)
        allowed = require != "never" && (display || forced)
    }

    /// Runs the program with the prompt as its argument and reads its first line (nil when it failed or was
    /// cancelled). The answer comes through a pipe into guarded memory, never an argument or the environment.
    func ask(_ prompt: String) -> SecretBytes? {
        guard let path = Self.resolve(program) else { return nil }
        var fds: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&fds) == 0 else { return nil }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        guard
            case .success(let pid) = ChildProcess.spawn(
                [path, prompt], stdin: null >= 0 ? null : fds[0], stdout: fds[1], stderr: 2)
        else {
            close(fds[0])
            close(fds[1])
            return nil
        }
        close(fds[1])
        let answer = try? SecretInput(fd: fds[0], option: "askpass").read(prompt: "")
        close(fds[0])
        return ChildProcess.wait(pid) == 0 ? answer : nil
    }

    /// A name without a slash is looked up in PATH, as OpenSSH's execlp does.
    static func resolve(_ program: String) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where access("\(folder)/\(program)", X_OK) == 0 {
            return "\(folder)/\(program)"
        }
        return nil
    }
}
