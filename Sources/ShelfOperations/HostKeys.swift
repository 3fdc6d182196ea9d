// HostKeys: pinning a host key the user vouched for — in sshelf's known_hosts and on the host record — and the
// deliberate replacement of a changed key (the TUI's "type the host's name" dialog, as `sshelf trust --replace`).
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore

public enum HostKeyOperations {
    /// Adds `key` to sshelf's known_hosts for `host`:`port` (first removing that name's entries when `replacing`)
    /// and pins it on the host record `hostID`, if there is one. The user's ~/.ssh/known_hosts is never written:
    /// the record's pin is checked before it.
    public static func pin(
        _ key: HostKey, host: String, port: Int, hostID: UUID?, replacing: Bool,
        trust: HostKeyTrustStore, store: Store
    ) throws {
        try trust.remember(key, host: host, port: port, replacing: replacing)
        guard let hostID else { return }
        try store.write { store in
            guard var record = try store.host(id: hostID), record.pinnedHostKey != key.pinned else { return }
            record.pinnedHostKey = key.pinned
            record.updatedAt = Date()
            try store.save(record)
        }
    }

    /// Replaces the pin of a hop whose key changed with the key it offered (the connection that saw it has ended
    /// and sent nothing; the next one is checked against the new pin).
    public static func replace(_ change: HostKeyChange, workspace: Workspace, store: Store) throws {
        let trust = ConnectOptions.standard(workspace).trust
        try pin(
            change.offered, host: change.hostname, port: change.port, hostID: change.hostID, replacing: true,
            trust: trust, store: store)
    }
}
