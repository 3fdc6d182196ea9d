// SSHConfigBridge: the ssh_config OpenSSH's tools read for sshelf's hosts (`~/.config/sshelf/ssh_config`), with the
// files beside it — sshelf's pins in known_hosts form and one public key file per vault identity — written from the
// store, and kept current by the store's one change hook: every committed change (CLI, TUI, sync, import) rewrites
// it when it exists. Writers take a lock and read the store after it, so the last writer always writes the newest
// state; a file whose content did not change is not touched, and the installed ssh is asked about kept options only
// when they changed.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfStore
import ShelfSystem

public struct SSHConfigBridge: Sendable {
    public let workspace: Workspace

    public init(workspace: Workspace) { self.workspace = workspace }

    var locations: DataLocations { workspace.locations }
    public var path: String { locations.sshConfigBridge }
    public var pinsPath: String { locations.bridgePins }
    var statePath: String { path + ".checked" }
    var lockPath: String { path + ".lock" }

    /// Whether the bridge has been written (and so is kept current).
    public var exists: Bool { access(path, F_OK) == 0 }

    /// What one write did.
    public struct Written: Sendable {
        public var hosts: Int
        public var changed: Bool
        /// Kept options the installed ssh refuses (left out as comments), with its words.
        public var refused: [String: String]
    }

    /// Makes `store` keep the bridge current: after each change, when the bridge exists, it is rewritten. A failure
    /// is a warning, never the change's failure (the store already committed it).
    public func attach(to store: Store) {
        store.afterChange = { store in
            guard self.exists else { return }
            do { _ = try self.write(from: store) } catch {
                self.workspace.warn(
                    "could not update the ssh_config bridge \(self.path): \(ShelfError(from: error).message)")
            }
        }
    }

    /// Writes the bridge and the files beside it from the store (each only when its content changed). `included`:
    /// whether ~/.ssh/config includes the bridge (nil: look; `install` says true before it adds the line) — then what
    /// that file already says for a host is written its way or left to it (`SSHConfigTransparency`).
    @discardableResult
    public func write(from store: Store, included: Bool? = nil) throws -> Written {
        try PrivateFiles.ensureDirectory(locations.configDirectory)
        let lock = try Lock(lockPath)
        defer { lock.release() }
        let input = try store.read { store in
            SSHConfigEmitter.Input(
                hosts: try store.hosts(), identities: try store.identities(),
                rules: try store.forwardRules(), groups: try store.groups(),
                defaults: try store.optionDefaults())
        }
        let refused = try checkedOptions(input)
        let keys = try writePublicKeys(input.identities)
        try replaceIfChanged(pinsPath, Data(Self.pins(input.hosts).utf8))
        let include = SSHConfigInclude(home: workspace.homeDirectory, bridgePath: path)
        let userConfig =
            included ?? include.isInstalled
            ? UserSSHConfig.hostLines(home: workspace.homeDirectory, own: locations.configDirectory) : nil
        let bridge = SSHConfigEmitter.Bridge(
            agentSocket: locations.agentSocket, pinsFile: pinsPath, publicKeyFiles: keys,
            refused: refused, userConfig: userConfig, sshelfProgram: workspace.program,
            postQuantumKex: Self.postQuantumKex(input))
        let text = SSHConfigEmitter.emitBridge(input, bridge: bridge, generatedBy: "sshelf")
        let changed = try replaceIfChanged(path, Data(text.utf8), check: checkReadable)
        return Written(hosts: input.hosts.count, changed: changed, refused: refused)
    }

    /// What a host with `pq require` is limited to: ssh is asked only when some host requires it.
    public static func postQuantumKex(_ input: SSHConfigEmitter.Input) -> [String] {
        let groups = GroupTree(input.groups).groups
        guard input.hosts.contains(where: { PostQuantumSetting.required($0, groups: groups) }) else { return [] }
        return OpenSSHKex.postQuantum()
    }

    /// Removes the bridge and the files beside it (`ssh-config uninstall --remove`).
    public func remove() {
        for file in [path, pinsPath, statePath, lockPath] { unlink(file) }
        let keys = locations.bridgeKeys
        for name in (try? FileManager.default.contentsOfDirectory(atPath: keys)) ?? [] { unlink(keys + "/" + name) }
        rmdir(keys)
    }

    // MARK: pins

    /// sshelf's pins as known_hosts lines, one per pinned host under the name its block looks it up by: the host's
    /// own `HostKeyAlias` when its lines give one, else the bridge's (`sshelf-<id>`, SSHConfigEmitter.pinAlias). Never
    /// by address: a second host at the same address and port with another pin would make ssh accept either key
    /// for both.
    static func pins(_ hosts: [ShelfCore.Host]) -> String {
        var lines: Set<String> = []
        for host in hosts {
            guard let pin = host.pinnedHostKey, isKeyWord(pin.type), isBase64(pin.key) else { continue }
            var names = [SSHConfigEmitter.pinAlias(host.id)]
            if let own = host.options.sshOptions.first(where: { $0.key == "hostkeyalias" })?.arguments.first,
                Validation.hostnameProblem(own) == nil, !own.contains(where: { ",*?!#[]".contains($0) })
            {
                names.append(own)
            }
            for name in names { lines.insert("\(name) \(pin.type) \(pin.key)") }
        }
        return "# sshelf's pinned host keys (written by sshelf; the bridge's pinned hosts trust only these)\n"
            + lines.sorted().map { $0 + "\n" }.joined()
    }

    static func isKeyWord(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x40 || $0 == 0x2E
            }
    }

    static func isBase64(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2B
                    || $0 == 0x2F || $0 == 0x3D
            }
    }

    // MARK: public keys of vault identities

    /// One `.pub` file per identity whose key is in the vault (by id: names may change or repeat); files of
    /// identities that are gone are removed.
    func writePublicKeys(_ identities: [Identity]) throws -> [UUID: String] {
        let directory = locations.bridgeKeys
        var files: [UUID: String] = [:]
        // A keys folder that is a link (or another uid's) is refused before anything is written in it or removed
        // from it: followed, its clean-up would delete the files of whatever folder it points at (PrivateDirectory).
        var checked = false
        var info = stat()
        if lstat(directory, &info) == 0 {
            try PrivateFiles.ensureDirectory(directory, within: locations.configDirectory)
            checked = true
        }
        for identity in identities where identity.privateKeyRef != nil {
            let words = identity.publicKey.split(separator: " ")
            guard words.count >= 2, Self.isKeyWord(String(words[0])), Self.isBase64(String(words[1])) else { continue }
            if !checked {
                try PrivateFiles.ensureDirectory(directory, within: locations.configDirectory)
                checked = true
            }
            let file = directory + "/" + identity.id.uuidString.lowercased() + ".pub"
            try replaceIfChanged(file, Data("\(words[0]) \(words[1]) \(Self.commentSafe(identity.name))\n".utf8))
            files[identity.id] = file
        }
        let wanted = Set(files.values.map { $0.lastPathPart })
        for name in (checked ? try? FileManager.default.contentsOfDirectory(atPath: directory) : nil) ?? []
        where !wanted.contains(name) {
            unlink(directory + "/" + name)
        }
        return files
    }

    /// The identity's name as a key comment: one word of printable text.
    static func commentSafe(_ name: String) -> String {
        let cleaned = name.unicodeScalars.map {
            Validation.isForbidden($0) || $0 == " " || $0 == "\t" ? "-" : String($0)
        }.joined()
        return cleaned.isEmpty ? "sshelf" : "sshelf:" + cleaned
    }

    // MARK: options the installed ssh refuses

    /// Every kept option line is shown to the installed ssh once (again only when they change): a line it refuses
    /// would stop every ssh command that reads the bridge. The answer is kept beside the bridge.
    func checkedOptions(_ input: SSHConfigEmitter.Input) throws -> [String: String] {
        let lines = RefusedOptions.candidates(input.hosts.map(\.options) + input.defaults.map(\.options))
        let digest =
            Digest.sha256(Array(lines.joined(separator: "\n").utf8)).map { TextFormat.hex($0) }.joined()
            + " " + OpenSSHOptionCheck.version
        if let state = try? RegularFile.read(statePath, limit: 4 << 20),
            let saved = try? JSONDecoder().decode(CheckState.self, from: Data(state)), saved.digest == digest
        {
            return saved.refused
        }
        let refused = OpenSSHOptionCheck.refused(lines, scratch: locations.configDirectory)
        let state = CheckState(digest: digest, refused: refused)
        try replaceIfChanged(statePath, try ShelfJSON.encoder().encode(state))
        return refused
    }

    /// `check`'s report of the kept lines the installed ssh refuses (the saved answer when they did not change),
    /// whether or not the bridge is written: the lines are refused all the same.
    public func refusedOptionProblems(_ store: Store) throws -> [ModelProblem] {
        try PrivateFiles.ensureDirectory(locations.configDirectory)
        let lock = try Lock(lockPath)
        defer { lock.release() }
        let input = try store.read { store in
            SSHConfigEmitter.Input(
                hosts: try store.hosts(), identities: [], rules: [], groups: [], defaults: try store.optionDefaults())
        }
        return RefusedOptions.problems(hosts: input.hosts, defaults: input.defaults, refused: try checkedOptions(input))
    }

    struct CheckState: Codable {
        var digest: String
        var refused: [String: String]
    }

    // MARK: files

    /// Replaces `path` (0600, atomically) unless it already holds exactly `data`; true when it wrote. `check`, when
    /// given, sees the new content before it replaces the old and may refuse it (the old file then stays).
    @discardableResult
    func replaceIfChanged(_ path: String, _ data: Data, check: ((Data) throws -> Void)? = nil) throws -> Bool {
        if let current = try? RegularFile.read(path, limit: max(data.count + 1, 1)), current.count == data.count,
            current.elementsEqual(data)
        {
            PrivateFiles.tighten(path)
            return false
        }
        try check?(data)
        try PrivateFiles.atomicWrite(data, to: path)
        return true
    }

    /// The new bridge is read back before it replaces the old one — every line by sshelf's lexer (OpenSSH's quoting
    /// rules), then the whole file by the installed `ssh -G` — so a file ssh cannot read is never installed: one bad
    /// line there would stop every ssh command on the machine. The emitter already left out what it cannot write;
    /// this is the guard for anything it missed.
    func checkReadable(_ data: Data) throws {
        var number = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let text = String(decoding: line, as: UTF8.self)
            do {
                _ = try SSHConfigLexer.lex(Substring(text), file: path, number: number)
            } catch {
                throw ShelfError(
                    .failure, "the new ssh_config bridge could not be read back (\(error)); the old one is kept",
                    hint: "run 'sshelf check' to see which host cannot be written")
            }
        }
        let scratch = locations.configDirectory + "/.bridge-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try PrivateFiles.atomicWrite(data, to: scratch)
        defer { unlink(scratch) }
        if let refusal = OpenSSHOptionCheck.fileRefusal(scratch) {
            throw ShelfError(
                .failure,
                "ssh cannot read the new ssh_config bridge (\(refusal.replacing(scratch, with: "bridge"))); the "
                    + "old one is kept",
                hint: "run 'sshelf check' to see which host cannot be written")
        }
    }

    /// An exclusive lock on a file beside the bridge (flock; released when the process ends, whatever happens).
    struct Lock {
        let fd: Int32

        init(_ path: String) throws {
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw ShelfError(.failure, "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(fd)
                    throw ShelfError(.failure, "cannot lock \(path): \(reason)")
                }
            }
        }

        func release() { close(fd) }
    }
}

extension Workspace {
    /// The store, opened with the hooks every writer keeps (the ssh_config bridge). Every command, the TUI, sync and
    /// the background processes open it this way.
    public func openStore() throws(StoreError) -> Store {
        let store = try Store(path: locations.store)
        SSHConfigBridge(workspace: self).attach(to: store)
        return store
    }
}
