// Forms: building each form from a record, and turning a submitted form back into a record or field messages.
// The messages come from `Validation`, plus what only the form can know (a port that is not a number, an
// identity or jump host name that does not exist).
import FoundationEssentials
import ShelfCore

public enum Forms {
    // MARK: host

    public static func host(_ host: ShelfCore.Host?, catalog: Catalog, defaultGroup: UUID?) -> Form {
        let h = host ?? ShelfCore.Host(groupID: defaultGroup)
        let identity = h.identityID.flatMap { id in catalog.identities.first { $0.id == id }?.name } ?? ""
        let jumps = h.jumpHostIDs.map { catalog.host($0)?.name ?? "" }.filter { !$0.isEmpty }
        let jumpText = jumps.isEmpty ? h.unresolvedJump : jumps.joined(separator: ",")
        return Form(
            kind: .host(editing: host?.id), title: host == nil ? "Add host" : "Edit host \(h.name)",
            fields: [
                FormField("name", "Name", h.name, placeholder: "the alias you type, e.g. prod-db"),
                FormField("hostname", "Hostname", h.hostname, placeholder: "DNS name, IPv4 or IPv6"),
                FormField("port", "Port", String(h.port)),
                FormField("user", "User", h.user, placeholder: "empty: ssh's default"),
                FormField(
                    "group", "Group", catalog.tree.path(of: h.groupID),
                    placeholder: "e.g. prod/eu; "
                        + "created if missing"),
                FormField("tags", "Tags", h.tags.joined(separator: ","), placeholder: "comma-separated"),
                FormField("auth", "Auth", h.authMethod.rawValue, kind: .choice(AuthMethod.knownCases.map(\.rawValue))),
                FormField("password", "Password", kind: .secret(stored: h.passwordRef != nil)),
                FormField(
                    "identity", "Identity", identity, kind: .pick(catalog.identities.map(\.name).sorted()),
                    placeholder: "type to pick; empty for none"),
                FormField("jump", "Jump via", jumpText, placeholder: "host names, outermost first"),
                FormField(
                    "aliases", "Aliases", h.aliases.joined(separator: ","),
                    placeholder: "other names it answers to, comma-separated"),
                FormField(
                    "options", "Options", h.options.joined(separator: "\n"), kind: .lines,
                    placeholder: "ssh_config lines, one per line, e.g. ServerAliveInterval 30"),
                FormField("notes", "Notes", h.notes),
                FormField(
                    "pq", "Post-quantum", h.pq.rawValue, kind: .choice(PostQuantumSetting.knownCases.map(\.rawValue))),
                recordField(h.record),
            ])
    }

    /// What the form's password field asks of the vault: keep, store the typed one, or remove the stored one.
    public static func passwordChange(_ form: Form) -> PasswordChange {
        guard let field = form.field("password") else { return .keep }
        if !field.value.isEmpty { return .set(field.value) }
        return field.cleared ? .remove : .keep
    }

    /// The option lines typed in the form, as a host keeps them (blank lines dropped, each trimmed).
    static func optionLines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }

    /// The host the form describes, or the messages to show; `groupPath` is resolved (and created) on save.
    public static func submitHost(_ form: Form, original: ShelfCore.Host?, catalog: Catalog)
        -> Result<(host: ShelfCore.Host, groupPath: String), FormErrors>
    {
        var errors = FormErrors()
        var host = original ?? ShelfCore.Host(id: form.newID)
        host.name = form.value("name")
        host.hostname = form.value("hostname")
        host.user = form.value("user")
        host.notes = form.value("notes")
        if let port = Int(form.value("port")) {
            host.port = port
        } else {
            errors["port"] = "port '\(form.value("port"))' is not a number"
        }
        host.tags = form.value("tags").split(separator: ",").map { $0.trimmingSpaces() }
            .filter { !$0.isEmpty }
        // An alias holds no whitespace (ssh would read two names): a space separates as a comma does.
        host.aliases = form.value("aliases").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        host.authMethod = AuthMethod(rawValue: form.value("auth"))
        // require: every session through OpenSSH's ssh with post-quantum key exchange only (sshelf edit --pq).
        if let pq = form.field("pq") { host.pq = PostQuantumSetting(rawValue: pq.value) }
        // Whether sessions are recorded (sshelf edit --record): `group` clears the host's own setting.
        if let record = form.field("record") { host.record = RecordSetting(rawValue: record.value) }
        // Checked by `Validation` below, the same rules `import` keeps a host's options by.
        host.options = optionLines(form.value("options"))
        let identityName = form.value("identity")
        if identityName.isEmpty {
            host.identityID = nil
        } else if let identity = catalog.identities.first(where: { $0.name == identityName }) {
            host.identityID = identity.id
        } else {
            errors["identity"] = "no identity named '\(identityName)' (Ctrl-A adds one)"
        }
        let jumpNames = form.value("jump").split(separator: ",").map { $0.trimmingSpaces() }
            .filter { !$0.isEmpty }
        var jumpIDs: [UUID] = []
        for name in jumpNames {
            let found = catalog.rows(named: name)
            if found.count == 1 {
                jumpIDs.append(catalog.table.id(found[0]))
            } else {
                errors["jump"] = found.isEmpty ? "no host named '\(name)'" : "'\(name)' names \(found.count) hosts"
            }
        }
        host.jumpHostIDs = jumpIDs
        host.unresolvedJump = ""
        var groupPath = ""
        do {
            let names = try GroupTree.parsePath(form.value("group"))
            groupPath = names.joined(separator: "/")
            for name in names {
                if let problem = Validation.nameProblem(name, what: "group name") { errors["group"] = problem }
            }
        } catch {
            errors["group"] = error.message
        }
        if let misplaced = Validation.misplacedInHostname(host.hostname) {
            errors["hostname"] = "holds \(misplaced): the user goes in User, the port in Port"
        }
        for problem in Validation.problems(host) where errors[problem.field] == nil {
            errors[problem.field] = problem.message
        }
        if errors["jump"] == nil, !jumpIDs.isEmpty {
            // Only the hosts along the chain matter for a loop: follow the jumps from this host.
            var byID: [UUID: ShelfCore.Host] = [host.id: host]
            var next = jumpIDs
            while let id = next.popLast() {
                guard byID[id] == nil, let jump = catalog.host(id) else { continue }
                byID[id] = jump
                next += jump.jumpHostIDs
            }
            if let cycle = ModelCheck.jumpCycle(from: host.id, in: byID) {
                errors["jump"] =
                    "jump chain would loop: " + cycle.map { byID[$0]?.name ?? "?" }.joined(separator: " -> ")
            }
        }
        if !errors.isEmpty { return .failure(errors) }
        host.updatedAt = Date()
        return .success((host, groupPath))
    }

    // MARK: group

    public static func group(_ group: HostGroup?, catalog: Catalog, parent: UUID?) -> Form {
        let parentPath = catalog.tree.path(of: group?.parentID ?? parent)
        return Form(
            kind: .group(editing: group?.id), title: group == nil ? "Add group" : "Edit group \(group!.name)",
            fields: [
                FormField("name", "Name", group?.name ?? "", placeholder: "one level, no '/'"),
                FormField("parent", "Inside", parentPath, placeholder: "parent group path, empty for top level"),
                FormField("notes", "Notes", group?.notes ?? ""),
                recordField(group?.record),
            ])
    }

    /// Whether sessions are recorded: the record's own setting, or `group` (as its group, or its parent group, says).
    static func recordField(_ setting: RecordSetting?) -> FormField {
        FormField("record", "Record", setting?.rawValue ?? "group", kind: .choice(RecordSetting.words))
    }

    public static func submitGroup(_ form: Form, original: HostGroup?, catalog: Catalog)
        -> Result<(group: HostGroup, parentPath: String), FormErrors>
    {
        var errors = FormErrors()
        var group = original ?? HostGroup(id: form.newID)
        group.name = form.value("name")
        group.notes = form.value("notes")
        if let record = form.field("record") { group.record = RecordSetting(rawValue: record.value) }
        var parentPath = ""
        do { parentPath = try GroupTree.parsePath(form.value("parent")).joined(separator: "/") } catch {
            errors["parent"] = error.message
        }
        for problem in Validation.problems(group) where errors[problem.field] == nil {
            errors[problem.field] = problem.message
        }
        if let original, let parent = catalog.tree.find(parentPath),
            catalog.tree.subtree(of: original.id).contains(parent.id)
        {
            errors["parent"] = "cannot move '\(catalog.tree.path(of: original.id))' inside itself"
        }
        let siblingParent = parentPath.isEmpty ? nil : catalog.tree.find(parentPath)?.id
        if errors["name"] == nil, parentPath.isEmpty || siblingParent != nil,
            catalog.tree.children(of: siblingParent).contains(where: { $0.name == group.name && $0.id != group.id })
        {
            errors["name"] = "a group '\(group.name)' already exists there"
        }
        if !errors.isEmpty { return .failure(errors) }
        group.updatedAt = Date()
        return .success((group, parentPath))
    }

    // MARK: forward rule

    public static func forward(_ rule: PortForwardRule?, hostID: UUID, hostName: String) -> Form {
        let r = rule ?? PortForwardRule(hostID: hostID)
        return Form(
            kind: .forward(hostID: hostID, editing: rule?.id),
            title: rule == nil ? "Add forward to \(hostName)" : "Edit forward of \(hostName)",
            fields: [
                FormField("kind", "Kind", r.kind.rawValue, kind: .choice(ForwardKind.knownCases.map(\.rawValue))),
                FormField("bindAddress", "Bind address", r.bindAddress),
                FormField("bindPort", "Bind port", r.bindPort == 0 ? "" : String(r.bindPort)),
                FormField("targetHost", "Target host", r.targetHost, placeholder: "empty for dynamic"),
                FormField("targetPort", "Target port", r.targetPort == 0 ? "" : String(r.targetPort)),
                FormField("name", "Name", r.name),
                FormField("sessions", "Sessions", String(r.sessions), placeholder: "SSH sessions to spread it over"),
                FormField("autostart", "Autostart", r.autostart ? "yes" : "no", kind: .toggle),
                FormField("enabled", "Enabled", r.enabled ? "yes" : "no", kind: .toggle),
                FormField("publicBind", "Public bind", "no", kind: .toggle),
            ])
    }

    public static func submitForward(_ form: Form, original: PortForwardRule?, hostID: UUID)
        -> Result<PortForwardRule, FormErrors>
    {
        var errors = FormErrors()
        var rule = original ?? PortForwardRule(id: form.newID, hostID: hostID)
        rule.kind = ForwardKind(rawValue: form.value("kind"))
        rule.bindAddress = form.value("bindAddress")
        rule.name = form.value("name")
        rule.autostart = form.value("autostart") == "yes"
        rule.enabled = form.value("enabled") == "yes"
        func port(_ key: String, _ what: String) -> Int {
            let text = form.value(key)
            guard let value = Int(text) else {
                errors[key] = text.isEmpty ? "\(what) is empty" : "\(what) '\(text)' is not a number"
                return 0
            }
            return value
        }
        // A unix socket's path (a `/`) has no port: the port field is left empty (ForwardSpec).
        let bindsSocket = rule.kind == .remote && ForwardSpec.isSocketPath(rule.bindAddress)
        rule.bindPort = bindsSocket && form.value("bindPort").isEmpty ? 0 : port("bindPort", "bind port")
        rule.sessions = form.value("sessions").isEmpty ? 1 : port("sessions", "sessions")
        if rule.kind == .dynamic {
            rule.targetHost = ""
            rule.targetPort = 0
        } else {
            rule.targetHost = form.value("targetHost")
            let toSocket = ForwardSpec.isSocketPath(rule.targetHost) && form.value("targetPort").isEmpty
            rule.targetPort = toSocket ? 0 : port("targetPort", "target port")
        }
        for problem in Validation.problems(rule) where errors[problem.field] == nil {
            errors[problem.field] = problem.message
        }
        if rule.listensOnNetwork, form.value("publicBind") != "yes", errors["bindAddress"] == nil {
            errors["bindAddress"] =
                "bind address \(rule.bindAddress) is not loopback: port would be reachable from the network (set "
                + "Public bind)"
        }
        if !errors.isEmpty { return .failure(errors) }
        rule.updatedAt = Date()
        return .success(rule)
    }

    // MARK: identity

    public static func identity(_ identity: Identity?) -> Form {
        let i = identity ?? Identity()
        return Form(
            kind: .identity(editing: identity?.id), title: identity == nil ? "Add identity" : "Edit identity \(i.name)",
            fields: [
                FormField("name", "Name", i.name, placeholder: "e.g. work-laptop"),
                FormField("keyType", "Key type", i.keyType.rawValue, kind: .choice(KeyType.knownCases.map(\.rawValue))),
                FormField("keyFile", "Key file", i.keyFile, placeholder: "path to the private key file"),
                FormField("publicKey", "Public key", i.publicKey, placeholder: "ssh-ed25519 AAAA... (optional)"),
                FormField("confirmEachUse", "Confirm each", i.confirmEachUse ? "yes" : "no", kind: .toggle),
                FormField(
                    "agentLifetime", "Lifetime (s)", i.agentLifetime == 0 ? "" : String(i.agentLifetime),
                    placeholder: "the sshelf agent serves it this long; empty: no limit"),
            ])
    }

    public static func submitIdentity(_ form: Form, original: Identity?, catalog: Catalog) -> Result<
        Identity, FormErrors
    > {
        var errors = FormErrors()
        var identity = original ?? Identity(id: form.newID)
        identity.name = form.value("name")
        identity.keyType = KeyType(rawValue: form.value("keyType"))
        identity.keyFile = form.value("keyFile")
        identity.publicKey = form.value("publicKey")
        identity.confirmEachUse = form.value("confirmEachUse") == "yes"
        let lifetime = form.value("agentLifetime").trimmingSpaces()
        if lifetime.isEmpty {
            identity.agentLifetime = 0
        } else if let seconds = Int(lifetime) {
            identity.agentLifetime = seconds
        } else {
            errors["agentLifetime"] = "lifetime '\(lifetime)' is not a number of seconds"
        }
        for problem in Validation.problems(identity) where errors[problem.field] == nil {
            errors[problem.field] = problem.message
        }
        if errors["name"] == nil,
            catalog.identities.contains(where: { $0.name == identity.name && $0.id != identity.id })
        {
            errors["name"] = "an identity named '\(identity.name)' already exists"
        }
        if !errors.isEmpty { return .failure(errors) }
        identity.updatedAt = Date()
        return .success(identity)
    }
}

extension Forms {
    // MARK: copy-id from the identity list

    public static func copyIdentity(_ identity: Identity) -> Form {
        Form(
            kind: .copyIdentity(identityID: identity.id), title: "Install \(identity.name) on a host (copy-id)",
            fields: [
                FormField("host", "Host", "", placeholder: "the host's name (NAME@id-prefix when names are shared)")
            ])
    }

    /// The host named in the copy-id form: its name, or NAME@id-prefix when several hosts share the name (as the
    /// CLI takes it).
    public static func submitCopyIdentity(_ form: Form, catalog: Catalog) -> Result<ShelfCore.Host, FormErrors> {
        var errors = FormErrors()
        let text = form.value("host").trimmingSpaces()
        guard !text.isEmpty else {
            errors["host"] = "type the name of the host to install the key on"
            return .failure(errors)
        }
        var rows = catalog.rows(typedName: text)
        if rows.isEmpty, let at = text.lastIndex(of: "@") {
            let prefix = text[text.index(after: at)...].lowercased()
            rows = catalog.rows(typedName: String(text[..<at])).filter {
                !prefix.isEmpty && catalog.host(at: $0).id.uuidString.lowercased().hasPrefix(prefix)
            }
        }
        switch rows.count {
        case 1: return .success(catalog.host(at: rows[0]))
        case 0: errors["host"] = "no host is named '\(text)'"
        default:
            let ids = rows.prefix(3).map {
                "\(catalog.host(at: $0).name)@\(catalog.host(at: $0).id.uuidString.prefix(8).lowercased())"
            }
            errors["host"] = "\(rows.count) hosts are named '\(text)': type one of \(ids.joined(separator: ", "))"
        }
        return .failure(errors)
    }
}

/// Field messages of a form that did not validate.
public struct FormErrors: Error, Sendable, Equatable {
    public var byField: [String: String] = [:]
    public subscript(key: String) -> String? {
        get { byField[key] }
        set { byField[key] = newValue }
    }
    public var isEmpty: Bool { byField.isEmpty }
}
