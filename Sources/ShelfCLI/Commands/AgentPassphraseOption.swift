// AgentPassphraseOption: a command's `--passphrase-fd N` as the passphrase a session handed to OpenSSH gives the
// sshelf agent when the hop's vault key is locked for it (OpenSSHAgentUnlock). The descriptor is made close-on-exec
// here, so the ssh that follows (run in place of sshelf, or as its child) never inherits it.
import FoundationEssentials
import ShelfCore
import ShelfServices
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

extension AgentPassphrase {
    /// The command's --passphrase-fd N, read once for the process (shared with the vault's own asks); nil without it.
    static func option(_ call: Call<some LoginOptions>) -> AgentPassphrase? {
        given(SecretInput(call, \.passphraseFD))
    }

    /// The same for a descriptor already parsed (`forward up`'s); nil for the terminal.
    static func given(_ input: SecretInput) -> AgentPassphrase? {
        guard let fd = input.fd else { return nil }
        CloseOnExec.markInherited(fd)
        return AgentPassphrase(given: "--passphrase-fd \(fd)") { try? input.readVaultPassphrase(prompt: "") }
    }
}
