// GitRemote: a sync remote that is a git repository, driven through the system `git` so the user's own auth
// (ssh keys, credential helpers) just works. A working copy lives in the state directory; this device
// changes only its own files (its chain, its invites and claims; once, the old format's files), so pull --rebase
// never conflicts; a rejected push is retried after a pull.
import Foundation
import ShelfSystem

public struct GitRemote: Sendable {
    public let url: String
    public let workingCopy: String
    public static let pushAttempts = 3
    /// A git command that has not finished by then is treated as an unreachable remote.
    public static let timeout: TimeInterval = 60

    public init(url: String, workingCopy: String) {
        self.url = url
        self.workingCopy = workingCopy
    }

    struct GitResult { var status: Int32; var output: String }

    func git(_ arguments: [String], in directory: String? = nil) -> GitResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? workingCopy)
        var environment = ProcessInfo.processInfo.environment
        // Never wait for a password prompt: sync runs in the background.
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_SSH_COMMAND"] = environment["GIT_SSH_COMMAND"] ?? "ssh -o BatchMode=yes"
        environment["LC_ALL"] = "C"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return GitResult(status: 127, output: "cannot run git: \(error)") }
        let deadline = DispatchTime.now() + GitRemote.timeout
        let done = DispatchSemaphore(value: 0)
        final class Output: @unchecked Sendable { var data = Data() }
        let output = Output()
        DispatchQueue.global().async {
            output.data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        if done.wait(timeout: deadline) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + 5)
            return GitResult(status: 124, output: "git \(arguments.first ?? "") timed out after \(Int(GitRemote.timeout)) s")
        }
        process.waitUntilExit()
        return GitResult(status: process.terminationStatus, output: String(decoding: output.data, as: UTF8.self))
    }

    /// The line of git's output that says what went wrong: its first `fatal:` or `error:` line (git often ends with
    /// advice such as "and the repository exists."), else its last line.
    static func reason(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.first { $0.hasPrefix("fatal:") || $0.hasPrefix("error:") } ?? lines.last ?? "no output"
    }

    /// Clones on first use, then brings the working copy up to date. Throws the reason git gave.
    public func pull() throws(SyncFailure) {
        if !FileManager.default.fileExists(atPath: workingCopy + "/.git") {
            do { try PrivateFiles.ensureDirectory((workingCopy as NSString).deletingLastPathComponent) } catch {
                throw SyncFailure("cannot create \(workingCopy): \(error)")
            }
            let clone = git(["clone", "--quiet", url, workingCopy], in: (workingCopy as NSString).deletingLastPathComponent)
            guard clone.status == 0 else {
                try? FileManager.default.removeItem(atPath: workingCopy)
                throw SyncFailure("git remote unreachable: \(GitRemote.reason(clone.output))",
                                  hint: "check the URL and that 'git clone \(url)' works for you")
            }
        }
        guard hasRemoteBranch() else { return }  // an empty repository: nothing to pull yet
        let pull = git(["pull", "--quiet", "--rebase", "origin", branch()])
        guard pull.status == 0 else {
            _ = git(["rebase", "--abort"])
            throw SyncFailure("git remote unreachable: \(GitRemote.reason(pull.output))", hint: "check your network and git access")
        }
    }

    /// Checks, before sync is pointed at it, that `url` is a git repository this user can reach and read (an empty
    /// one is fine): git's own reason otherwise. Runs no hook and writes nothing.
    public static func probe(_ url: String) throws(SyncFailure) {
        let probe = GitRemote(url: url, workingCopy: "/")
        let result = probe.git(["ls-remote", "--heads", url], in: "/")
        guard result.status == 0 else {
            throw SyncFailure("git cannot read \(url): \(reason(result.output))", hint: "check the URL, and that 'git ls-remote \(url)' works for you")
        }
    }

    func hasRemoteBranch() -> Bool {
        let heads = git(["ls-remote", "--heads", "origin"])
        return heads.status == 0 && !heads.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    func branch() -> String {
        let head = git(["symbolic-ref", "--short", "HEAD"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        return head.isEmpty ? "main" : head
    }

    /// Commits what this run changed in the working copy and pushes, pulling and retrying when rejected.
    public func commitAndPush(device: String) throws(SyncFailure) {
        _ = git(["add", "-A", "--", "."])
        let staged = git(["diff", "--cached", "--quiet"])
        if staged.status != 0 {
            let commit = git(["-c", "user.name=sshelf", "-c", "user.email=sshelf@\(device)", "commit", "--quiet",
                              "-m", "sshelf: changes from device \(device)"])
            guard commit.status == 0 else { throw SyncFailure("git commit failed: \(GitRemote.reason(commit.output))") }
        }
        let ahead = git(["rev-list", "--count", "origin/\(branch())..HEAD"])
        if ahead.status == 0, ahead.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { return }
        var last = ""
        for _ in 0..<GitRemote.pushAttempts {
            let push = git(["push", "--quiet", "origin", "HEAD:\(branch())"])
            if push.status == 0 { return }
            last = GitRemote.reason(push.output)
            let pull = git(["pull", "--quiet", "--rebase", "origin", branch()])
            if pull.status != 0 { _ = git(["rebase", "--abort"]) }
        }
        throw SyncFailure("git push rejected after \(GitRemote.pushAttempts) attempts: \(last)",
                          hint: "check that you may push to \(url)")
    }
}
