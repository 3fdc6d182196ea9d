// Fixtures: deterministic stores for the UI tests (fixed ids and dates, so snapshots never drift).
import Foundation
import ShelfCore
@testable import ShelfUI

enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func id(_ n: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))!
    }

    /// prod/eu/web, prod/us, staging; eight hosts, forward rules, an identity, a jump chain, a pinned key.
    static func threeLevels() -> Catalog {
        let prod = HostGroup(id: id(1), name: "prod", sortOrder: 0)
        let eu = HostGroup(id: id(2), name: "eu", parentID: prod.id, sortOrder: 0)
        let web = HostGroup(id: id(3), name: "web", parentID: eu.id, sortOrder: 0)
        let us = HostGroup(id: id(4), name: "us", parentID: prod.id, sortOrder: 1)
        let staging = HostGroup(id: id(5), name: "staging", sortOrder: 1)
        let laptop = Identity(id: id(50), name: "laptop", keyType: .ed25519, keyFile: "~/.ssh/id_ed25519")
        var hosts = [
            ShelfCore.Host(
                id: id(100), name: "bastion-eu", hostname: "bastion.eu.example.com", user: "ops", groupID: eu.id,
                tags: ["bastion"], authMethod: .agent, lastConnectedAt: now.addingTimeInterval(-300)),
            ShelfCore.Host(
                id: id(101), name: "web-eu-1", hostname: "10.1.0.11", user: "deploy", groupID: web.id,
                tags: ["web", "nginx"], authMethod: .publickey, identityID: laptop.id, jumpHostIDs: [id(100)],
                pinnedHostKey: PinnedHostKey(
                    type: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"),
                lastConnectedAt: now.addingTimeInterval(-7200)),
            ShelfCore.Host(
                id: id(102), name: "web-eu-2", hostname: "10.1.0.12", user: "deploy", groupID: web.id,
                tags: ["web"], jumpHostIDs: [id(100)]),
            ShelfCore.Host(
                id: id(103), name: "db-us", hostname: "db.us.example.com", port: 2222, user: "postgres",
                groupID: us.id, tags: ["db"], authMethod: .password,
                passwordRef: ReferenceKey.hostPassword(id(103))),
            ShelfCore.Host(id: id(104), name: "cache-us", hostname: "2001:db8::7", port: 2200, groupID: us.id),
            ShelfCore.Host(
                id: id(105), name: "staging-app", hostname: "app.staging.example.com", user: "ci", groupID: staging.id,
                tags: ["app"]),
            ShelfCore.Host(id: id(106), name: "home-nas", hostname: "nas.local", user: "admin"),
            ShelfCore.Host(id: id(107), name: "Zürich-lab", hostname: "lab.zh.example.ch", user: "root", tags: ["lab"]),
        ]
        hosts.sort { $0.name.lowercased() < $1.name.lowercased() }
        let rules = [
            PortForwardRule(
                id: id(200), hostID: id(101), name: "admin", kind: .local, bindPort: 8080,
                targetHost: "localhost", targetPort: 80, autostart: true),
            PortForwardRule(id: id(201), hostID: id(101), kind: .dynamic, bindPort: 1080, enabled: false),
            PortForwardRule(
                id: id(202), hostID: id(103), kind: .local, bindPort: 5432, targetHost: "localhost", targetPort: 5432),
        ]
        return Catalog(hosts: hosts, groups: [prod, eu, web, us, staging], identities: [laptop], rules: rules)
    }

    /// Two hosts named "lab" (one "Lab": the unique-name rule ignores case), as sync can bring them together, and
    /// one named "lab2".
    static func sharedNames() -> Catalog {
        let hosts = [
            ShelfCore.Host(
                id: UUID(uuidString: "3FA2C1D0-0000-0000-0000-000000000301")!, name: "lab",
                hostname: "lab.site-a.example", user: "root"),
            ShelfCore.Host(
                id: UUID(uuidString: "9B1E22AA-0000-0000-0000-000000000302")!, name: "Lab",
                hostname: "lab.site-b.example", user: "root"),
            ShelfCore.Host(id: id(303), name: "lab2", hostname: "lab2.example"),
        ]
        return Catalog(hosts: hosts)
    }

    /// `count` hosts named host-0001… in one group, for scrolling and search tests.
    static func longList(_ count: Int) -> Catalog {
        let group = HostGroup(id: id(1), name: "fleet")
        let hosts = (1...count).map { n in
            ShelfCore.Host(
                id: id(1000 + n), name: String(format: "host-%04d", n), hostname: "10.0.\(n / 256).\(n % 256)",
                user: n % 3 == 0 ? "root" : "deploy", groupID: n % 2 == 0 ? group.id : nil,
                tags: n % 5 == 0 ? ["db"] : ["web"])
        }
        return Catalog(hosts: hosts, groups: [group])
    }

    /// A state with `catalog` loaded (or, with `loaded` false, one still waiting for the store).
    static func state(
        _ catalog: Catalog, rows: Int = 24, columns: Int = 80, status: StatusModel = StatusModel(),
        loaded: Bool = true
    ) -> UIState {
        var state = UIState(rows: rows, columns: columns, symbols: .unicode, now: now)
        state.status = status
        if loaded { _ = Reducer.reduce(&state, .loaded(catalog)) }
        return state
    }

    @discardableResult
    static func press(_ state: inout UIState, _ keys: Key...) -> [Effect] {
        var effects: [Effect] = []
        for key in keys { effects += Reducer.reduce(&state, .key(key)) }
        return effects
    }

    static func type(_ state: inout UIState, _ text: String) {
        for ch in text { _ = Reducer.reduce(&state, .key(.char(ch))) }
    }

    /// Runs the search job to the end, as the run loop would between key polls.
    static func settle(_ state: inout UIState) {
        while state.search.isRunning { _ = Reducer.reduce(&state, .filterStep) }
    }
}
