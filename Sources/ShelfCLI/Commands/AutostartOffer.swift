// AutostartOffer: after `forward add|edit --autostart`, says which of the host's credentials lock with the vault
// session's idle timeout (so `forward up` would stop logging in when the session goes idle) and offers to move them
// to the class unattended logins read — asked on a terminal, or the exact `vault set-class` lines to run.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfVault

enum AutostartOffer {
    static func offer(_ rule: PortForwardRule, _ context: AppContext) throws {
        guard rule.autostart, rule.enabled, let hostID = rule.hostID else { return }
        let items = AutostartCredentials.toMove(
            hostID: hostID, workspace: context.workspace, store: try context.store())
        guard !items.isEmpty else { return }
        let target = AutostartCredentials.unattendedClass
        var text =
            "note: 'sshelf forward up' reads "
            + items.map { "\(Display.safe($0.what)) (\($0.stored))" }.joined(separator: ", ")
            + " only while the vault session is unlocked: the tunnel stops logging in after its idle timeout."
            + " To keep it up unattended, move \(items.count == 1 ? "it" : "them") to \(target):\n"
        for item in items { text += "  sshelf vault set-class \(item.key.rawValue) \(target)\n" }
        context.errorOutput(text)
        guard let tty = TTY.open() else { return }
        defer { tty.close() }
        tty.write("Move \(items.count == 1 ? "it" : "them") now? [y/N] ")
        guard tty.readLine(echo: true).trimmingSpaces().lowercased().hasPrefix("y") else { return }
        let store = try context.store()
        for item in items {
            let change = try CredentialOperations.setClass(
                item.key, to: target, workspace: context.workspace, store: store,
                vaultPassphrase: {
                    try SecretInput(fd: nil, option: "passphrase-fd").read(prompt: "Vault passphrase: ")
                })
            context.print("moved \(item.key) from \(change.from) to \(change.to)")
        }
    }
}
