// TUIRecordings: the work behind the recordings list (`R`) — reading a host's recordings and searching what they
// showed on a background thread (each decrypted in memory, one chunk at a time, as `sessions list` and `sessions
// search` do), removing one with its release-log line, and playing one: curses is left for `sshelf play`, which
// runs on this terminal as it does from the shell and waits for a key at the end, then the TUI comes back.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfTerminal
import ShelfUI
import ShelfVault

final class TUIRecordings: @unchecked Sendable {
    private let context: AppContext
    private let mailbox: Mailbox
    private let vault: TUIVault

    init(context: AppContext, mailbox: Mailbox, vault: TUIVault) {
        self.context = context
        self.mailbox = mailbox
        self.vault = vault
    }

    /// The recordings key for reading, or what stops it (no vault, locked) in the list's words.
    private func key(for by: String) -> Result<(Vault, RecordingsKey), OperationFailure> {
        guard let opened = vault.opened() else {
            return .failure(OperationFailure("no session was recorded on this device (it has no vault yet)"))
        }
        do {
            let vault = try opened.get()
            return .success((vault, try Recordings.key(vault: vault, for: by)))
        } catch {
            let failure = ShelfError(from: error)
            return .failure(OperationFailure(failure.message + (failure.hint.map { " (\($0))" } ?? "")))
        }
    }

    /// The recordings of this host (by its id; one recorded before ids were kept, by its name), newest first.
    private func files(of hostID: UUID, name: String, key: RecordingsKey) -> [RecordingSummary] {
        RecordingCatalog.list(locations: context.locations, key: key).filter { summary in
            summary.info.hostID.map { $0 == hostID } ?? (summary.info.host == name)
        }.reversed()
    }

    func load(_ hostID: UUID, name: String) {
        let (mailbox, locations) = (self.mailbox, context.locations)
        BackgroundThread.start(name: "sshelf-recordings") { [self] in
            guard !Recordings.files(locations).isEmpty else {
                mailbox.post(.recordings(hostID: hostID, .success([])))
                return
            }
            switch key(for: "tui recordings list") {
            case .failure(let failure): mailbox.post(.recordings(hostID: hostID, .failure(failure)))
            case .success(let (vault, key)):
                RecordingCatalog.sealInterrupted(locations: locations, vault: vault)
                let rows = files(of: hostID, name: name, key: key).map { summary in
                    RecordingRow(
                        id: summary.id, started: Date(timeIntervalSince1970: summary.info.started),
                        seconds: summary.seconds, fileBytes: summary.fileBytes, by: summary.info.by,
                        input: summary.info.input, state: summary.state)
                }
                mailbox.post(.recordings(hostID: hostID, .success(rows)))
            }
        }
    }

    func search(_ text: String, hostID: UUID, name: String) {
        let mailbox = self.mailbox
        BackgroundThread.start(name: "sshelf-recordings-search") { [self] in
            switch key(for: "tui recordings search") {
            case .failure(let failure): mailbox.post(.recordingHits(.failure(failure)))
            case .success(let (_, key)):
                var hits: [RecordingHitRow] = []
                for summary in files(of: hostID, name: name, key: key).reversed() {
                    do {
                        hits += try RecordingSearch.hits(of: text, in: (summary.id, summary.path), key: key).map {
                            RecordingHitRow(id: $0.id, time: $0.time, context: $0.context)
                        }
                    } catch {
                        mailbox.post(.recordingHits(.failure(OperationFailure(ShelfError(from: error).message))))
                        return
                    }
                }
                mailbox.post(.recordingHits(.success(hits)))
            }
        }
    }

    func remove(_ id: UUID, hostID: UUID) {
        let (mailbox, locations) = (self.mailbox, context.locations)
        BackgroundThread.start(name: "sshelf-recordings-rm") { [self] in
            let short = Recordings.shortID(id)
            do {
                guard let opened = vault.opened() else { throw ShelfError(.notFound, "this device has no vault") }
                let file = try RecordingCatalog.find(id.uuidString, locations: locations)
                try Recordings.remove(file.id, path: file.path, by: "tui", vault: try opened.get())
                mailbox.post(.recordingRemoved(hostID: hostID, .success("removed recording \(short)")))
            } catch {
                let message = "recording \(short) was not removed: \(ShelfError(from: error).message)"
                mailbox.post(.recordingRemoved(hostID: hostID, .failure(OperationFailure(message))))
            }
        }
    }

    /// Leaves curses, runs `sshelf play ID --hold` on this terminal, comes back; answers the line to show.
    func play(_ id: UUID, from: Double?, terminal: Terminal) -> Notice {
        let short = Recordings.shortID(id)
        var argv = [SelfProcess.path, "play", id.uuidString.lowercased(), "--hold"]
        if let from { argv += ["--from", TextFormat.fixed(from, places: 3)] }
        terminal.suspend()
        // Ctrl-C is a key for the player (raw mode), not a signal that ends the TUI behind it.
        let previousInt = signal(SIGINT, SIG_IGN)
        let exit = ChildProcess.spawn(argv, stdin: 0, stdout: 1, stderr: 2, environment: context.environment)
            .map { ChildProcess.wait($0) }
        signal(SIGINT, previousInt)
        // The replay was drawn on the terminal's normal screen, which curses' alternate screen hides but keeps: it is
        // cleared now, or the next session or replay would start on top of this one's last screen.
        let clear: [UInt8] = Array("\u{1B}[H\u{1B}[2J".utf8)
        _ = clear.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
        terminal.resume()
        switch exit {
        case .success(0): return Notice("played recording \(short)")
        case .success(let code): return Notice("recording \(short) did not play (exit \(code))", isError: true)
        case .failure(let error):
            return Notice("recording \(short) did not play: \(TUIErrorLine.text(error))", isError: true)
        }
    }
}
