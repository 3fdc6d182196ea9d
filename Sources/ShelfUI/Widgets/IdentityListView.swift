// IdentityListView: the identity list overlay (`I`) — name, key type, where the key lives, and the hosts using it.
import FoundationEssentials

enum IdentityListView {
    static func draw(_ state: UIState, on canvas: inout Canvas) {
        let identities = state.catalog.identities
        let inner = Frame.box(
            title: "Identities (\(identities.count))", height: state.rows - 2, width: 110,
            state: state, on: &canvas)
        let e = state.symbols.ellipsis
        let nameWidth = max(8, min(24, inner.width / 4))
        let typeWidth = 8
        let keyWidth = max(8, min(30, inner.width / 4))
        let typeX = inner.column + nameWidth + 1
        let keyX = typeX + typeWidth + 1
        let hostsX = keyX + keyWidth + 1
        let hostsWidth = inner.column + inner.width - hostsX
        canvas.write("Name", row: inner.row, column: inner.column, style: .dim)
        canvas.write("Type", row: inner.row, column: typeX, style: .dim)
        canvas.write("Key", row: inner.row, column: keyX, style: .dim)
        canvas.write("Used by", row: inner.row, column: hostsX, width: hostsWidth, style: .dim, ellipsis: e)
        let rows = max(1, inner.height - 3)
        if identities.isEmpty {
            canvas.write(
                "No identities yet: a adds one ('sshelf keygen NAME' makes a key in the vault).",
                row: inner.row + 1, column: inner.column, width: inner.width, style: .dim, ellipsis: e)
        }
        let scroll = max(0, state.identityCursor - rows + 1)
        for (i, identity) in identities.enumerated().dropFirst(scroll).prefix(rows) {
            let y = inner.row + 1 + i - scroll
            let users = IdentityList.users(of: identity.id, in: state.catalog)
            let key = identity.privateKeyRef != nil ? "vault" : identity.keyFile.isEmpty ? "none" : identity.keyFile
            canvas.write(identity.name, row: y, column: inner.column, width: nameWidth, style: .bold, ellipsis: e)
            canvas.write(identity.keyType.rawValue, row: y, column: typeX, width: typeWidth, ellipsis: e)
            canvas.write(key, row: y, column: keyX, width: keyWidth, style: key == "none" ? .dim : .plain, ellipsis: e)
            canvas.write(
                users.isEmpty ? "no host" : "\(users.count): " + users.joined(separator: ", "), row: y,
                column: hostsX, width: hostsWidth, style: users.isEmpty ? .dim : .plain, ellipsis: e)
            if i == state.identityCursor {
                canvas.restyle(row: y, column: inner.column, width: inner.width) { $0.reverse = true }
            }
        }
        canvas.write(
            "j/k move, e/Enter edit, a add, d delete, c copy-id, Esc back", row: inner.row + inner.height - 1,
            column: inner.column, width: inner.width, style: .dim, ellipsis: e)
    }
}
