// IdentityCommands: `sshelf identity list|show|import|edit|rm` and `keygen` — identities (keys) and the hosts using
// them. A private key file moves into the vault on import, its public half into the store; keygen makes a new
// ed25519 key in the vault; show prints the public key line; edit sets the name and the agent's options
// (IdentityOperations does the work; here are the options, prompts and output).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
#if canImport(Glibc)
import Glibc
#endif

enum IdentityCommands {
    /// The sshelf agent's per-identity options, shared by import, keygen and edit.
    struct AgentOptions: CommandOptions {
        let confirm = Flag("confirm", "the sshelf agent asks before every signature with this key")
        let lifetime = Option(
            "lifetime", .seconds(0...Validation.maximumAgentLifetime),
            "the sshelf agent serves the key this long after it starts serving it (0: no limit)")
    }

    struct ListOptions: CommandOptions {
        let json = Flag("json", "print JSON for scripts")
        let names = Flag("names", "print only the identity names, one per line")
    }

    struct ImportOptions: CommandOptions {
        let removeFile = Flag("remove-file", "delete the key file once it is in the vault")
        let keyPassphraseFD = Option(
            "key-passphrase-fd", .descriptor, "read the key's own passphrase from descriptor N")
        let passphraseFD = VaultCommands.passphraseFD
        let agent = AgentOptions()
    }

    struct EditOptions: CommandOptions {
        let agent = AgentOptions()
        let noConfirm = Flag("no-confirm", "stop asking before each signature")
        let only = Repeated(
            "only", .text("HOST|@GROUP"),
            "the agent uses the key only for this host (or group); repeatable, adds to the list")
        let onlyClear = Flag("only-clear", "remove every --only binding (given with --only: replace them)")
        let rename = Option("rename", .text("NEWNAME"), "give the identity a new name")
    }

    struct KeygenOptions: CommandOptions {
        let comment = Option("comment", .text("TEXT"), "comment on the public key (default: NAME)")
        let passphraseFD = VaultCommands.passphraseFD
        let agent = AgentOptions()
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["identity", "list"], summary: "list identities (keys) and the hosts using them",
            options: ListOptions.self, run: list),
        CommandSpec(
            path: ["identity", "show"], summary: "print an identity's public key line (for authorized_keys)",
            details: "The line is `type base64 comment`, as ssh-keygen writes it to a .pub file.",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name (or id prefix)", completion: .identity)],
            examples: ["sshelf identity show work >> ~/.ssh/authorized_keys"], run: show),
        CommandSpec(
            path: ["identity", "import"], summary: "move a private key file into the vault",
            details: "OpenSSH and PEM keys. An encrypted key is opened with its passphrase (asked for, or "
                + "--key-passphrase-fd) and stored unencrypted inside the vault, which encrypts it; a wrong "
                + "passphrase stores nothing. The public key goes to the store (from the key itself, or PATH.pub). "
                + "The file is left alone unless --remove-file. One key has one identity: a key another identity "
                + "holds already goes to that identity (named in a note), which keeps the stricter "
                + "agent options of the two.",
            arguments: [
                ArgumentSpec(name: "NAME", help: "identity name"),
                ArgumentSpec(name: "PATH", help: "private key file", completion: .file),
            ],
            options: ImportOptions.self,
            examples: ["sshelf identity import work ~/.ssh/id_ed25519"], run: importKey),
        CommandSpec(
            path: ["identity", "edit"], summary: "rename an identity or change the agent's options for it",
            details:
                "--only binds the key to hosts: the sshelf agent signs with it only for a login to one of them (as "
                + "the host's user), checked against the host key sshelf pinned for it, through every hop of a "
                + "forwarded agent; ssh is offered the key only there. See docs/SSH.md (host-bound keys).",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name (or id prefix)", completion: .identity)],
            options: EditOptions.self,
            examples: [
                "sshelf identity edit work --confirm --lifetime 3600",
                "sshelf identity edit deploy --only web1 --only @prod",
            ], run: edit),
        CommandSpec(
            path: ["identity", "rm"], summary: "remove an identity; its hosts keep everything else",
            details:
                "The hosts that used it are left without an identity (in the same transaction), and its private key "
                + "and passphrase are removed from this device's vault.",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name (or id prefix)", completion: .identity)],
            examples: ["sshelf identity rm old-laptop-key"], run: remove),
        CommandSpec(
            path: ["keygen"], summary: "create an ed25519 identity; the private key stays in the vault",
            details: "Prints the public key line for authorized_keys.",
            arguments: [ArgumentSpec(name: "NAME", help: "identity name")],
            options: KeygenOptions.self,
            run: keygen),
    ]

    static func list(_ call: Call<ListOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (identities, hosts) = try store.read { store in (try store.identities(), try store.hosts()) }
        if call[\.json] {
            context.print(try JSONOutput.encode(identities))
            return 0
        }
        if call[\.names] {
            context.output(identities.map { Display.safe($0.name) + "\n" }.joined())
            return 0
        }
        if identities.isEmpty {
            context.errorOutput("no identities yet; 'sshelf import ssh-config' records IdentityFile keys\n")
            return 0
        }
        var users: [UUID: Int] = [:]
        for host in hosts { if let id = host.identityID { users[id, default: 0] += 1 } }
        let rows = try identities.map { identity in
            [
                identity.name, identity.keyType.rawValue, identity.privateKeyRef == nil ? identity.keyFile : "vault",
                "\(users[identity.id] ?? 0)",
                ([AgentOptionChange.summary(identity)] + [try onlySummary(identity, in: store).map { "only \($0)" }])
                    .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", "),
            ]
        }
        context.output(Display.table(["NAME", "TYPE", "PRIVATE KEY", "HOSTS", "AGENT"], rows))
        return 0
    }

    static func importKey(_ call: Call<ImportOptions>, _ context: AppContext) throws -> Int32 {
        let (name, path) = (call.arguments[0], call.arguments[1])
        let vaultInput = SecretInput(call, \.passphraseFD)
        let keyInput = SecretInput(call, \.keyPassphraseFD)
        let imported = try IdentityOperations.importKey(
            named: name, from: path, workspace: context.workspace, store: try context.store(),
            vaultPassphrase: { try vaultInput.read(prompt: "Vault passphrase: ") },
            keyPassphrase: { try keyInput.read(prompt: "Passphrase of \(Display.safe(path)): ") },
            adjust: AgentOptionChange(confirm: call[\.agent.confirm], lifetime: call[\.agent.lifetime]).apply)
        if call[\.removeFile] && unlink(path) != 0 {
            context.warn(
                "the key is in the vault, but \(Display.safe(path)) could not be removed: "
                    + "\(String(cString: strerror(errno)))")
        }
        if let asked = imported.linkedFrom {
            let holder = ShellWord.quote(imported.identity.name)
            let rename = "sshelf identity edit \(holder) --rename \(ShellWord.quote(asked))"
            context.print(
                IdentityOperations.linkNote(asked: asked, holder: imported.identity)
                    + "; to use the name '\(Display.safe(asked))': \(rename)")
        }
        context.print(
            "imported \(imported.format) key '\(Display.safe(imported.identity.name))' into the vault"
                + " (\(imported.keyClass))"
                + (imported.decrypted
                    ? "; stored decrypted, so its passphrase is no longer asked (the vault encrypts it)" : "")
                + (imported.foundPublicKey
                    ? "" : "; no public key found (add \(Display.safe(path)).pub and import again)"))
        return 0
    }

    static func remove(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let identity = try Resolve.identity(call.arguments[0], in: store)
        let deleted = try IdentityOperations.delete(identity.id, workspace: context.workspace, in: store)
        context.print(deleted?.summary ?? "the identity is already gone")
        return 0
    }

    static func keygen(_ call: Call<KeygenOptions>, _ context: AppContext) throws -> Int32 {
        let vaultInput = SecretInput(call, \.passphraseFD)
        let (_, publicKey) = try IdentityOperations.generate(
            named: call.arguments[0], comment: call[\.comment], workspace: context.workspace,
            store: try context.store(), vaultPassphrase: { try vaultInput.read(prompt: "Vault passphrase: ") },
            adjust: AgentOptionChange(confirm: call[\.agent.confirm], lifetime: call[\.agent.lifetime]).apply)
        context.print(publicKey)
        return 0
    }

    static func show(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let identity = try Resolve.identity(call.arguments[0], in: try context.store())
        guard !identity.publicKey.isEmpty else {
            throw ShelfError(
                .notFound, "identity '\(Display.safe(identity.name))' has no public key recorded",
                hint: "import its key again: sshelf identity import \(Display.safe(identity.name)) FILE")
        }
        context.print(Display.safe(identity.publicKey))
        return 0
    }

    static func edit(_ call: Call<EditOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let change = try AgentOptionChange(
            confirm: call[\.agent.confirm], noConfirm: call[\.noConfirm], lifetime: call[\.agent.lifetime])
        let newName = call[\.rename]
        var identity = try Resolve.identity(call.arguments[0], in: store)
        if let newName, try store.identities().contains(where: { $0.name == newName && $0.id != identity.id }) {
            throw ShelfError(.usage, "an identity named '\(Display.safe(newName))' exists already")
        }
        let only = try call[\.only].map { try destination($0, in: store) }
        change.apply(&identity)
        if let newName { identity.name = newName }
        if call[\.onlyClear] { identity.onlyTo = [] }
        for destination in only where !identity.onlyTo.contains(destination) { identity.onlyTo.append(destination) }
        identity.updatedAt = Date()
        try IdentityOperations.save(identity, in: store)
        var said = "saved identity '\(Display.safe(identity.name))': " + change.describe(identity)
        if !identity.onlyTo.isEmpty || call[\.onlyClear] {
            said += "; " + (try onlySummary(identity, in: store).map { "only for \($0)" } ?? "usable for every host")
        }
        context.print(said)
        for host in try unpinned(identity, in: store) {
            context.errorOutput(
                "note: host '\(Display.safe(host))' has no pinned host key yet: the agent signs for it once its key "
                    + "is pinned (a first connect, or 'sshelf trust \(Display.safe(host))')\n")
        }
        return 0
    }

    /// A host by name (or id prefix), or `@GROUP` by its path.
    private static func destination(_ text: String, in store: Store) throws -> KeyDestination {
        if case .group(let path) = TargetWord(text), !path.isEmpty {
            guard let group = GroupTree(try store.groups()).find(path) else {
                throw ShelfError(.notFound, "--only: no group '\(Display.safe(path))'", hint: "see 'sshelf group list'")
            }
            return .group(group.id)
        }
        return .host(try Resolve.host(text, in: store).id)
    }

    /// `web1, @prod` (a host or group deleted since: `a deleted host`); nil when the key is not bound.
    static func onlySummary(_ identity: Identity, in store: Store) throws -> String? {
        guard !identity.onlyTo.isEmpty else { return nil }
        let (hosts, groups) = try store.read { store in (try store.hosts(), try store.groups()) }
        let tree = GroupTree(groups)
        return identity.onlyTo.map { destination -> String in
            switch destination {
            case .host(let id): hosts.first { $0.id == id }.map { Display.safe($0.name) } ?? "a deleted host"
            case .group(let id):
                groups.contains { $0.id == id } ? "@" + Display.safe(tree.path(of: id)) : "a deleted group"
            case .other(let text): "an unknown binding '\(Display.safe(text))' (from a newer sshelf; matches no host)"
            }
        }.joined(separator: ", ")
    }

    /// The names of the bound hosts with no pinned host key (the agent cannot recognise them yet).
    private static func unpinned(_ identity: Identity, in store: Store) throws -> [String] {
        let (hosts, groups) = try store.read { store in (try store.hosts(), try store.groups()) }
        return KeyDestination.hosts(identity.onlyTo, among: hosts, groups: groups).filter { $0.pinnedHostKey == nil }
            .map(\.name)
    }
}

/// --confirm / --no-confirm / --lifetime, checked before anything is written.
struct AgentOptionChange {
    var confirm: Bool?
    var lifetime: Int?

    /// `lifetime` is parsed already (`--lifetime`: 0 to `Validation.maximumAgentLifetime` seconds).
    init(confirm: Bool, lifetime: Int?) {
        self.confirm = confirm ? true : nil
        self.lifetime = lifetime
    }

    init(confirm: Bool, noConfirm: Bool, lifetime: Int?) throws {
        if confirm && noConfirm { throw ShelfError(.usage, "--confirm and --no-confirm contradict each other") }
        self.confirm = confirm ? true : noConfirm ? false : nil
        self.lifetime = lifetime
    }

    func apply(_ identity: inout Identity) {
        if let confirm { identity.confirmEachUse = confirm }
        if let lifetime { identity.agentLifetime = lifetime }
    }

    /// `confirm, 3600 s` for the identity list; empty without options.
    static func summary(_ identity: Identity) -> String {
        [identity.confirmEachUse ? "confirm" : nil, identity.agentLifetime > 0 ? "\(identity.agentLifetime) s" : nil]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// `confirm each use, agent lifetime 3600 s` or `no agent options`.
    func describe(_ identity: Identity) -> String {
        var parts: [String] = []
        if identity.confirmEachUse { parts.append("confirm each use") }
        if identity.agentLifetime > 0 { parts.append("agent lifetime \(identity.agentLifetime) s") }
        return parts.isEmpty ? "no agent options" : parts.joined(separator: ", ")
    }
}
