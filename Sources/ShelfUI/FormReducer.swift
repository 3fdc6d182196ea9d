// FormReducer: keys inside a form — typing, moving between fields, cycling choices, saving with validation.
import FoundationEssentials
import ShelfCore

enum FormReducer {
    static func key(_ state: inout UIState, _ key: Key, _ original: Form) -> [Effect] {
        var form = original
        if form.pending { return [] }
        if let binding = Keymap.binding(for: key, in: .form) {
            let field = form.fields[form.focus]
            switch binding.command {
            case .formNext:
                form.focus = (form.focus + 1) % form.fields.count
                form.pickCursor = 0
            case .formPrevious:
                form.focus = (form.focus + form.fields.count - 1) % form.fields.count
                form.pickCursor = 0
            case .formCycle, .formCycleBack:
                if field.isTyped {
                    if key == .char(" ") { insert(&form, " ") }
                } else {
                    cycle(&form, forward: binding.command == .formCycle)
                }
            case .formErase:
                if field.isTyped, !field.value.isEmpty {
                    form.fields[form.focus].value.removeLast()
                    form.pickCursor = 0
                }
            case .formClear:
                if case .secret(let stored) = field.kind, field.value.isEmpty, stored {
                    // Ctrl-U on an empty password field: the stored one goes on save (again: it stays).
                    form.fields[form.focus].cleared.toggle()
                } else if field.isTyped {
                    form.fields[form.focus].value = ""
                    form.pickCursor = 0
                }
            case .formCancel:
                Reducer.closeForm(&state)
                state.notice = Notice("cancelled; nothing saved")
                return []
            case .formPickDown, .formPickUp:
                let count = field.pickMatches.count
                let step = binding.command == .formPickDown ? 1 : count - 1
                if count > 0 { form.pickCursor = (form.pickCursor + step) % count }
            case .formPickNew:
                guard case .pick = field.kind, case .host = form.kind else { break }
                // The identity form, back to this one afterwards with the new identity picked.
                state.modeAfterForm = .form(form)
                state.mode = .form(Forms.identity(nil))
                return []
            case .formSave:
                if field.kind == .lines {
                    insert(&form, "\n")
                    break
                }
                let matches = field.pickMatches
                if case .pick(let options) = field.kind, !field.value.isEmpty, !matches.isEmpty,
                    !options.contains(field.value)
                {
                    // Enter picks the highlighted identity; the next Enter saves.
                    form.fields[form.focus].value = matches[min(form.pickCursor, matches.count - 1)]
                    form.errors[field.key] = nil
                    form.pickCursor = 0
                    break
                }
                return submit(&state, form)
            default: break
            }
            state.mode = .form(form)
            return []
        }
        if case .char(let ch) = key, form.fields[form.focus].isTyped {
            insert(&form, ch)
        }
        state.mode = .form(form)
        return []
    }

    /// An identity added from the host form (Ctrl-A) is that form's identity once saved.
    static func picked(_ state: inout UIState, from saved: Form) {
        guard case .identity(editing: nil) = saved.kind, case .form(var host) = state.mode, case .host = host.kind,
            let index = host.fields.firstIndex(where: { $0.key == "identity" }),
            case .pick(var options) = host.fields[index].kind
        else { return }
        let name = saved.value("name")
        if !options.contains(name) { options = (options + [name]).sorted() }
        host.fields[index].kind = .pick(options)
        host.fields[index].value = name
        host.errors["identity"] = nil
        host.focus = index
        state.mode = .form(host)
    }

    static func insert(_ form: inout Form, _ ch: Character) {
        let limit = form.fields[form.focus].kind == .lines ? SSHOption.maxLength * 16 : Validation.maxFieldLength
        guard form.fields[form.focus].value.utf8.count < limit else { return }
        form.fields[form.focus].value.append(ch)
        form.fields[form.focus].cleared = false
        form.errors[form.fields[form.focus].key] = nil
        form.pickCursor = 0
    }

    static func cycle(_ form: inout Form, forward: Bool) {
        let field = form.fields[form.focus]
        switch field.kind {
        case .toggle:
            form.fields[form.focus].value = field.isOn ? "no" : "yes"
        case .choice(let options):
            let index = options.firstIndex(of: field.value) ?? 0
            form.fields[form.focus].value = options[(index + (forward ? 1 : options.count - 1)) % options.count]
        case .text, .secret, .lines, .pick:
            break
        }
    }

    static func submit(_ state: inout UIState, _ original: Form) -> [Effect] {
        var form = original
        form.errors = [:]
        let catalog = state.catalog
        var effect: Effect?
        var errors = FormErrors()
        switch form.kind {
        case .host(let editing):
            switch Forms.submitHost(form, original: editing.flatMap(catalog.host), catalog: catalog) {
            case .success(let (host, path)):
                effect = .saveHost(host, groupPath: path, password: Forms.passwordChange(form))
                state.wantedHostID = host.id
            case .failure(let e): errors = e
            }
        case .group(let editing):
            switch Forms.submitGroup(form, original: editing.flatMap { catalog.tree.groups[$0] }, catalog: catalog) {
            case .success(let (group, path)): effect = .saveGroup(group, parentPath: path)
            case .failure(let e): errors = e
            }
        case .forward(let hostID, let editing):
            let rule = editing.flatMap { id in catalog.rulesByHost[hostID]?.first { $0.id == id } }
            switch Forms.submitForward(form, original: rule, hostID: hostID) {
            case .success(let rule): effect = .saveForward(rule)
            case .failure(let e): errors = e
            }
        case .identity(let editing):
            switch Forms.submitIdentity(
                form, original: editing.flatMap { id in catalog.identities.first { $0.id == id } },
                catalog: catalog)
            {
            case .success(let identity): effect = .saveIdentity(identity)
            case .failure(let e): errors = e
            }
        case .copyIdentity(let identityID):
            switch Forms.submitCopyIdentity(form, catalog: catalog) {
            case .success(let host):
                // Not a save: the form closes and the login runs like Enter's, in the host list, where Esc cancels it.
                state.modeAfterForm = nil
                state.mode = .browse
                guard Reducer.beginAttempt(&state, host) else { return [] }
                let name = catalog.identities.first { $0.id == identityID }?.name ?? "the identity"
                state.notice = Notice("installing \(name) on \(host.name)... (Esc cancels)")
                return [.copyID(host.id, identity: identityID)]
            case .failure(let e): errors = e
            }
        }
        if let effect {
            form.pending = true
            state.mode = .form(form)
            return [effect]
        }
        form.errors = errors.byField
        // Show the first problem's field so the user lands where the fix is.
        if let first = form.fields.firstIndex(where: { errors[$0.key] != nil }) {
            form.focus = first
        } else if let other = errors.byField.first(where: { key, _ in !form.fields.contains { $0.key == key } }) {
            form.errors[""] = other.value
        }
        state.mode = .form(form)
        return []
    }
}
