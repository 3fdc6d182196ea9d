// ConflictWords: a merge conflict's two values as a person reads them, and as a choice to apply. A side is stored
// as the field group's compact JSON (`"bob"`, `{"hostname":…,"port":…,"pinnedHostKey":…}`, `{"added":"db"}`);
// here it becomes `"bob"`, `hostname db.example, port 2222, pinned key ssh-ed25519 SHA256:…` or `added "db"`, with
// anything long (keys, pinned host keys) shortened to a fingerprint. `sync conflicts --json` keeps the full text.
import FoundationEssentials

public enum ConflictWords {
    /// Values longer than this are shortened to a fingerprint.
    public static let longValue = 48

    /// One side in words.
    public static func side(_ text: String) -> String {
        guard let value = parse(text) else { return text }
        if case .object(let object) = value, object.count == 1, let (key, item) = object.first,
            key == "added" || key == "removed",
            case .string(let element) = item
        {
            return "\(key) \(quoted(element))"
        }
        return words(value, top: true)
    }

    static func parse(_ text: String) -> JSONValue? {
        guard let first = text.first,
            first == "{" || first == "[" || first == "\"" || first == "-" || first.isNumber
                || text == "null" || text == "true" || text == "false"
        else { return nil }
        return try? JSONValue.parse(Array(text.utf8))
    }

    static func words(_ value: JSONValue, top: Bool = false) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .null: return "(none)"
        case .array(let items): return items.isEmpty ? "(none)" : items.map { words($0) }.joined(separator: ", ")
        case .object(let object):
            guard !object.isEmpty else { return "(none)" }
            if object.count == 2, case .string(let type)? = object["type"], case .string(let key)? = object["key"],
                let fingerprint = IdentityKeys.fingerprint(of: "\(type) \(key)")
            {
                return "\(type) \(fingerprint)"  // a pinned host key
            }
            return object.keys.sorted().map { "\(label($0)) \(words(object[$0] ?? .null))" }.joined(separator: ", ")
        default:
            return String(decoding: value.jsonBytes, as: UTF8.self)
        }
    }

    static func label(_ key: String) -> String {
        switch key {
        case "pinnedHostKey": "pinned key"
        case "hostname": "host name"
        case "identityID": "identity"
        case "passwordRef": "password"
        case "authMethod": "auth"
        case "jumpHostIDs": "jump hosts"
        default: key
        }
    }

    /// A string as shown: quoted, or shortened to a fingerprint when long (a public key line: its type and SHA256).
    public static func quoted(_ text: String) -> String {
        guard text.count > longValue else { return "\"\(text)\"" }
        let type = text.prefix { $0 != " " }
        if type.hasPrefix("ssh-") || type.hasPrefix("ecdsa-") || type.hasPrefix("sk-"),
            let fingerprint = IdentityKeys.fingerprint(of: text)
        {
            return "\(type) \(fingerprint)"
        }
        let digest = Digest.sha256(Array(text.utf8)).prefix(6).map { TextFormat.hex($0) }.joined()
        return "\"\(text.prefix(24))…\" (\(text.count) characters, sha256 \(digest))"
    }

    /// Why a conflict happened, in words.
    public static func why(_ raw: String) -> String {
        switch raw {
        case "concurrent": "changed on two devices, neither knowing of the other's change"
        case "deleted": "changed on one device while another deleted the record (deletion is final)"
        case "revoked": "written by a revoked device after its revocation; undone"
        default: raw
        }
    }

    /// The record `body` with group `group` set to a conflict side (`text` as stored), or nil when that side is not a
    /// value one can take (a deletion, an undone record).
    public static func taking(
        _ text: String, group: String, kind: RecordKind, in body: [String: JSONValue]
    ) -> [String: JSONValue]? {
        guard let value = parse(text) else { return nil }
        var out = body
        if FieldGroups.setNames(for: kind).contains(group), case .object(let object) = value, object.count == 1,
            let (action, item) = object.first, case .string(let element) = item,
            action == "added" || action == "removed"
        {
            var values = FieldGroups.values(of: group, in: body).filter { $0 != element }
            if action == "added" { values.append(element) }
            out[group] = .array(values.map(JSONValue.string))
            return out
        }
        guard let fields = FieldGroups.groups(for: kind).first(where: { $0.name == group })?.fields else { return nil }
        if fields.count == 1 {
            out[fields[0]] = value
            return out
        }
        guard case .object(let object) = value else { return nil }
        for field in fields { out[field] = object[field] }
        return out
    }
}
