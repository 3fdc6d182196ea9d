// GitRemote: a sync remote that is a git repository, driven through the system `git` so the user's own auth
// (ssh keys, credential helpers) just works. A working copy lives in the state directory; this device
// changes only its own files (its chain, its invites and claims; once, the old format's files), so pull --rebase
// never conflicts; a rejected push is retried after a pull. The repository is not trusted: no hook runs (a local
// bare repository's receive-pack and upload-pack run as this user), only sync's transports are allowed, and every
// call is bounded by the run's git time — a hung remote or a FIFO in the repository is a fallback, not a wait.
import FoundationEssentials
import ShelfSystem

public struct GitRemote: Sendable {
    public let url: String
    public let workingCopy: String
    public static let pushAttempts = 3
    /// The time one run's git calls share (`SSHELF_SYNC_GIT_SECONDS` in tests): a call still running when it is up
    /// is killed with everything it started, and the remote is unreachable — never a run that waits.
    public static var timeout: TimeInterval {
        ProcessInfo.processInfo.environment["SSHELF_SYNC_GIT_SECONDS"].flatMap(Double.init).map { max(1, $0) } ?? 120
    }
    /// When this run's git time is up.
    let deadline: Date

    public init(url: String, workingCopy: String, now: Date = Date()) {
        self.url = url
        self.workingCopy = workingCopy
        deadline = now.addingTimeInterval(GitRemote.timeout)
    }

    /// Settings every git call runs with, whatever the user's or the repository's configuration says: no hook runs
    /// (here, nor in a local repository git pushes to or fetches from: its receive-pack and upload-pack get the same
    /// setting), only the transports sync uses (never `ext::`, never a submodule's), objects checked as they arrive,
    /// and nothing that waits for a person (signing, a pager, an editor).
    static let safety = [
        "core.hooksPath=/dev/null", "protocol.allow=never", "protocol.file.allow=user", "protocol.ssh.allow=always",
        "protocol.https.allow=always", "protocol.http.allow=always", "protocol.git.allow=always",
        "submodule.recurse=false",
        "fetch.recurseSubmodules=false", "core.fsmonitor=false", "transfer.fsckObjects=true", "commit.gpgSign=false",
        "tag.gpgSign=false", "gc.auto=0", "core.pager=cat", "core.editor=true", "color.ui=false",
    ]

    /// The command a local repository's side of a fetch or push runs as (through the shell, so one string).
    static func pack(_ program: String) -> String { "git -c core.hooksPath=/dev/null \(program)" }

    /// Whether git reaches `url` through the local transport (a path or `file://`), where the repository's side of a
    /// transfer runs here, as this user.
    static func isLocal(_ url: String) -> Bool {
        if url.hasPrefix("file://") || url.hasPrefix("/") || url.hasPrefix(".") || url.hasPrefix("~") { return true }
        guard let colon = url.firstIndex(of: ":") else { return true }
        return url[..<colon].contains("/")  // `dir/a:b` is a path; `host:path` and `scheme://` are not
    }

    /// The options that set both sides of a transfer with `url` (for the working copy's `origin`, config keys).
    static func packOptions(_ url: String, asConfig: Bool) -> [String] {
        guard isLocal(url) else { return [] }
        if asConfig {
            return [
                "-c", "remote.origin.uploadpack=" + pack("upload-pack"), "-c",
                "remote.origin.receivepack=" + pack("receive-pack"),
            ]
        }
        return ["--upload-pack=" + pack("upload-pack")]
    }

    struct GitResult {
        var status: Int32
        var output: String
        var errors: String
        var timedOut = false
        var text: String { errors + "\n" + output }
    }

    /// One git call in `directory` (the working copy by default), bounded by the run's deadline.
    func git(_ arguments: [String], in directory: String? = nil) -> GitResult {
        var environment = ProcessInfo.processInfo.environment
        // Never wait for a password prompt: sync runs in the background.
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["SSH_ASKPASS_REQUIRE"] = "never"
        environment["GIT_SSH_COMMAND"] = environment["GIT_SSH_COMMAND"] ?? "ssh -o BatchMode=yes"
        environment["LC_ALL"] = "C"
        let left = deadline.timeIntervalSinceNow
        let name = arguments.first { !$0.hasPrefix("-") } ?? "git"
        guard left > 0 else {
            return GitResult(
                status: 124, output: "",
                errors: "git \(name) not run: the \(Int(GitRemote.timeout)) s for git in this run are up",
                timedOut: true)
        }
        let configuration = GitRemote.safety.flatMap { ["-c", $0] } + GitRemote.packOptions(url, asConfig: true)
        let argv = ["/usr/bin/env", "git", "-C", directory ?? workingCopy] + configuration + arguments
        guard let run = ChildProcess.run(argv, environment: environment, timeout: left) else {
            return GitResult(status: 127, output: "", errors: "cannot run git")
        }
        if run.timedOut {
            return GitResult(
                status: 124, output: "", errors: "git \(name) did not finish within \(Int(GitRemote.timeout)) s",
                timedOut: true)
        }
        return GitResult(
            status: run.status, output: String(decoding: run.stdout, as: UTF8.self),
            errors: String(decoding: run.stderr, as: UTF8.self))
    }

    /// The line of git's output that says what went wrong: its first `fatal:` or `error:` line (git often ends with
    /// advice such as "and the repository exists."), else its last line.
    static func reason(_ result: GitResult) -> String {
        let text = result.text
        let lines = text.split(separator: "\n").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        return lines.first { $0.hasPrefix("fatal:") || $0.hasPrefix("error:") } ?? lines.last ?? "no output"
    }

    /// Clones on first use, then brings the working copy up to date. Throws the reason git gave.
    public func pull() throws(SyncFailure) {
        if !FileManager.default.fileExists(atPath: workingCopy + "/.git") {
            do { try PrivateFiles.ensureDirectory(workingCopy.parentPath) } catch {
                throw SyncFailure("cannot create \(workingCopy): \(error)")
            }
            let options = ["--quiet", "--no-recurse-submodules"] + GitRemote.packOptions(url, asConfig: false)
            let clone = git(["clone"] + options + [url, workingCopy], in: workingCopy.parentPath)
            guard clone.status == 0 else {
                try? FileManager.default.removeItem(atPath: workingCopy)
                throw SyncFailure(
                    "git remote unreachable: \(GitRemote.reason(clone))",
                    hint: "check the URL and that 'git clone \(url)' works for you")
            }
        }
        let heads = git(["ls-remote", "--heads", "origin"])
        guard heads.status == 0 else {
            throw SyncFailure(
                "git remote unreachable: \(GitRemote.reason(heads))", hint: "check your network and git access")
        }
        guard !heads.output.trimmingSpacesAndNewlines().isEmpty else { return }  // empty: nothing to pull yet
        let pull = git(["pull", "--quiet", "--rebase", "origin", branch()])
        guard pull.status == 0 else {
            _ = git(["rebase", "--abort"])
            throw SyncFailure(
                "git remote unreachable: \(GitRemote.reason(pull))", hint: "check your network and git access")
        }
    }

    /// Checks, before sync is pointed at it, that `url` is a git repository this user can reach and read (an empty
    /// one is fine): git's own reason otherwise. Runs no hook and writes nothing.
    public static func probe(_ url: String) throws(SyncFailure) {
        let probe = GitRemote(url: url, workingCopy: "/")
        let result = probe.git(["ls-remote", "--heads"] + packOptions(url, asConfig: false) + [url], in: "/")
        guard result.status == 0 else {
            throw SyncFailure(
                "git cannot read \(url): \(reason(result))",
                hint: "check the URL, and that 'git ls-remote \(url)' works for you")
        }
    }

    func branch() -> String {
        let head = git(["symbolic-ref", "--short", "HEAD"]).output.trimmingSpacesAndNewlines()
        return head.isEmpty ? "main" : head
    }

    /// Commits what this run changed in the working copy and pushes, pulling and retrying when rejected.
    public func commitAndPush(device: String) throws(SyncFailure) {
        _ = git(["add", "-A", "--", "."])
        let staged = git(["diff", "--cached", "--quiet"])
        if staged.status != 0 {
            let commit = git([
                "-c", "user.name=sshelf", "-c", "user.email=sshelf@\(device)", "commit", "--quiet",
                "-m", "sshelf: changes from device \(device)",
            ])
            guard commit.status == 0 else { throw SyncFailure("git commit failed: \(GitRemote.reason(commit))") }
        }
        let ahead = git(["rev-list", "--count", "origin/\(branch())..HEAD"])
        if ahead.status == 0, ahead.output.trimmingSpacesAndNewlines() == "0" { return }
        var last = ""
        for _ in 0..<GitRemote.pushAttempts {
            let push = git(["push", "--quiet", "origin", "HEAD:\(branch())"])
            if push.status == 0 { return }
            if push.timedOut {
                throw SyncFailure(
                    "git remote unreachable: \(GitRemote.reason(push))", hint: "check your network and git access")
            }
            last = GitRemote.reason(push)
            let pull = git(["pull", "--quiet", "--rebase", "origin", branch()])
            if pull.status != 0 { _ = git(["rebase", "--abort"]) }
        }
        throw SyncFailure(
            "git push rejected after \(GitRemote.pushAttempts) attempts: \(last)",
            hint: "check that you may push to \(url)")
    }
}
