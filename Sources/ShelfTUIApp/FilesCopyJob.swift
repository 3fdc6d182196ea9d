// FilesCopyJob: one copy of the file pane, run by `cp`'s own engine (FleetCopy) on the pane's SFTP session — so
// with its rules: only regular files and folders, never setuid/setgid, no write outside the destination folder
// whatever the server names its files, never a partial file under the final name, a stop removing the temporary
// file. Reports its bytes and rate a few times a second and how it ended. Logged as `sshelf cp` logs (its release-log
// line first: a copy that cannot be logged does not start).
import FoundationEssentials
import ShelfOperations
import ShelfSSH
import ShelfUI

struct FilesCopyJob {
    let request: FilesTransfer.Request
    let sftp: SftpSession
    let log: FilesReleaseLog
    let mailbox: Mailbox
    let stopped: () -> Bool

    init(
        _ request: FilesTransfer.Request, sftp: SftpSession, log: FilesReleaseLog, mailbox: Mailbox,
        stopped: @escaping () -> Bool
    ) {
        self.request = request
        self.sftp = sftp
        self.log = log
        self.mailbox = mailbox
        self.stopped = stopped
    }

    /// A path as cp's text: the bytes must be UTF-8 (cp's paths are text), else nil.
    static func text(_ path: [UInt8]) -> String? {
        let text = String(decoding: path, as: UTF8.self)
        return Array(text.utf8) == path ? text : nil
    }

    /// A remote path cp takes literally: in a part with a wildcard character (which cp would match against the
    /// listing) each of `* ? [ \` is escaped, so the part matches only the name itself.
    static func literal(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
            guard part.contains(where: { "*?[".contains($0) }) else { return String(part) }
            return part.map { "*?[\\".contains($0) ? "\\\($0)" : String($0) }.joined()
        }.joined(separator: "/")
    }

    func run() {
        let id = request.id
        guard !stopped() else {
            mailbox.post(.filesTransfer(id: id, state: .cancelled, bytes: 0, rate: 0, detail: ""))
            return
        }
        guard let destination = Self.text(request.destination) else {
            fail("the folder \(FileName.shown(request.destination)) is not UTF-8 text, which cp's paths must be")
            return
        }
        var sources: [String] = []
        for source in request.sources {
            guard let text = Self.text(source) else {
                fail("\(FileName.shown(source)) is not UTF-8 text, which cp's paths must be: nothing was copied")
                return
            }
            sources.append(text)
        }
        let upload = request.direction == .upload
        let literal = upload ? sources : sources.map(Self.literal)
        let logged: FilesReleaseLog.Started
        do {
            logged = try log.begin(
                log.command(literal, to: destination, upload: upload, recursive: true), what: "copy")
        } catch {
            fail(TUIErrorLine.text(error) + ": nothing was copied")
            return
        }
        mailbox.post(.filesTransfer(id: id, state: .running, bytes: 0, rate: 0, detail: ""))
        let started = Date()
        var bytes: UInt64 = 0
        var lastPost = started
        let copy = FleetCopy(
            sftp, options: CopyOptions(recursive: true, preserve: false), stop: stopped,
            progress: { [mailbox] count in
                bytes += UInt64(count)
                let now = Date()
                guard now.timeIntervalSince(lastPost) >= 0.2 else { return }
                lastPost = now
                let rate = Double(bytes) / max(0.001, now.timeIntervalSince(started))
                mailbox.post(.filesTransfer(id: id, state: .running, bytes: bytes, rate: rate, detail: ""))
            })
        var failure: String?
        do {
            switch request.direction {
            case .upload: try copy.upload(literal, to: destination)
            case .download: try copy.download(literal, to: destination)
            }
        } catch {
            failure = TUIErrorLine.text(error)
        }
        // How it ended, in the words of cp's last release-log line.
        var outcome = FleetHostResult.Outcome.succeeded
        if stopped() {
            outcome = .killed
        } else if sftp.lost {
            outcome = .connectionLost
        } else if failure != nil || !copy.problems.isEmpty {
            outcome = .failed
        }
        var unlogged: String?
        do { try log.end(logged, outcome: outcome) } catch { unlogged = TUIErrorLine.text(error) }
        let rate = Double(copy.bytes) / max(0.001, Date().timeIntervalSince(started))
        var detail = "\(copy.files) file\(copy.files == 1 ? "" : "s"), \(copy.bytes) bytes"
        if let problem = copy.problems.first {
            detail +=
                "; not copied: " + problem + (copy.problems.count > 1 ? " (and \(copy.problems.count - 1) more)" : "")
        }
        if let leftover = copy.leftovers.first {
            detail += "; left behind \(leftover.onHost ? "on the host" : "here"): \(leftover.path)"
        }
        let state: FilesTransfer.State =
            outcome == .killed ? .cancelled : outcome == .succeeded && unlogged == nil ? .done : .failed
        if let failure { detail = failure + " (" + detail + ")" }
        if let unlogged { detail += "; " + unlogged }
        // The reasons name the server's files: escaped as the sides show names (an escape or a newline in a name
        // shows as `\x1b`, `\n`, never as a `?` that hides which file it was).
        detail = FileName.shown(Array(detail.utf8))
        mailbox.post(.filesTransfer(id: id, state: state, bytes: copy.bytes, rate: rate, detail: detail))
    }

    private func fail(_ why: String) {
        mailbox.post(.filesTransfer(id: request.id, state: .failed, bytes: 0, rate: 0, detail: why))
    }
}
