// AgentCertificates: the user certificates the agent lists beside the keys of identities a CA in the vault keeps
// fresh (`ca sign … --renew`) — each renewed first when due by the one renewal every login path calls
// (CertificateRenewal.fresh; its release-log line names the agent), and one that expired and could not be renewed
// left out, so ssh never offers a certificate the server would refuse for its age.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfVault

struct AgentCertificates {
    let workspace: Workspace
    let environment: [String: String]
    /// Asks for the vault passphrase on a foreground agent's terminal; nil in the background.
    let askPassphrase: ((String) -> SecretBytes?)?
    let report: @Sendable (String) -> Void

    /// The certificates to list for `keys` (each served key of an identity some CA keeps fresh), renewed first
    /// where due. Renewing here, on the list request, is what makes a login offer the new one: ssh lists the
    /// agent's keys before it asks for a signature, and the certificate is inside what it asks to have signed.
    /// `store` is opened for this call (the CA's serial is taken in a write transaction of its own).
    func listed(_ keys: [AgentService.Served], for who: String) -> [AgentService.Served] {
        guard !keys.isEmpty else { return [] }
        let store: Store
        do {
            store = try workspace.openStore()
        } catch {
            report("could not renew certificates for \(who): \(error.message)")
            return []
        }
        let now = CertificateRenewal.now(environment: environment)
        return keys.compactMap { item -> AgentService.Served? in
            let name = "'\(Display.safe(item.identity.name))'"
            let certificate: SSHCertificate?
            do {
                certificate = try CertificateRenewal.fresh(
                    for: item.identity, by: "agent", now: now, workspace: workspace, store: store,
                    vaultPassphrase: { try passphrase(name, who: who) },
                    note: { report("\($0) for \(who)") }
                )?.certificate
            } catch {
                let kept = CertificateRenewal.valid(for: item.identity, now: now, locations: workspace.locations)
                report(
                    "could not renew the certificate of identity \(name) for \(who): \(ShelfError(from: error).message)"
                        + (kept == nil
                            ? "; its certificate has expired and is not offered"
                            : "; the one kept is still valid and offered"))
                certificate = kept
            }
            guard let certificate else { return nil }
            var listed = item
            listed.blob = certificate.blob
            return listed
        }
    }

    /// The vault passphrase for the CA's key: asked on a foreground agent's terminal; a background agent says how to
    /// give it.
    private func passphrase(_ name: String, who: String) throws -> SecretBytes {
        guard let askPassphrase else {
            throw ShelfError(
                .failure,
                "the vault is locked for the CA's key; run 'sshelf vault unlock' (or 'sshelf agent start --unlock', "
                    + "'ssh-add -X')")
        }
        guard let typed = askPassphrase("Vault passphrase (to renew the certificate of \(name) for \(who)): ") else {
            throw ShelfError(.failure, "no vault passphrase was given")
        }
        return typed
    }
}
