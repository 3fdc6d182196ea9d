// Migrations: the store's schema history. Each step runs once, in order, inside the opening transaction;
// PRAGMA user_version records how far a file has come. Never edit a shipped step: add a new one.
import FoundationEssentials
import ShelfCore

enum Migration: Sendable {
    case sql(String)
    case code(@Sendable (Database) throws -> Void)
}

enum Migrations {
    static let all: [Migration] = [
        version1, version2, version3, version4, catalog, identityAgentOptions, trustedSync, hostOptions, leanHosts,
        outboxWithoutRowid, hostAliases, identityDestinations, conflictSettling, conflictEvents, matchDefaults,
        postQuantumSetting,
        snippets,
        recordSetting,
        caPins,
    ]
    static var latest: Int { all.count }

    /// The first schema. Relations are flat optional ids with no foreign keys and no unique names: sync can
    /// deliver a host before its group, and two devices may both create "prod".
    static let version1 = Migration.sql(
        """
        CREATE TABLE host_groups(
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            parent_id TEXT,
            sort_order INTEGER NOT NULL DEFAULT 0,
            notes TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL DEFAULT 0,
            extra TEXT NOT NULL DEFAULT '');
        CREATE TABLE hosts(
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            hostname TEXT NOT NULL DEFAULT '',
            port INTEGER NOT NULL DEFAULT 22,
            user TEXT NOT NULL DEFAULT '',
            group_id TEXT,
            tags TEXT NOT NULL DEFAULT '',
            auth_method TEXT NOT NULL DEFAULT 'auto',
            identity_id TEXT,
            password_ref TEXT,
            jump_host_ids TEXT NOT NULL DEFAULT '',
            pinned_key_type TEXT,
            pinned_key TEXT,
            notes TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL DEFAULT 0,
            last_connected_at REAL,
            extra TEXT NOT NULL DEFAULT '');
        CREATE TABLE identities(
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            key_type TEXT NOT NULL DEFAULT 'ed25519',
            public_key TEXT NOT NULL DEFAULT '',
            private_key_ref TEXT,
            passphrase_ref TEXT,
            key_file TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL DEFAULT 0,
            extra TEXT NOT NULL DEFAULT '');
        CREATE TABLE forward_rules(
            id TEXT PRIMARY KEY NOT NULL,
            host_id TEXT,
            name TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL DEFAULT 'local',
            bind_address TEXT NOT NULL DEFAULT '127.0.0.1',
            bind_port INTEGER NOT NULL DEFAULT 0,
            target_host TEXT NOT NULL DEFAULT '',
            target_port INTEGER NOT NULL DEFAULT 0,
            autostart INTEGER NOT NULL DEFAULT 0,
            enabled INTEGER NOT NULL DEFAULT 1,
            updated_at REAL NOT NULL DEFAULT 0,
            extra TEXT NOT NULL DEFAULT '');
        """)

    /// Search and ProxyJump text: a folded search column (filled here for rows from version 1), the
    /// unresolved ProxyJump text, and the indexes that keep lists and lookups fast at 100,000 hosts.
    static let version2 = Migration.code { db in
        try db.execute(
            """
            ALTER TABLE hosts ADD COLUMN unresolved_jump TEXT NOT NULL DEFAULT '';
            ALTER TABLE hosts ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
            CREATE INDEX hosts_by_name ON hosts(name);
            CREATE INDEX hosts_by_group ON hosts(group_id);
            CREATE INDEX rules_by_host ON forward_rules(host_id);
            """)
        let rows = try db.query("SELECT id, name, hostname, user, tags FROM hosts") { row in
            (
                row.text(0),
                Host(
                    name: row.text(1), hostname: row.text(2), user: row.text(3),
                    tags: HostRow.splitTags(row.text(4)))
            )
        }
        let update = try db.prepare("UPDATE hosts SET search_text = ? WHERE id = ?")
        for (id, host) in rows {
            try update.bind([.text(HostSearch.text(for: host)), .text(id)])
            while try update.step() {}
        }
    }

    /// Sync: a clock stamp per record (tombstones included), device-local settings, and the remote batches
    /// already merged. Rows written before sync existed get stamps now, so enabling sync exports them.
    static let version3 = Migration.code { db in
        try db.execute(
            """
            CREATE TABLE record_clock(
                kind TEXT NOT NULL,
                id TEXT NOT NULL,
                wall INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                device TEXT NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY(kind, id));
            CREATE INDEX record_clock_by_stamp ON record_clock(wall, counter);
            CREATE TABLE settings(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            CREATE TABLE sync_seen(device TEXT NOT NULL, batch TEXT NOT NULL, PRIMARY KEY(device, batch));
            """)
        let device = UUID().uuidString.lowercased()
        try db.run("INSERT INTO settings(key, value) VALUES ('device.id', ?)", [.text(device)])
        let wall = HybridLogicalClock.milliseconds(Date())
        var counter = 0
        for (kind, table) in [
            ("group", "host_groups"), ("host", "hosts"), ("identity", "identities"), ("forward", "forward_rules"),
        ] {
            for id in try db.query("SELECT id FROM \(table)", row: { $0.text(0) }) {
                try db.run(
                    "INSERT INTO record_clock(kind, id, wall, counter, device) VALUES (?, ?, ?, ?, ?)",
                    [.text(kind), .text(id), .int(Int(wall)), .int(counter), .text(device)])
                counter += 1
            }
        }
    }

    /// Forward rules: how many SSH sessions carry a rule's connections. A rule that arrived by sync from a newer
    /// device before this column existed kept `sessions` among its unknown fields; it moves into the column here,
    /// so the value is not stored twice (clamped to what this version runs).
    static let version4 = Migration.code { db in
        try db.execute("ALTER TABLE forward_rules ADD COLUMN sessions INTEGER NOT NULL DEFAULT 1;")
        let rows = try db.query("SELECT id, extra FROM forward_rules WHERE extra LIKE '%\"sessions\"%'") { row in
            (row.text(0), ExtraFields.decode(row.text(1)))
        }
        let update = try db.prepare("UPDATE forward_rules SET sessions = ?, extra = ? WHERE id = ?")
        for (id, extra) in rows {
            var rest = extra
            guard case .number(let value)? = rest.removeValue(forKey: "sessions"), value.isFinite else { continue }
            let sessions = Int(min(max(value.rounded(), 1), Double(PortForwardRule.sessionLimit)))
            try update.bind([.int(sessions), .text(ExtraFields.encode(rest)), .text(id)])
            while try update.step() {}
        }
    }

    /// The sshelf agent's per-identity options: confirm each signature, and how long the key is served. An identity
    /// that arrived by sync from a newer device before these columns existed kept them among its unknown fields;
    /// they move into the columns here.
    static let identityAgentOptions = Migration.code { db in
        try db.execute(
            """
            ALTER TABLE identities ADD COLUMN confirm_each_use INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE identities ADD COLUMN agent_lifetime INTEGER NOT NULL DEFAULT 0;
            """)
        let rows = try db.query(
            "SELECT id, extra FROM identities WHERE extra LIKE '%\"confirmEachUse\"%' OR extra LIKE "
                + "'%\"agentLifetime\"%'"
        ) { row in (row.text(0), ExtraFields.decode(row.text(1))) }
        let update = try db.prepare(
            "UPDATE identities SET confirm_each_use = ?, agent_lifetime = ?, extra = ? WHERE id = ?")
        for (id, extra) in rows {
            var rest = extra
            let confirm: Bool
            if case .bool(let value)? = rest.removeValue(forKey: "confirmEachUse") {
                confirm = value
            } else {
                confirm = false
            }
            var lifetime = 0
            if case .number(let value)? = rest.removeValue(forKey: "agentLifetime"), value.isFinite {
                lifetime = Int(min(max(value.rounded(), 0), Double(Validation.maximumAgentLifetime)))
            }
            try update.bind([.int(confirm ? 1 : 0), .int(lifetime), .text(ExtraFields.encode(rest)), .text(id)])
            while try update.step() {}
        }
    }

    /// Trusted sync (remote format 2): a clock per field group (`clock`, empty while one stamp covers the whole
    /// record, so existing rows need no rewrite) and one step of local history (`history`, see FieldHistory), the
    /// local changes not yet sent, and what this device has
    /// verified of the sync group — certificates (the roster), each device's chain head, the entries verified,
    /// pending invites, and merge conflicts. Format-1 bookkeeping (batches merged) goes: those files are never
    /// read again.
    static let trustedSync = Migration.sql(
        """
        ALTER TABLE record_clock ADD COLUMN clock TEXT NOT NULL DEFAULT '';
        ALTER TABLE record_clock ADD COLUMN history TEXT NOT NULL DEFAULT '';
        CREATE TABLE sync_outbox(kind TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(kind, id));
        CREATE TABLE sync_certs(
            digest TEXT PRIMARY KEY NOT NULL,
            body TEXT NOT NULL,
            mine INTEGER NOT NULL DEFAULT 0,
            published INTEGER);
        CREATE TABLE sync_peers(
            device TEXT PRIMARY KEY NOT NULL,
            head INTEGER NOT NULL DEFAULT 0,
            head_digest TEXT NOT NULL DEFAULT '',
            floor INTEGER NOT NULL DEFAULT 0,
            floor_digest TEXT NOT NULL DEFAULT '',
            snapshot INTEGER NOT NULL DEFAULT 0,
            credentials INTEGER NOT NULL DEFAULT 0,
            credentials_applied INTEGER NOT NULL DEFAULT 0,
            last_seen REAL);
        CREATE TABLE sync_chain(
            device TEXT NOT NULL,
            seq INTEGER NOT NULL,
            digest TEXT NOT NULL,
            PRIMARY KEY(device, seq));
        CREATE TABLE sync_invites(
            id TEXT PRIMARY KEY NOT NULL,
            created REAL NOT NULL,
            expires REAL NOT NULL,
            epochs TEXT NOT NULL DEFAULT '');
        CREATE TABLE sync_conflicts(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            record TEXT NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            field TEXT NOT NULL,
            kept TEXT NOT NULL,
            kept_by TEXT NOT NULL,
            lost TEXT NOT NULL,
            lost_by TEXT NOT NULL,
            why TEXT NOT NULL,
            seen INTEGER NOT NULL DEFAULT 0);
        DROP TABLE sync_seen;
        DELETE FROM settings WHERE key IN ('sync.exported', 'sync.credentials.digest');
        """)

    /// ssh_config options kept on each host (a JSON array of lines, empty for none), and the defaults blocks an import
    /// keeps for `Host` patterns (`Host *`), in file order. A host that arrived by sync from a newer device before the
    /// column existed kept `options` among its unknown fields; it moves into the column here. The catalog cache is
    /// marked stale, so no cache written before this step hands out a host without its options.
    static let hostOptions = Migration.code { db in
        try db.execute(
            """
            ALTER TABLE hosts ADD COLUMN options TEXT NOT NULL DEFAULT '';
            CREATE TABLE option_defaults(
                position INTEGER PRIMARY KEY NOT NULL,
                pattern TEXT NOT NULL,
                options TEXT NOT NULL DEFAULT '');
            """)
        let rows = try db.query("SELECT id, extra FROM hosts WHERE extra LIKE '%\"options\"%'") { row in
            (row.text(0), ExtraFields.decode(row.text(1)))
        }
        let update = try db.prepare("UPDATE hosts SET options = ?, extra = ? WHERE id = ?")
        for (id, extra) in rows {
            var rest = extra
            guard case .array(let values)? = rest.removeValue(forKey: "options") else { continue }
            let lines = values.compactMap { value -> String? in
                if case .string(let text) = value { return text }
                return nil
            }
            try update.bind([.text(OptionLines.encode(lines)), .text(ExtraFields.encode(rest)), .text(id)])
            while try update.step() {}
        }
        try db.execute("UPDATE catalog_version SET token = randomblob(16) WHERE id = 1;")
    }

    /// Less to write for every host: two indexes no query needs — `hosts_by_group` (nothing looks hosts up by group in
    /// SQL; the catalog counts them) and `hosts_by_name` (an exact name is found through `hosts_by_folded_name`, whose
    /// case-insensitive key holds every exact match) — and the `search_text` column, a folded copy of the searched
    /// fields that nothing reads since the catalog (HostTable) folds them itself.
    static let leanHosts = Migration.sql(
        """
        DROP INDEX IF EXISTS hosts_by_group;
        DROP INDEX IF EXISTS hosts_by_name;
        ALTER TABLE hosts DROP COLUMN search_text;
        """)

    /// The sync outbox as a `WITHOUT ROWID` table: it is only ever read, counted, added to and deleted from by its
    /// primary key (kind, id), which a rowid table keeps twice — the rows under a hidden rowid and the key in an index
    /// beside them. Now the rows are stored in the key's b-tree itself: one b-tree fewer written for every record
    /// saved (an import of 100,000 hosts writes some 1,200 of 15,000 pages fewer). The same columns and rows.
    /// (`record_clock` stays a rowid table: its newest stamp is found through `record_clock_by_stamp` and a look-up by
    /// rowid; without a rowid SQLite's planner scans the whole table for it instead.)
    static let outboxWithoutRowid = Migration.sql(
        """
        CREATE TABLE sync_outbox_keyed(kind TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(kind, id)) WITHOUT ROWID;
        INSERT INTO sync_outbox_keyed(kind, id) SELECT kind, id FROM sync_outbox;
        DROP TABLE sync_outbox;
        ALTER TABLE sync_outbox_keyed RENAME TO sync_outbox;
        """)

    /// A host's aliases (`Host web1 web1.prod`), joined by U+001F like tags (validation forbids it inside one), empty
    /// for none; a partial index holds the few hosts that have any, so finding a host by an alias reads only those. A
    /// host that arrived by sync from a newer device before the column existed kept `aliases` among its unknown
    /// fields; they move into the column here. The catalog cache is marked stale: its rows now carry the aliases.
    static let hostAliases = Migration.code { db in
        try db.execute(
            """
            ALTER TABLE hosts ADD COLUMN aliases TEXT NOT NULL DEFAULT '';
            CREATE INDEX hosts_with_aliases ON hosts(id) WHERE aliases != '';
            """)
        let rows = try db.query("SELECT id, extra FROM hosts WHERE extra LIKE '%\"aliases\"%'") { row in
            (row.text(0), ExtraFields.decode(row.text(1)))
        }
        let update = try db.prepare("UPDATE hosts SET aliases = ?, extra = ? WHERE id = ?")
        for (id, extra) in rows {
            var rest = extra
            guard case .array(let values)? = rest.removeValue(forKey: "aliases") else { continue }
            let aliases = values.compactMap { value -> String? in
                if case .string(let text) = value, !text.isEmpty, !text.contains("\u{1F}") { return text }
                return nil
            }
            try update.bind([.text(HostRow.joinTags(aliases)), .text(ExtraFields.encode(rest)), .text(id)])
            while try update.step() {}
        }
        try db.execute("UPDATE catalog_version SET token = randomblob(16) WHERE id = 1;")
    }

    /// Host-bound keys (`identity edit --only`): the destinations in a column of their own, taken from `extra` where
    /// a newer device's sync put them before this step ran.
    static let identityDestinations = Migration.code { db in
        try db.execute("ALTER TABLE identities ADD COLUMN only_to TEXT NOT NULL DEFAULT '';")
        let rows = try db.query("SELECT id, extra FROM identities WHERE extra LIKE '%\"onlyTo\"%'") { row in
            (row.text(0), ExtraFields.decode(row.text(1)))
        }
        let update = try db.prepare("UPDATE identities SET only_to = ?, extra = ? WHERE id = ?")
        for (id, extra) in rows {
            var rest = extra
            guard case .array(let values)? = rest.removeValue(forKey: "onlyTo") else { continue }
            // Anything unreadable stays an entry that matches no host: a binding never widens by being misread.
            let destinations = values.map { value -> String in
                if case .string(let text) = value { return KeyDestination(text: text).description }
                return KeyDestination(text: "").description
            }
            try update.bind([.text(HostRow.joinTags(destinations)), .text(ExtraFields.encode(rest)), .text(id)])
            while try update.step() {}
        }
    }
    /// When each side of a merge conflict was written (milliseconds of its stamp; 0 for conflicts recorded before),
    /// and how the user settled it (`kept`, `other`; empty while open), for `sync conflicts` and its `resolve`.
    static let conflictSettling = Migration.sql(
        """
        ALTER TABLE sync_conflicts ADD COLUMN kept_at INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sync_conflicts ADD COLUMN lost_at INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sync_conflicts ADD COLUMN settled TEXT NOT NULL DEFAULT '';
        """)

    /// Conflict events (StoreConflictEvents): each conflict found or settled, as it travels signed in entries; a
    /// conflict's state is derived from them. `identity` ties a listed conflict to its events; `from_event` marks one
    /// listed because another device's event named it (until this device's own merge finds it too).
    static let conflictEvents = Migration.sql(
        """
        ALTER TABLE sync_conflicts ADD COLUMN identity TEXT NOT NULL DEFAULT '';
        ALTER TABLE sync_conflicts ADD COLUMN from_event INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX sync_conflicts_identity ON sync_conflicts(identity);
        CREATE TABLE sync_conflict_events(
            identity TEXT NOT NULL,
            author TEXT NOT NULL,
            wall INTEGER NOT NULL,
            counter INTEGER NOT NULL,
            action TEXT NOT NULL,
            seq INTEGER NOT NULL DEFAULT 0,
            body TEXT NOT NULL,
            signature TEXT NOT NULL DEFAULT '',
            PRIMARY KEY(identity, author, wall, counter, action));
        """)

    /// A defaults block may be a `Match` block kept for OpenSSH (1), not a `Host` pattern (0): its pattern column
    /// holds the Match criteria as written.
    static let matchDefaults = Migration.sql(
        """
        ALTER TABLE option_defaults ADD COLUMN is_match INTEGER NOT NULL DEFAULT 0;
        """)

    /// The `pq` setting of hosts (`edit --pq require`) in a column of its own, empty for off; taken from `extra` where
    /// a newer device's sync put it before this step ran. (A group keeps its `pq` in `extra`: GroupRow.)
    static let postQuantumSetting = Migration.code { db in
        for table in ["hosts"] {
            try db.execute("ALTER TABLE \(table) ADD COLUMN pq TEXT NOT NULL DEFAULT '';")
            let rows = try db.query("SELECT id, extra FROM \(table) WHERE extra LIKE '%\"pq\"%'") { row in
                (row.text(0), ExtraFields.decode(row.text(1)))
            }
            let update = try db.prepare("UPDATE \(table) SET pq = ?, extra = ? WHERE id = ?")
            for (id, extra) in rows {
                var rest = extra
                guard let value = rest.removeValue(forKey: "pq") else { continue }
                // Anything but a string is read as a value this version does not know: it asks for at least require.
                let text: String
                if case .string(let raw) = value { text = raw } else { text = "require" }
                try update.bind([
                    .text(PostQuantumSetting(rawValue: text).storeText), .text(ExtraFields.encode(rest)), .text(id),
                ])
                while try update.step() {}
            }
        }
    }

    /// Saved commands (Snippet), a record kind of the config track like hosts; tags joined as a host's are.
    static let snippets = Migration.sql(
        """
        CREATE TABLE snippets(
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            command TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL DEFAULT 0,
            extra TEXT NOT NULL DEFAULT '');
        """)
    /// Whether a host's sessions are recorded (`edit --record`; docs/SESSIONS.md): off, on, ask, or empty for "as
    /// its group says". A host that arrived by sync from a newer device before the column existed kept `record` among
    /// its unknown fields; it moves into the column here. (A group keeps its setting in `extra`: GroupRow.) The
    /// catalog cache is marked stale: its rows now carry the setting.
    static let recordSetting = Migration.code { db in
        try db.execute("ALTER TABLE hosts ADD COLUMN record TEXT NOT NULL DEFAULT '';")
        let rows = try db.query("SELECT id, extra FROM hosts WHERE extra LIKE '%\"record\"%'") { row in
            (row.text(0), ExtraFields.decode(row.text(1)))
        }
        let update = try db.prepare("UPDATE hosts SET record = ?, extra = ? WHERE id = ?")
        for (id, extra) in rows {
            var rest = extra
            guard case .string(let text)? = rest.removeValue(forKey: "record") else { continue }
            let setting = RecordSetting(rawValue: text)?.rawValue ?? ""
            try update.bind([.text(setting), .text(ExtraFields.encode(rest)), .text(id)])
            while try update.step() {}
        }
        try db.execute("UPDATE catalog_version SET token = randomblob(16) WHERE id = 1;")
    }
}
