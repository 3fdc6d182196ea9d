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

    public var isOn: Bool { value == "yes" }
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

    public init(kind: FormKind, title: String, fields: [FormField]) {
        self.kind = kind
        self.title = title
        self.fields = fields
    }

    public func value(_ key: String) -> String {
        fields.first { $0.key == key }?.value.trimmingSpaces() ?? ""
    }

    mutating func set(_ key: String, _ value: String) {
        if let i = fields.firstIndex(where: { $0.key == key }) { fields[i].value = value }
    }
}
