// OpenSSHInput: the input of OpenSSH's ssh in a fleet run handed over (OpenSSHFleet) — /dev/null, or for `run --sudo`
// a pipe only sshelf writes to: the sudo password typed into it once, when the host's terminal shows the marker
// sudo was told to print (FleetSudo), and Ctrl-C there if sudo asks again, ssh then stopped. The password goes from
// guarded memory into the pipe to ssh (which sends it over the channel it opened after verifying the host's key
// against the pin and logging in): never in ssh's arguments, its environment or a file.
import Glibc
import ShelfOperations
import ShelfSystem

struct OpenSSHInput {
    private let sudo: FleetSudo?
    private var watch: PromptWatch?
    private var prompts = 0
    private(set) var readEnd: Int32?
    private var writeEnd: Int32 = -1
    /// sudo asked a second time: the password was refused, and ssh stopped.
    private(set) var refused = false

    init(sudo: FleetSudo?) {
        self.sudo = sudo
        watch = sudo.map { PromptWatch(marker: $0.marker) }
    }

    /// ssh's output is watched for sudo's marker.
    var watches: Bool { sudo != nil }

    /// The pipe made, for a run under sudo (false: it could not be, errno says why).
    mutating func open() -> Bool {
        guard sudo != nil else { return true }
        var ends: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&ends) == 0 else { return false }
        readEnd = ends[0]
        writeEnd = ends[1]
        return true
    }

    /// ssh has its copy of the read end.
    mutating func closeReadEnd() {
        if let readEnd { Glibc.close(readEnd) }
        readEnd = nil
    }

    mutating func close() {
        closeReadEnd()
        if writeEnd >= 0 { Glibc.close(writeEnd) }
        writeEnd = -1
    }

    /// A chunk of the host's terminal output: the output with the marker taken out. At the first marker the
    /// password is typed; at a second, Ctrl-C, the input closed and ssh stopped.
    mutating func read(_ chunk: UnsafeRawBufferPointer, stop child: StoppableChild) -> [UInt8] {
        guard let sudo, var seen = watch else { return Array(chunk) }
        let (kept, asked) = seen.feed(chunk)
        watch = seen
        guard asked > 0, writeEnd >= 0 else { return kept }
        prompts += asked
        if prompts == 1 {
            sudo.type(into: writeEnd)
        } else {
            var interrupt: UInt8 = 0x03
            _ = write(writeEnd, &interrupt, 1)
            Glibc.close(writeEnd)
            writeEnd = -1
            refused = true
            child.stop()
        }
        return kept
    }

    /// The end of the output: what was held back as a possible start of the marker was not one.
    mutating func finish() -> [UInt8] {
        guard var seen = watch else { return [] }
        defer { watch = seen }
        return seen.finish()
    }
}
