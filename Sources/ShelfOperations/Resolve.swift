// Resolve: finding the record a user named — hosts by name (or id prefix when names repeat), groups by
// slash path, identities by name, rules by id prefix or name — with errors that say what to type instead.
import Foundation
import ShelfCore
import ShelfStore

public enum Resolve {
    public static func host(_ name: String, in store: Store) throws -> ShelfCore.Host {
        let named = try store.hosts(named: name)
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            let ids = named.map { Display.shortID($0.id) }.joined(separator: ", ")
            throw ShelfError(.usage, "\(named.count) hosts are named '\(Display.safe(name))' (ids \(ids))",
                             hint: "name one by its id, e.g. sshelf show \(Display.shortID(named[0].id))")
        }
        if let byID = try hostByIDPrefix(name, in: store) { return byID }
        let close = try store.searchHosts(name).prefix(3).map(\.name)
        throw ShelfError(.notFound, "no host named '\(Display.safe(name))'",
                         hint: close.isEmpty ? "see 'sshelf list'" : "did you mean: \(close.map(Display.safe).joined(separator: ", "))?")
    }

    /// Ids are shown as 8 hex digits; accept 4 or more.
    public static func hostByIDPrefix(_ text: String, in store: Store) throws -> ShelfCore.Host? {
        let prefix = text.lowercased()
        guard prefix.count >= 4, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let matches = try store.hosts(idPrefix: prefix)
        return matches.count == 1 ? matches[0] : nil
    }

    public static func group(_ path: String, tree: GroupTree) throws -> HostGroup {
        guard let group = tree.find(path) else {
            throw ShelfError(.notFound, "no group '\(Display.safe(path))'",
                             hint: "see 'sshelf group list'; 'sshelf group add \(Display.safe(path))' creates it")
        }
        return group
    }

    public static func identity(_ name: String, in store: Store) throws -> Identity {
        let all = try store.identities()
        let named = all.filter { $0.name == name }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            throw ShelfError(.usage, "\(named.count) identities are named '\(Display.safe(name))'",
                             hint: "rename one of them first")
        }
        let prefix = name.lowercased()
        let byID = all.filter { prefix.count >= 4 && $0.id.uuidString.lowercased().hasPrefix(prefix) }
        if byID.count == 1 { return byID[0] }
        throw ShelfError(.notFound, "no identity named '\(Display.safe(name))'", hint: "see 'sshelf identity list'")
    }

    public static func forwardRule(_ text: String, in store: Store) throws -> PortForwardRule {
        let rules = try store.forwardRules()
        let prefix = text.lowercased()
        let byID = rules.filter { prefix.count >= 4 && $0.id.uuidString.lowercased().hasPrefix(prefix) }
        if byID.count == 1 { return byID[0] }
        let byName = rules.filter { !$0.name.isEmpty && $0.name == text }
        if byName.count == 1 { return byName[0] }
        if byID.count + byName.count > 1 {
            throw ShelfError(.usage, "'\(Display.safe(text))' names more than one forward rule", hint: "use more digits of the id")
        }
        throw ShelfError(.notFound, "no forward rule '\(Display.safe(text))'", hint: "see 'sshelf forward list' for ids")
    }

    public static func port(_ text: String, option: String) throws -> Int {
        guard let port = Int(text), (1...65535).contains(port), text.allSatisfy(\.isNumber) else {
            throw ShelfError(.usage, "--\(option): '\(Display.safe(text))' is not a port (1-65535)")
        }
        return port
    }

    public static func authMethod(_ text: String) throws -> AuthMethod {
        guard let method = AuthMethod.parseKnown(text) else {
            let known = AuthMethod.knownCases.map(\.rawValue).joined(separator: ", ")
            throw ShelfError(.usage, "--auth: unknown method '\(Display.safe(text))'", hint: "one of: \(known)")
        }
        return method
    }
}
