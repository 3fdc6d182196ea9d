// DetailsView: the selected host — address, aliases, auth and where its credential comes from, identity, jump chain,
// pinned host key, its forward rules with their state, and its ssh options with where each comes from.
import FoundationEssentials
import ShelfCore

enum DetailsView {
    static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        guard rect.height > 0 else { return }
        guard let host = state.selectedHost else {
            canvas.write("Details", row: rect.row, column: rect.column + 1, style: .dim)
            return
        }
        let catalog = state.catalog
        // User and port a `Host` pattern gives, as `sshelf show` says them.
        let applied = OptionDefaults.applied(catalog.optionDefaults, to: host)
        let fromPatterns = applied.from.map { "\($0.field) from Host \($0.pattern)" }.joined(separator: ", ")
        var lines: [(String, String, CellStyle)] = [
            ("address", applied.host.destination + (fromPatterns.isEmpty ? "" : "  (\(fromPatterns))"), .plain)
        ]
        if let row = state.selectedRow, catalog.sharesName(row) {
            let others = catalog.rowsSharingName(with: row).count - 1
            lines.append(
                (
                    "name",
                    "shared with \(others) other host\(others == 1 ? "" : "s"): commands take "
                        + catalog.reference(row), CellStyle(color: .orange)
                ))
        }
        if !host.aliases.isEmpty { lines.append(("aliases", host.aliases.joined(separator: ", "), .plain)) }
        lines += [
            (
                "group", catalog.tree.path(of: host.groupID).isEmpty ? "(none)" : catalog.tree.path(of: host.groupID),
                .plain
            )
        ]
        if !host.tags.isEmpty { lines.append(("tags", host.tags.joined(separator: ", "), .plain)) }
        let (credential, credentialStyle) = credentialText(host, catalog: catalog)
        lines.append(("auth", credential, credentialStyle))
        if let identityID = host.identityID {
            if let identity = catalog.identities.first(where: { $0.id == identityID }) {
                let (place, style) = keyPlace(identity, catalog: catalog)
                lines.append(("identity", "\(identity.name) (\(identity.keyType.rawValue)), \(place)", style))
            } else {
                lines.append(("identity", "(missing identity)", .error))
            }
        }
        if !host.jumpHostIDs.isEmpty || !host.unresolvedJump.isEmpty {
            let arrow = state.symbols == .unicode ? " → " : " -> "
            let chain = host.jumpHostIDs.map { catalog.host($0)?.name ?? "(missing)" } + [host.name]
            lines.append(
                (
                    "jump",
                    host.jumpHostIDs.isEmpty
                        ? "\(host.unresolvedJump) (not a known host)"
                        : chain.joined(separator: arrow), .plain
                ))
        }
        if let key = host.pinnedHostKey {
            lines.append(("host key", "\(key.type) \(Fingerprint.of(key) ?? "(unreadable key)")", .plain))
        } else {
            lines.append(("host key", "not pinned; asked on first connect", .dim))
        }
        if let certificate = catalog.hostCertificates[host.id] {
            lines.append(("cert", "key vouched for by " + certificate, .plain))
        }
        lines.append(("last", host.lastConnectedAt.map { RelativeTime.words($0, now: state.now) } ?? "never", .dim))
        if let kex = catalog.keyExchanges[host.id] {
            lines.append(
                ("kex", KeyExchange.describe(kex), KeyExchange.isPostQuantum(kex) ? .plain : CellStyle(color: .orange)))
        }
        if PostQuantumSetting.required(host, groups: catalog.tree.groups) {
            // Enter hands such a host to OpenSSH's ssh (post-quantum key exchange only), saying why.
            lines.append(("pq", "required: sessions go through OpenSSH", .plain))
        }
        // A count here, where a short pane still shows it; each option with its origin comes after the rules.
        let options = HostOptionSources.lines(
            host: host, defaults: catalog.optionDefaults, refused: state.refusedOptions)
        if !options.isEmpty {
            let unapplied = options.filter { $0.note != nil && $0.note != .earlierValueWins }.count
            lines.append(
                (
                    "options", "\(options.count)" + (unapplied == 0 ? "" : ", \(unapplied) not applied"),
                    unapplied == 0 ? .plain : CellStyle(color: .orange)
                ))
        }
        let labelWidth = 10
        // A value longer than the pane goes on over up to three lines (a fingerprint, an auth source) rather than
        // being cut; only what still does not fit ends in an ellipsis.
        // Continuation lines start under the label (indented), so a 50-character fingerprint fits at 80 columns.
        let valueWidth = rect.width - labelWidth - 2
        let onWidth = rect.width - 4
        // With the forwards pane focused the rules and their state must show: a short pane drops the host lines
        // (counted as the rows they take once wrapped, a key file's path on a line of its own included).
        let hostRows = lines.reduce(0) { $0 + wrap($1.1, width: valueWidth, lines: 3, continuation: onWidth).count }
        if state.focus == .forwards, 2 + hostRows + 2 * state.selectedRules.count > rect.height { lines = [] }
        let titleWidth = rect.width - 2
        canvas.write(
            host.name, row: rect.row, column: rect.column + 1, width: titleWidth, style: .bold,
            ellipsis: state.symbols.ellipsis)
        var y = rect.row + 1
        for (label, value, style) in lines where y < rect.row + rect.height {
            canvas.write(label, row: y, column: rect.column + 1, style: .dim)
            let parts = wrap(value, width: valueWidth, lines: 3, continuation: onWidth)
            for (n, part) in parts.enumerated() where y < rect.row + rect.height {
                let column = n == 0 ? rect.column + 1 + labelWidth : rect.column + 3
                canvas.write(
                    part, row: y, column: column, width: n == 0 ? valueWidth : onWidth, style: style,
                    ellipsis: state.symbols.ellipsis)
                y += 1
            }
        }
        let rules = state.selectedRules
        guard y < rect.row + rect.height else { return }
        let focused = state.focus == .forwards && state.mode == .browse
        canvas.write(
            rules.isEmpty ? "no forward rules (f adds one)" : "forwards (\(rules.count))", row: y,
            column: rect.column + 1, style: focused ? .bold : .dim)
        y += 1
        for (i, rule) in rules.enumerated() where y < rect.row + rect.height {
            let mark = rule.enabled ? (state.symbols == .unicode ? "●" : "*") : (state.symbols == .unicode ? "○" : "o")
            var text = "\(mark) -\(rule.spec.flag) \(rule.spec)"
            text += rule.enabled ? (rule.autostart ? "  autostart" : "") : "  disabled"
            if rule.sessions > 1 { text += "  \(rule.sessions) sessions" }
            if !rule.name.isEmpty { text += "  \(rule.name)" }
            canvas.write(
                text, row: y, column: rect.column + 1, width: rect.width - 2,
                style: rule.enabled ? .plain : .dim, ellipsis: state.symbols.ellipsis)
            if focused && i == state.forwardCursor {
                canvas.restyle(row: y, column: rect.column, width: rect.width) { $0.reverse = true }
            }
            y += 1
            guard y < rect.row + rect.height else { break }
            let (words, style) = liveText(state.forwardStates[rule.id], now: state.now)
            // A failure reason must be readable: up to three lines, broken at spaces.
            for (n, part) in wrap(words, width: rect.width - 4, lines: 3).enumerated() where y < rect.row + rect.height
            {
                canvas.write(
                    (n == 0 ? "" : "  ") + part, row: y, column: rect.column + 3, width: rect.width - 4,
                    style: style, ellipsis: state.symbols.ellipsis)
                y += 1
            }
        }
        // The options come after the rules, so a long list never pushes a rule's live state off the pane.
        guard !options.isEmpty, y < rect.row + rect.height else { return }
        canvas.write("options (\(options.count))", row: y, column: rect.column + 1, style: .dim)
        y += 1
        for option in options where y < rect.row + rect.height {
            let (origin, style) = optionText(option)
            let end = canvas.write(
                option.text, row: y, column: rect.column + 3, width: rect.width - 4,
                style: option.note == nil ? .plain : style, ellipsis: state.symbols.ellipsis)
            if end + 2 < rect.column + rect.width - 1 {
                canvas.write(
                    origin, row: y, column: end + 2, width: rect.column + rect.width - 1 - (end + 2),
                    style: style, ellipsis: state.symbols.ellipsis)
            }
            y += 1
        }
    }

    /// Where an option comes from, and why it does not apply when it does not: "from Host prod-*", "sshelf's
    /// defaults (Host *); not applied: OpenSSH only".
    static func optionText(_ option: HostOptionLine) -> (String, CellStyle) {
        let words: String
        switch option.origin {
        case .host: words = "this host"
        case .pattern("*"): words = "sshelf's defaults (Host *)"
        case .pattern(let pattern): words = "from Host \(pattern)"
        }
        switch option.note {
        case nil: return (words, .dim)
        case .earlierValueWins: return (words + "; an earlier value wins", .dim)
        // Short here (the pane is narrow); `sshelf show` adds how to run it with OpenSSH.
        case .openSSHOnly: return (words + "; not applied: OpenSSH only", CellStyle(color: .orange))
        case .unreadable: return (words + "; not applied: sshelf cannot read the value", CellStyle(color: .orange))
        case .refused: return (words + "; ssh refuses it", CellStyle(color: .orange))
        }
    }

    /// `text` in lines of at most `width` characters (continuation lines `continuation` wide, 2 narrower than
    /// `width` unless given), broken at spaces (else after an "@"); the last line keeps the rest (the canvas ends it
    /// with an ellipsis).
    static func wrap(_ text: String, width: Int, lines: Int, continuation: Int? = nil) -> [String] {
        var out: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            let room = out.isEmpty ? width : (continuation ?? width - 2)
            if out.count == lines - 1 || CharWidth.of(String(rest)) <= room || room <= 0 {
                out.append(String(rest))
                break
            }
            // Measured in cells: a double-width character counts twice.
            let head = rest.prefix(CharWidth.prefix(String(rest), fitting: room + 1).count)
            // Prefer a break after a comma or colon (so "340.0 KB" stays together), unless it wastes half the line.
            let afterPunctuation = head.indices.last {
                head[$0] == " " && $0 > head.startIndex
                    && [",", ":", ";"].contains(head[head.index(before: $0)])
            }
            .flatMap { head.distance(from: head.startIndex, to: $0) * 2 >= room ? $0 : nil }
            // A word with no space (an address: user@host:port) breaks after its "@", not inside a number.
            let afterAt = head.dropLast().lastIndex(of: "@").map { head.index(after: $0) }
            let cut =
                afterPunctuation ?? head.lastIndex(of: " ") ?? afterAt
                ?? rest.index(rest.startIndex, offsetBy: max(1, CharWidth.prefix(String(rest), fitting: room).count))
            out.append(String(rest[..<cut]))
            rest = rest[cut...].drop { $0 == " " }
        }
        return out
    }

    /// The state line under a rule: what runs it and how it is doing, or "not running".
    static func liveText(_ live: ForwardLive?, now: Date) -> (String, CellStyle) {
        guard let live else { return ("not running", .dim) }
        switch live.phase {
        case .starting: return (live.words(now: now), CellStyle(color: .blue))
        case .active: return (live.words(now: now), CellStyle(color: .green))
        case .retrying: return (live.words(now: now), CellStyle(color: .orange))
        case .failed: return (live.words(now: now), .error)
        }
    }

    /// Where an identity's private key lives: in the vault (or not synced to this device), or in a key file.
    static func keyPlace(_ identity: Identity, catalog: Catalog) -> (String, CellStyle) {
        if let ref = identity.privateKeyRef {
            if let present = catalog.secretsPresent, !present.contains(ref.rawValue) {
                return ("key not synced to this device", CellStyle(color: .orange))
            }
            return ("key in the vault", .plain)
        }
        if !identity.keyFile.isEmpty { return ("key file \(identity.keyFile)", .plain) }
        return ("no private key here (the agent's)", .dim)
    }

    /// The auth method and where its credential comes from, in the user's words.
    static func credentialText(_ host: ShelfCore.Host, catalog: Catalog) -> (String, CellStyle) {
        func source(_ ref: ReferenceKey?) -> (String, CellStyle) {
            guard let ref else { return ("asked when connecting", .plain) }
            if let present = catalog.secretsPresent, !present.contains(ref.rawValue) {
                return ("not synced to this device", CellStyle(color: .orange))
            }
            return ("vault", .plain)
        }
        switch host.authMethod {
        case .agent:
            return ("agent: keys from ssh-agent", .plain)
        case .password:
            let (where_, style) = source(host.passwordRef)
            return ("password: \(where_)", style)
        case .keyboardInteractive:
            return ("keyboard-interactive: asked when connecting", .plain)
        case .publickey:
            let identity = host.identityID.flatMap { id in catalog.identities.first { $0.id == id } }
            guard let identity else { return ("publickey: agent and default keys", .plain) }
            if identity.privateKeyRef != nil {
                let (where_, style) = source(identity.privateKeyRef)
                return ("publickey: key from \(where_)", style)
            }
            return ("publickey: key file \(identity.keyFile.isEmpty ? "(none)" : identity.keyFile)", .plain)
        case .auto:
            if host.passwordRef != nil {
                let (where_, style) = source(host.passwordRef)
                return ("auto: agent, keys, then password from \(where_)", style)
            }
            return ("auto: agent, keys, then ask", .plain)
        case .other(let raw):
            return ("\(raw) (unknown method)", .error)
        }
    }
}
