// RunCommandSudo: `run --sudo`'s password, asked once on sshelf's own terminal with echo off (or read from
// --sudo-password-fd N) before any host starts; it lives in guarded memory for the run (FleetSudo), never in
// arguments, the environment or a log. And the terminal type `-t` asks the hosts for.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices

enum RunSudo {
    static func ask(_ call: Call<RunCommand.Options>) throws -> FleetSudo? {
        guard call[\.sudo] else {
            if call[\.sudoPasswordFD] != nil {
                throw ShelfError(.usage, "run: --sudo-password-fd goes with --sudo", hint: "add --sudo")
            }
            return nil
        }
        let input = SecretInput(call, \.sudoPasswordFD)
        let password = try input.read(prompt: "sudo password for the hosts (asked once, typed only where sudo asks): ")
        guard !password.isEmpty else {
            throw ShelfError(.invalid, "run: no sudo password given; nothing was run", hint: "type it at the question")
        }
        return FleetSudo(password: password)
    }

    /// The local TERM, as ssh sends it, or xterm without one.
    static func terminalType(_ context: AppContext) -> String {
        guard let term = context.environment["TERM"], !term.isEmpty, Validation.controlCharacterProblem(term) == nil,
            term.utf8.count <= 64
        else { return "xterm" }
        return term
    }
}
