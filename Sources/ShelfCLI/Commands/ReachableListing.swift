// ReachableListing: `sshelf list --reachable` — a TCP handshake to each listed host (or its first jump hop), in
// parallel with a timeout, as a REACHABLE column or a `reachable` field in --json. The exit status stays the
// listing's: a host that does not answer is information, not a failure of the command.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH

enum ReachableListing {
    /// One host's probe, as --json writes it: `{"state": "up", "milliseconds": 0.4, "via": "bastion"}` or
    /// `{"state": "down", "reason": "refused"}`.
    struct Probed: Encodable {
        var reachability: Reachability
        var via: String?

        var words: String { reachability.words(via: via) }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            switch reachability {
            case .unknown, .probing:
                try container.encode("unknown", forKey: AnyCodingKey("state"))
            case .up(let milliseconds):
                try container.encode("up", forKey: AnyCodingKey("state"))
                try container.encode((milliseconds * 1000).rounded() / 1000, forKey: AnyCodingKey("milliseconds"))
            case .down(let failure):
                try container.encode("down", forKey: AnyCodingKey("state"))
                try container.encode(failure.words, forKey: AnyCodingKey("reason"))
            }
            if let via { try container.encode(via, forKey: AnyCodingKey("via")) }
        }
    }

    /// The longest `--timeout` (seconds) `list --reachable` takes.
    static let longestTimeout = 600.0

    /// Probes the listed hosts (one probe per distinct address), in the listing's order.
    static func probe(_ listing: HostListing.Listing, timeout: Double) -> [Probed] {
        let targets = listing.rows.map { ProbeTarget.of(listing.table, row: Int($0)) }
        let distinct = Array(Set(targets.compactMap { $0 }))
        let outcomes = ReachabilityProbe.probeAll(distinct, timeout: timeout, concurrency: Reachability.concurrency)
        let byTarget = Dictionary(uniqueKeysWithValues: zip(distinct, outcomes))
        return targets.map { target in
            guard let target else { return Probed(reachability: .down(.missingJump)) }
            return Probed(reachability: byTarget[target] ?? .unknown, via: target.via)
        }
    }
}
