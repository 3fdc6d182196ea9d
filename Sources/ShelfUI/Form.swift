// Form: the add/edit dialogs for hosts, groups, forward rules and identities — fields as text, a focused
// field, and the inline messages from `Validation` (or from parsing) keyed by field.
import FoundationEssentials
import ShelfCore

public struct FormField: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case text
        /// One of fixed words; Space or ←/→ cycles.
        case choice([String])
        /// On/off; Space toggles (value "yes"/"no").
        case toggle
        /// A secret typed to replace the stored one, never drawn (`stored`: the record has one now). Empty keeps
        /// what is stored; Ctrl-U on an empty field removes it (`cleared`).
        case secret(stored: Bool)
        /// Several lines (one ssh option each): Enter starts a new line.
        case lines
        /// A name picked from `options`: typing filters them, Ctrl-N/Ctrl-P move, Enter picks.
        case pick([String])
    }
    /// The field name `Validation` uses (`hostname`, `port`), so its messages land on the right line.
    public var key: String
    public var label: String
    public var value: String
    public var kind: Kind
    public var placeholder: String

    public init(_ key: String, _ label: String, _ value: String = "", kind: Kind = .text, placeholder: String = "") {
        self.key = key
        self.label = label
        self.value = value
        self.kind = kind
        self.placeholder = placeholder
    }

    /// For a secret: the stored one goes on save.
    public var cleared = false

    public var isOn: Bool { value == "yes" }

    /// Whether keys type into the field (rather than choosing or toggling).
    public var isTyped: Bool {
        switch kind {
        case .text, .secret, .lines, .pick: true
        case .choice, .toggle: false
        }
    }

    /// A pick field's options that match what is typed (all of them when nothing is), best first: those starting
    /// with it, then those containing it, ignoring case.
    public var pickMatches: [String] {
        guard case .pick(let options) = kind else { return [] }
        let typed = value.trimmingSpaces().lowercased()
        if typed.isEmpty { return options }
        let starting = options.filter { $0.lowercased().hasPrefix(typed) }
        return starting + options.filter { !$0.lowercased().hasPrefix(typed) && $0.lowercased().contains(typed) }
    }
}

public enum FormKind: Sendable, Equatable {
    case host(editing: UUID?)
    case group(editing: UUID?)
    case forward(hostID: UUID, editing: UUID?)
    case identity(editing: UUID?)
    /// Which host to install an identity's public key on (copy-id from the identity list).
    case copyIdentity(identityID: UUID)
}

public struct Form: Sendable, Equatable {
    public var kind: FormKind
    public var title: String
    public var fields: [FormField]
    public var focus = 0
    /// Messages by field key; "" holds a message for the whole form (a failed save).
    public var errors: [String: String] = [:]
    /// Waiting for the save effect's result; keys are ignored meanwhile so nothing is lost.
    public var pending = false
    /// The id a new record gets, fixed when the form opens so a retried save cannot create a second record.
    public var newID = UUID()
    /// The highlighted row of the focused pick field's matches.
    public var pickCursor = 0

    public init(kind: FormKind, title: String, fields: [FormField]) {
        self.kind = kind
        self.title = title
        self.fields = fields
    }

    public func value(_ key: String) -> String {
        fields.first { $0.key == key }?.value.trimmingSpaces() ?? ""
    }

    public func field(_ key: String) -> FormField? { fields.first { $0.key == key } }

    mutating func set(_ key: String, _ value: String) {
        if let i = fields.firstIndex(where: { $0.key == key }) { fields[i].value = value }
    }
}
