// RecordChoice: whether `sshelf connect` records this session — --record and --no-record first, then the host's
// setting (its own or its groups'); `ask` asks on the terminal, and without one the session is not recorded (said
// on stderr). docs/SESSIONS.md.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore

enum RecordChoice {
    struct Options: CommandOptions {
        let record = Flag("record", "record this session whatever the host's setting (see 'sshelf sessions')")
        let noRecord = Flag("no-record", "do not record this session, whatever the host's setting")
        let recordInput = Flag(
            "record-input",
            "with a recording: keep typed keys too, once the server echoed them (never what is typed with echo off)")
    }

    /// True when the session is to be recorded.
    static func decide<O>(
        _ call: Call<O>, _ group: KeyPath<O, Options>, host: ShelfCore.Host, store: Store, context: AppContext
    ) throws -> Bool {
        let record = call[group.appending(path: \.record)], noRecord = call[group.appending(path: \.noRecord)]
        if record && noRecord {
            throw ShelfError(.usage, "--record and --no-record contradict each other", hint: "leave out one of them")
        }
        if record { return true }
        if noRecord { return false }
        switch try SessionRecording.setting(for: host, in: store) {
        case .off: return false
        case .on: return true
        case .ask:
            let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
            guard tty >= 0 else {
                context.errorOutput("sshelf: not recording: the host asks first, and there is no terminal to ask on\n")
                return false
            }
            defer { close(tty) }
            let question = "Record this session to \(Display.safe(host.name))? [y/N] "
            _ = question.withCString { write(tty, $0, strlen($0)) }
            var answer: [UInt8] = []
            var byte: UInt8 = 0
            while read(tty, &byte, 1) == 1, byte != 0x0A { answer.append(byte) }
            let word = String(decoding: answer, as: UTF8.self).trimmingSpaces().lowercased()
            return word == "y" || word == "yes"
        }
    }
}
