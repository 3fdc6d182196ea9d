// CopyCommand: `sshelf cp [-r] [-p] SRC… HOST:DST` and `HOST:SRC… DST` — files over SFTP, with the login rules of
// `run` (key verified first, nothing asked mid-copy, one release-log entry), to one host or to every host of a
// group or tag in parallel; from one host. Partial files never appear under their final name (docs/FLEET.md).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore

enum CopyCommand {
    static let command = CommandSpec(
        path: ["cp"], summary: "copy files to or from hosts over SFTP",
        details: """
            The last argument is the destination. HOST:PATH is a path on a host (HOST may also be @group/path or \
            tag:NAME to copy to or from every host of it in parallel: from several hosts, each host's files go into a \
            folder of its own named after it, DST/HOST/, as pslurp does; otherwise a colon after a slash is part of a \
            local path, and a local path that starts with @ or tag: is written ./@…); a path ending in / names a \
            directory, which must exist unless a directory is copied to it with -r; a relative remote path, or one \
            that starts with ~/, starts in the login directory, and a host's source may hold wildcards (quote them: \
            'web1:/var/log/*.log'), matched on the host as scp does. Several sources go into a destination directory. \
            From several hosts, hosts whose folders would be the same (g/x and g_x) each get NAME@ID, and the report \
            says where each host's files went. Only regular files and directories are copied: a device, FIFO or socket \
            is refused, saying what it is, as is a file that gives more bytes than its size when opened; a link you \
            name is followed, inside a -r tree only to a regular file (a link to a directory is left out and named). A \
            file that cannot be copied is named on the host's line and the rest goes on. Each file is written under a \
            temporary name (.NAME.sshelf-XXXXXXXX.part) beside its final one and renamed at the end, so an interrupted \
            copy never leaves a partial file under the final name; a failure or Ctrl-C removes it, and one that could \
            not be removed (the host stopped answering) is named with its path. The first Ctrl-C stops every copy; a \
            host that does not answer within --timeout is then cut off. -p keeps permissions and modification times; \
            setuid, setgid and sticky are never copied, with or without -p. The host key is verified before any \
            credential is read, as for a login; an unknown key needs --accept-new. Exit status as for run: 0 when \
            every host succeeded, 1 when a copy failed or was stopped, 255 when a host was not reached or its key was \
            refused.
            """,
        arguments: [
            ArgumentSpec(
                name: "SRC", help: "files or directories, then the destination (HOST:PATH or a local path)",
                variadic: true, completion: .file)
        ],
        options: Options.self,
        examples: [
            "sshelf cp nginx.conf web1:/etc/nginx/", "sshelf cp -r -p site/ @prod:/srv/",
            "sshelf cp db1:/var/log/syslog .", "sshelf cp @prod:/var/log/syslog logs/",
        ],
        run: run)

    /// `HOST:PATH` split at the last colon before the first slash, as scp reads it; `@group/path:PATH` and
    /// `tag:NAME:PATH` at the first colon after the group or tag (a group path holds slashes of its own). Nil for a
    /// local path (write one that starts with @ or tag: as ./@…).
    static func remote(_ word: String) -> (target: String, path: String)? {
        for prefix in ["@", "tag:"] where word.hasPrefix(prefix) {
            let rest = word.dropFirst(prefix.count)
            guard let colon = rest.firstIndex(of: ":"), colon != rest.startIndex else { return nil }
            return (String(word[..<colon]), String(word[word.index(after: colon)...]))
        }
        let head = word.prefix { $0 != "/" }
        guard let colon = head.lastIndex(of: ":"), colon != word.startIndex else { return nil }
        return (String(word[..<colon]), String(word[word.index(after: colon)...]))
    }

    struct Options: FleetOptions {
        let recursive = Flag("recursive", short: "r", "copy directories and everything in them")
        let preserve = Flag(
            "preserve", short: "p", "keep permissions (never setuid, setgid or sticky) and access/modification times")
        let parallel = Option(
            "parallel", FleetCommand.parallel,
            "copy to at most N hosts at once (default \(FleetRun.Settings.defaultParallel))")
        let timeout = Option(
            "timeout", .seconds(atMost: 600),
            "connect timeout per host and address, and how long a stopped copy may take to clean up (default 10)")
        let login = FleetCommand.login
        let yes = Flag("yes", short: "y", "go ahead without the typed confirmation a large or protected copy asks for")
        let acceptNew = Flag(
            "accept-new", "accept and pin the host key of hosts never seen before (never a changed key)")
        let passphraseFD = LoginPassphraseOption.passphraseFD
    }

    static func run(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        guard call.arguments.count >= 2 else {
            throw ShelfError(
                .usage, "cp: give at least one source and a destination",
                hint: "sshelf cp SRC... HOST:DST, or sshelf cp HOST:SRC... DST")
        }
        let sources = Array(call.arguments.dropLast())
        let destination = call.arguments[call.arguments.count - 1]
        let options = CopyOptions(recursive: call[\.recursive], preserve: call[\.preserve])
        let store = try context.store()
        let connect = SSHCommands.connectOptions(call, context)
        var fleet: Fleet
        let direction: (FleetCopy, ShelfCore.Host) throws(SSHError) -> Void
        // The same copy through OpenSSH's scp, for a host the loaded libssh2 cannot log in (an RSA key on 1.10).
        let handOver: (ShelfCore.Host) throws(SSHError) -> (sources: [String], destination: String, upload: Bool)
        var expected: UInt64? = nil
        let folders: HostFolders?
        if let (target, path) = remote(destination) {
            if let remoteSource = sources.first(where: { remote($0) != nil }) {
                throw ShelfError(
                    .usage, "cp: '\(Display.safe(remoteSource))' and the destination are both on hosts",
                    hint: "copy from a host to here, then from here to the other host")
            }
            for source in sources where access(source, R_OK) != 0 {
                throw ShelfError(
                    .notFound, "cp: cannot read \(Display.safe(source)): \(String(cString: strerror(errno)))")
            }
            fleet = try FleetCommand.resolve([target], hostsFile: nil, store: store, context: context)
            direction = { copy, _ throws(SSHError) in try copy.upload(sources, to: path) }
            folders = nil
            handOver = { _ in (sources, path, true) }
            expected = localSize(sources) * UInt64(fleet.plans.count)
        } else {
            let remotes = sources.map(remote)
            guard let first = remotes.first ?? nil, remotes.allSatisfy({ $0?.target == first.target }) else {
                throw ShelfError(
                    .usage, "cp: the sources must all be on one host (HOST:PATH), or the destination must be",
                    hint: "sshelf cp SRC... HOST:DST, or sshelf cp HOST:SRC... DST")
            }
            fleet = try FleetCommand.resolve([first.target], hostsFile: nil, store: store, context: context)
            let paths = remotes.compactMap { $0?.path }
            if fleet.plans.count == 1 {
                direction = { copy, _ throws(SSHError) in try copy.download(paths, to: destination) }
                folders = nil
                handOver = { _ in (paths, destination, false) }
            } else {
                // From several hosts, as pslurp and clush --rcopy: each host's files in a folder of its own.
                let each = try HostFolders(fleet.hosts, in: destination)
                folders = each
                direction = { copy, host throws(SSHError) in
                    try copy.download(paths, to: try each.make(for: host))
                }
                handOver = { host throws(SSHError) in (paths, try each.make(for: host), false) }
            }
        }
        try FleetCommand.loginUser(call, &fleet)
        try FleetCommand.confirm(fleet, call: call, context: context)
        // A certificate kept fresh by its CA (`ca sign --renew`) is renewed first, as for `run`.
        try CACommands.renewCertificates(
            &fleet.plans, by: "cp", vaultInput: SecretInput(call, \.passphraseFD), context: context, store: store)
        // The first Ctrl-C stops every copy: each removes its temporary file; one whose host does not answer within
        // the connect timeout is cut off, and its temporary file named.
        let settings = FleetRun.Settings(
            parallel: call[\.parallel] ?? FleetRun.Settings.defaultParallel, stopGrace: connect.connectTimeout)
        let session = try FleetSession(call: call, store: store, context: context, by: "cp")
        let description =
            "cp \(options.recursive ? "-r " : "")\(options.preserve ? "-p " : "")"
            + call.arguments.joined(separator: " ")
        try session.begin(fleet, what: "copy", item: FleetLog.commandHash(description))
        let copied = ByteCount()
        let summary = session.run(
            fleet, settings: settings, options: connect, json: false,
            line: { progress in
                // One host: the bytes say it all; several: how many hosts are done too.
                let bar = progressBar(copied.total, of: expected, rate: copied.rate())
                return fleet.plans.count == 1 ? bar : bar + "; " + FleetSession.progressLine(progress)
            }
        ) { plan, abort, connected in
            func throughOpenSSH(_ why: String) -> FleetHostResult {
                do {
                    let (from, to, upload) = try handOver(plan.target)
                    var result = session.openSSH.copy(
                        from, to: to, upload: upload, recursive: options.recursive, preserve: options.preserve,
                        plan: plan, why: why, connectTimeout: connect.connectTimeout, abort: abort,
                        connected: connected)
                    if result.outcome == .succeeded {
                        let into = folders.map { " into " + $0.folder(for: plan.target) } ?? ""
                        result.note = "copied through OpenSSH's scp\(into) (\(why))"
                    }
                    return result
                } catch {
                    var result = FleetHostResult(name: plan.target.name, hostID: plan.target.id, outcome: .failed)
                    result.error = ShelfError(from: error).message
                    result.openSSH = why
                    return result
                }
            }
            if let why = OpenSSHFleet.reason(plan) { return throughOpenSSH(why) }
            var copy: FleetCopy? = nil
            var result = FleetConnect.run(
                plan, options: connect, credentials: session.credentials(), acceptNew: call[\.acceptNew],
                abort: abort, connected: connected
            ) { connection, result throws(SSHError) in
                let sftp = try SftpSession(connection)
                defer { sftp.close() }
                let started = FleetCopy(sftp, options: options, stop: { abort.reason != nil }) { copied.add($0) }
                copy = started
                try direction(started, plan.target)
                result.outcome = started.problems.isEmpty ? .succeeded : .failed
            }
            if let copy { CopyReport.describe(copy, into: &result, folder: folders?.folder(for: plan.target)) }
            // A server that offers only post-quantum key exchange fails libssh2's handshake: OpenSSH's scp has one.
            if result.handshakeFailed,
                let why = OpenSSHHandover.postQuantumOnly(
                    plan, offer: result.postQuantumOffer, timeout: connect.connectTimeout)
            {
                return throughOpenSSH(why)
            }
            return result
        }
        try session.finish(summary, fleet: fleet, what: "copy", item: FleetLog.commandHash(description))
        for result in FleetReport.ordered(summary.results) { context.output(CopyReport.line(result) + "\n") }
        if summary.results.count > 1 || summary.interrupts > 0 {
            context.output(FleetReport.summaryLine(summary) + "\n")
        }
        return FleetReport.exitStatus(summary.results)
    }
}

/// `[########------] 57% 1.2 GiB of 2.1 GiB, 96.0 MiB/s, 0:09 left` (without a bar when the size is not known
/// ahead).
func progressBar(_ done: UInt64, of total: UInt64?, rate: Double) -> String {
    let speed = "\(Bytes.text(UInt64(rate)))/s"
    guard let total, total > 0 else { return "\(Bytes.text(done)) copied, \(speed)" }
    let fraction = min(1, Double(done) / Double(total))
    let width = 20
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    var line = "[\(bar)] \(Int(fraction * 100))% \(Bytes.text(done)) of \(Bytes.text(total)), \(speed)"
    if rate > 0, done < total {
        let seconds = Int((Double(total - done) / rate).rounded(.up))
        let clock =
            seconds >= 3600
            ? "\(seconds / 3600):\(twoDigits(seconds / 60 % 60)):\(twoDigits(seconds % 60))"
            : "\(seconds / 60):\(twoDigits(seconds % 60))"
        line += ", \(clock) left"
    }
    return line
}

private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

/// The bytes of the regular files under `paths` (following directories), for the progress bar.
private func localSize(_ paths: [String]) -> UInt64 {
    var total: UInt64 = 0
    for path in paths {
        var info = stat()
        guard fstatat(AT_FDCWD, path, &info, 0) == 0 else { continue }
        if info.st_mode & S_IFMT == S_IFREG {
            total += UInt64(info.st_size)
        } else if info.st_mode & S_IFMT == S_IFDIR,
            let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        {
            total += localSize(names.map { path + "/" + $0 })
        }
    }
    return total
}

/// Bytes copied by every host's thread, and the rate since the first.
private final class ByteCount: @unchecked Sendable {
    private let lock = Lock()
    private var bytes: UInt64 = 0
    private let start = Date()

    func add(_ count: Int) {
        lock.lock()
        bytes += UInt64(count)
        lock.unlock()
    }

    var total: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return bytes
    }

    func rate() -> Double { Double(total) / max(0.001, Date().timeIntervalSince(start)) }
}

enum Bytes {
    static func text(_ count: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\(TextFormat.fixed(value, places: 1)) \(units[unit])"
    }
}
