// OptionNotes: the note `connect` prints about a host's options sshelf's own client does not apply (AddKeysToAgent
// from `Host *` is in most real configs) is said once per host, and again only when the host or those options change
// (`--verbose` says it every time). What was said is a digest per host in the state directory (0600), so the file
// names no option or host; a missing or unreadable file only means the note is said again.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem

public struct OptionNotes {
    let path: String

    init(_ locations: DataLocations) { path = locations.stateDirectory + "/option-notes" }

    /// Whether `note` about `host` (whose unapplied options have `values`) is new: never said, or said about another
    /// version of the host or its options. Remembers it as said.
    func isNew(_ note: String, host: ShelfCore.Host, values: [String]) -> Bool {
        let parts = [note, host.hostname, host.user, String(host.port)] + values
        let digest = Digest.sha256(Array(parts.joined(separator: "\u{0}").utf8))
            .map { TextFormat.hex($0) }.joined()
        let id = host.id.uuidString.lowercased()
        var said = read()
        guard said[id] != digest else { return false }
        said[id] = digest
        let text = said.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try? PrivateFiles.ensureDirectory(path.parentPath)
        try? PrivateFiles.atomicWrite(Data(text.utf8), to: path)
        return true
    }

    /// host id → digest of the note last said; lines that do not parse are dropped.
    private func read() -> [String: String] {
        guard let bytes = try? RegularFile.read(path, limit: 1 << 20) else { return [:] }
        var said: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2 { said[String(fields[0])] = String(fields[1]) }
        }
        return said
    }
}

extension OptionNotes {
    /// Said before connecting: the target's options sshelf's own client cannot do (it connects without them) — once
    /// per host until the host or those options change, or every time when `always` (OptionNotes) — and values it
    /// cannot read. A unix-socket forward is named on its own, precisely.
    public static func say(_ plan: ConnectPlan, store: Store, always: Bool, context: AppContext) {
        let target = plan.endpoints[plan.endpoints.count - 1]
        let name = Display.safe(target.name)
        for line in target.settings.socketForwards {
            context.errorOutput(
                "sshelf: note: \(name): '\(Display.safe(line))' forwards a unix socket, which sshelf's own client "
                    + "(libssh2 \(LibSSH2.version)) cannot open; connecting without it (sshelf connect \(name) "
                    + "--openssh runs OpenSSH's ssh with it)\n")
        }
        let unsupported = target.settings.unsupported.filter { keyword in
            !target.settings.socketForwards.contains { SSHOption(line: $0)?.keyword == keyword }
        }
        if !unsupported.isEmpty {
            let list = unsupported.map(Display.safe).joined(separator: ", ")
            let note =
                "sshelf: note: \(name) sets \(list), which sshelf's own client (libssh2 \(LibSSH2.version)) cannot "
                + "do; connecting without \(unsupported.count == 1 ? "it" : "them") (sshelf connect \(name) --openssh "
                + "runs OpenSSH's ssh with them)\n"
            let keys = Set(unsupported.map { $0.lowercased() })
            let defaults = (try? store.optionDefaults()) ?? []
            let values = HostSettings.options(for: plan.target, defaults: defaults).filter { keys.contains($0.key) }
                .map(\.description)
            if OptionNotes(context.locations).isNew(note, host: plan.target, values: values) || always {
                context.errorOutput(note)
            }
        }
        for problem in target.settings.invalid {
            context.warn("\(name): option \(Display.safe(problem)); ignored")
        }
    }
}
