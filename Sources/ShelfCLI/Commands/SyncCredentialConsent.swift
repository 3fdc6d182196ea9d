// SyncCredentialConsent: what turning the credential track on asks first (`sync enable --credentials`, a `sync join`
// into a group that syncs credentials). A vault without a passphrase: set one first, or accept in words that the
// credentials arriving here open with the device key alone (`--accept-no-passphrase`). Then the list of what will
// travel, what moves to a syncable class and what stays on this device, and the user's yes (`--yes` for scripts).
// With neither a terminal nor the flag, the answer is no: nothing moves that the user did not see listed.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfVault

enum SyncCredentialConsent {
    /// The flags that answer the questions ahead of time, for scripts.
    struct Options: CommandOptions {
        let yes = Flag("yes", "move the listed items to syncable classes without asking")
        let acceptNoPassphrase = Flag(
            "accept-no-passphrase",
            "sync credentials into a vault with no passphrase (they open with the device key alone)")
    }

    /// What the command line answered already: `--yes`, `--accept-no-passphrase`.
    struct Given {
        var yes: Bool
        var acceptNoPassphrase: Bool

        init<O>(_ call: Call<O>, _ group: KeyPath<O, Options>) {
            yes = call[group.appending(path: \.yes)]
            acceptNoPassphrase = call[group.appending(path: \.acceptNoPassphrase)]
        }
    }

    /// Why the track was not turned on: what is wrong and what to do; the caller decides whether that is an error
    /// and says what it left as it was.
    struct Refusal: Error {
        var message: String
        var hint: String
    }

    static let acceptWords = "no passphrase"

    /// Asks for everything turning the track on needs; throws a Refusal when the user did not agree (or could not
    /// be asked). Prints the listing.
    static func obtain(_ given: Given, _ context: AppContext, store: Store, vault: Vault, retry: String) throws {
        if !vault.hasPassphrase && !given.acceptNoPassphrase {
            let risk =
                "this vault has no passphrase: the passwords and keys credential sync brings to this device would "
                + "open with its device key alone (anyone with a copy of your files could read them; 'sshelf vault "
                + "audit': no-passphrase)"
            let fix =
                "set one first with 'sshelf vault passwd', then run '\(retry)' again; or accept the risk with "
                + "'\(retry) --accept-no-passphrase'"
            guard let tty = TTY.open() else { throw Refusal(message: risk, hint: fix) }
            defer { tty.close() }
            tty.write(
                "\(risk).\nSet a passphrase first ('sshelf vault passwd'), "
                    + "or type '\(acceptWords)' to go on without one: ")
            guard tty.readLine(echo: true).trimmingSpaces().lowercased() == acceptWords else {
                throw Refusal(message: "credential sync was not turned on: the vault has no passphrase", hint: fix)
            }
        }
        let plan = try CredentialSyncPlan.make(vault: vault, store: store)
        context.output(listing(plan, store: store))
        guard !plan.moves.isEmpty, !given.yes else { return }
        let count = "\(plan.moves.count) item\(plan.moves.count == 1 ? "" : "s")"
        guard let tty = TTY.open() else {
            throw Refusal(
                message: "credential sync would move \(count) to a syncable class",
                hint: "read the list above, then run '\(retry) --yes' to confirm "
                    + "(or run it in a terminal to be asked)")
        }
        defer { tty.close() }
        tty.write("Move \(count) to a syncable class so they travel to your other devices? [y/N] ")
        guard ["y", "yes"].contains(tty.readLine(echo: true).trimmingSpaces().lowercased()) else {
            throw Refusal(
                message: "credential sync was not turned on",
                hint: "to keep one item on this device, "
                    + "'sshelf vault set-class KEY whenUnlockedThisDeviceOnly' first")
        }
    }

    /// What will travel, what moves and what stays, in the user's words (host and identity names).
    static func listing(_ plan: CredentialSyncPlan, store: Store) -> String {
        guard plan.sendsAnything || !plan.stays.isEmpty else {
            return "credential sync: this vault holds no passwords or keys yet; new ones follow the class table "
                + "(docs/VAULT.md) and travel\n"
        }
        let names = Names(store)
        var out = ""
        if !plan.travels.isEmpty {
            out += "will travel (already in a syncable class):\n"
            for item in plan.travels { out += "  \(names.describe(item.key)): \(item.stored)\n" }
        }
        if !plan.moves.isEmpty {
            out += "will move to a syncable class and travel (their class came from the default table):\n"
            for item in plan.moves {
                out += "  \(names.describe(item.key)): \(item.stored) -> \(item.twin.map { "\($0)" } ?? "?")\n"
            }
        }
        if !plan.stays.isEmpty {
            out += "will stay on this device:\n"
            for item in plan.stays {
                let why = item.chosen ? "your choice" : "this class never leaves its device"
                out += "  \(names.describe(item.key)): \(item.stored) (\(why))\n"
            }
        }
        return out
    }

    /// Host and identity names for item keys; an item whose record is gone is named by its key alone.
    struct Names {
        var hosts: [UUID: String] = [:]
        var identities: [UUID: String] = [:]

        init(_ store: Store) {
            for host in (try? store.hosts()) ?? [] { hosts[host.id] = host.name }
            for identity in (try? store.identities()) ?? [] { identities[identity.id] = identity.name }
        }

        func describe(_ key: ReferenceKey) -> String {
            let what: String
            switch key.secret {
            case .password: what = "password of host"
            case .remember: what = "'remember password' answer of host"
            case .privkey: what = "private key of identity"
            case .passphrase: what = "key passphrase of identity"
            default: return key.rawValue
            }
            let owner = key.ownerID.flatMap { key.owner == .host ? hosts[$0] : identities[$0] }
            guard let owner else { return "\(what) \(key.ownerID?.uuidString.lowercased() ?? "?") (\(key))" }
            return "\(what) '\(Display.safe(owner))' (\(key))"
        }
    }
}
