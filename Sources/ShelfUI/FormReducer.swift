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
            case .formNext: form.focus = (form.focus + 1) % form.fields.count
            case .formPrevious: form.focus = (form.focus + form.fields.count - 1) % form.fields.count
            case .formCycle, .formCycleBack:
                if field.kind == .text {
                    if key == .char(" ") { insert(&form, " ") }
                } else {
                    cycle(&form, forward: binding.command == .formCycle)
                }
            case .formErase:
                if field.kind == .text, !field.value.isEmpty { form.fields[form.focus].value.removeLast() }
            case .formClear:
                if field.kind == .text { form.fields[form.focus].value = "" }
            case .formCancel:
                Reducer.closeForm(&state)
                state.notice = Notice("cancelled; nothing saved")
                return []
            case .formSave:
                return submit(&state, form)
            default: break
            }
            state.mode = .form(form)
            return []
        }
        if case .char(let ch) = key, form.fields[form.focus].kind == .text {
            insert(&form, ch)
        }
        state.mode = .form(form)
        return []
    }

    static func insert(_ form: inout Form, _ ch: Character) {
        guard form.fields[form.focus].value.utf8.count < Validation.maxFieldLength else { return }
        form.fields[form.focus].value.append(ch)
        form.errors[form.fields[form.focus].key] = nil
    }

    static func cycle(_ form: inout Form, forward: Bool) {
        let field = form.fields[form.focus]
        switch field.kind {
        case .toggle:
            form.fields[form.focus].value = field.isOn ? "no" : "yes"
        case .choice(let options):
            let index = options.firstIndex(of: field.value) ?? 0
            form.fields[form.focus].value = options[(index + (forward ? 1 : options.count - 1)) % options.count]
        case .text:
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
                effect = .saveHost(host, groupPath: path)
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
            switch Forms.submitIdentity(form, original: editing.flatMap { id in catalog.identities.first { $0.id == id } },
                                        catalog: catalog) {
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
