// CAPins: `sshelf trust --ca KEY --hosts PATTERN` — a CA trusted for host certificates of some names, kept in the
// store as a CA pin (CAPin) so it syncs signed like a host's pin — and the pins as the host-key check reads them.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore

public enum CAPins {
    /// What `trust --ca` did.
    public enum Change: Sendable, Equatable { case added, alreadyPinned }

    /// Pins `key` for `patterns` (once: the same CA for the same names is not added twice).
    public static func add(_ key: HostKey, patterns: String, store: Store) throws -> Change {
        if let problem = Validation.caPinPatternsProblem(patterns) {
            throw ShelfError(
                .invalid, "--hosts: \(Display.safe(problem))",
                hint: "host names or wildcards, comma-separated, e.g. '*.example.org,10.0.0.*'")
        }
        if key.type.hasSuffix(SSHCertificate.suffix) {
            throw ShelfError(.invalid, "--ca: a certificate is not a CA key", hint: "give the CA's own .pub line")
        }
        return try store.write { store in
            if try store.caPins().contains(where: {
                $0.keyType == key.type && $0.key == key.base64 && $0.hosts == patterns
            }) {
                return .alreadyPinned
            }
            try store.save(CAPin(keyType: key.type, key: key.base64, hosts: patterns))
            return .added
        }
    }

    /// Removes the pins of `key` (only those for `patterns` when given); how many went. A `@cert-authority` line for
    /// it in sshelf's own known_hosts (where `trust --ca` wrote before CA pins synced) goes too.
    public static func remove(_ key: HostKey, patterns: String?, store: Store, trust: HostKeyTrustStore) throws -> Int {
        let removed = try store.write { store in
            let pins = try store.caPins().filter {
                $0.keyType == key.type && $0.key == key.base64 && (patterns == nil || $0.hosts == patterns)
            }
            for pin in pins { try store.deleteCAPin(pin.id) }
            return pins.count
        }
        let lines = try trust.forgetAuthority(key, patterns: patterns)
        return removed + lines
    }

    /// The usable pins as `@cert-authority` entries (a pin sync brought that breaks the rules vouches for nothing).
    public static func entries(_ pins: [CAPin]) -> [KnownHostEntry] {
        pins.compactMap { pin in
            guard pin.unusable == nil, let key = HostKey(type: pin.keyType, base64: pin.key) else { return nil }
            return KnownHostEntry(marker: .certAuthority, hosts: pin.hosts, key: key, comment: "")
        }
    }

    /// Reads the store's pins when the host-key check asks (a store that does not exist or cannot be opened holds
    /// none: it vouches for nothing).
    public static func reader(storePath: String) -> @Sendable () -> [KnownHostEntry] {
        {
            guard FileManager.default.fileExists(atPath: storePath), let store = try? Store(path: storePath),
                let pins = try? store.caPins()
            else { return [] }
            return entries(pins)
        }
    }
}
