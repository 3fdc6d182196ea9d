// IdentityList: keys of the identity list (`I`) — move, add, edit, delete — and the delete confirmation, which
// names the hosts using the identity: their identity is cleared, nothing else about them changes.
import FoundationEssentials
import ShelfCore

enum IdentityList {
    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        state.notice = nil
        guard let binding = Keymap.binding(for: key, in: .identities) else {
            if key == .ctrl("c") { return Reducer.quit(&state) }
            return []
        }
        if let reason = binding.disabledReason(state) {
            state.notice = Notice("\(binding.description): \(reason)", isError: true)
            return []
        }
        let count = state.catalog.identities.count
        switch binding.command {
        case .identityDown: state.identityCursor = Reducer.clamp(state.identityCursor + 1, count: count)
        case .identityUp: state.identityCursor = Reducer.clamp(state.identityCursor - 1, count: count)
        case .identityAdd:
            state.modeAfterForm = .identities
            state.mode = .form(Forms.identity(nil))
        case .identityEdit:
            guard let identity = state.selectedIdentity else { return [] }
            state.modeAfterForm = .identities
            state.mode = .form(Forms.identity(identity))
        case .identityDelete:
            guard let identity = state.selectedIdentity else { return [] }
            state.modeAfterForm = .identities
            state.mode = .confirm(deletePlan(identity, catalog: state.catalog))
        case .identityCopyID:
            guard let identity = state.selectedIdentity else { return [] }
            state.modeAfterForm = .identities
            state.mode = .form(Forms.copyIdentity(identity))
        case .identityClose:
            state.mode = .browse
        default:
            break
        }
        return []
    }

    /// Names of the hosts that log in with this identity, sorted.
    static func users(of id: UUID, in catalog: Catalog) -> [String] {
        catalog.names(usingIdentity: id).sorted()
    }

    static func deletePlan(_ identity: Identity, catalog: Catalog) -> Confirmation {
        let users = users(of: identity.id, in: catalog)
        var lines = ["\(identity.name) (\(identity.keyType.rawValue))"]
        if users.isEmpty {
            lines.append("No host uses it.")
        } else {
            let shown =
                users.prefix(5).joined(separator: ", ") + (users.count > 5 ? " and \(users.count - 5) more" : "")
            lines.append("Used by \(DeletePlan.plural(users.count, "host")): \(shown).")
            lines.append("Their identity is cleared; nothing else about them changes.")
        }
        if let ref = identity.privateKeyRef {
            lines.append("Its private key stays in the vault ('sshelf vault rm \(ref.rawValue)' removes it).")
        } else if !identity.keyFile.isEmpty {
            lines.append("The key file \(identity.keyFile) is not touched.")
        }
        return Confirmation(
            title: "Delete identity \(identity.name)?", lines: lines, effect: .deleteIdentity(identity.id))
    }
}
