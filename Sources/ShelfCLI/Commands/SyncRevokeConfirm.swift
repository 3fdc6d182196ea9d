// SyncRevokeConfirm: `sync revoke` cannot be undone, so it says what follows (the group key replaced, what the
// revoked device keeps) and goes ahead only when the device's name is typed, as the changed-key dialog asks for the
// host's (`--yes` for scripts). Without a terminal and without --yes nothing is done.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync

enum SyncRevokeConfirm {
    /// Prints what revoking `target` means; throws unless the user typed its name (or gave --yes).
    static func obtain(yes: Bool, _ context: AppContext, target: UUID, store: Store) throws {
        let id = target.uuidString.lowercased()
        let name = try GroupInfo.devices(store).first { $0.id == id }?.name ?? String(id.prefix(8))
        let shown = "\(Display.safe(name)) (\(id.prefix(8)))"
        let credentials = try SyncSettings.credentialsEnabled(store)
        context.print(
            "revoking \(shown) cannot be undone: its entries after the last one this device verified are refused "
                + "everywhere, and the group key is replaced (every remaining device re-seals its data under the new "
                + "key on its next sync; \(Display.safe(name)) cannot read anything written after).")
        context.print(
            "\(Display.safe(name)) keeps what it already has: the hosts and settings it synced"
                + (credentials
                    ? ", and the passwords and keys credential sync brought it — change those where they matter."
                    : "."))
        guard !yes else { return }
        guard isatty(0) == 1, let tty = TTY.open() else {
            throw ShelfError(
                .usage, "sync revoke needs a confirmation, and there is no terminal to ask on; nothing was revoked",
                hint: "run it in a terminal and type the device's name, or give --yes")
        }
        defer { tty.close() }
        tty.write("Type the device's name (\(Display.safe(name))) to revoke it: ")
        guard tty.readLine(echo: true).trimmingSpaces() == name else {
            throw ShelfError(
                .usage, "not confirmed; nothing was revoked",
                hint: "type the device's name exactly as 'sshelf sync devices' shows it, or give --yes")
        }
    }
}
