// SnippetEscape: `~s` inside a session of sshelf's own client — a small picker on the local terminal (raw mode, the
// session paused): the snippets listed, chosen by number or by typing part of a name or tag, each parameter asked
// with its default, and the filled-in command handed back to be typed into the session (not run: Enter is yours).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations

public enum SnippetEscape {
    /// The picker for `ShellOptions.snippetPicker`: `load` reads the snippets when `~s` is typed (one saved or synced
    /// during the session is there).
    public static func picker(_ load: @escaping @Sendable () throws -> [Snippet]) -> @Sendable (Int32, Int32) -> [UInt8]
    {
        { input, output in
            var terminal = PickerTerminal(input: input, output: output)
            return pick(load, on: &terminal).map { Array($0.utf8) } ?? []
        }
    }

    static func pick(_ load: () throws -> [Snippet], on terminal: inout PickerTerminal) -> String? {
        let snippets: [Snippet]
        do { snippets = try load() } catch {
            terminal.say("sshelf: the snippets could not be read: \(Display.safe("\(error)"))")
            return nil
        }
        guard !snippets.isEmpty else {
            terminal.say("sshelf: no snippets yet; save one with: sshelf snippet add NAME -- 'COMMAND {{param}}'")
            return nil
        }
        var shown = snippets
        terminal.say("sshelf snippets (a number, or part of a name or tag; Enter picks, Esc cancels):")
        while true {
            list(shown, on: &terminal)
            guard let typed = terminal.readLine(prompt: "snippet: ") else { return cancelled(&terminal) }
            let word = typed.trimmingSpaces()
            var chosen: Snippet?
            if let number = Int(word), (1...shown.count).contains(number) {
                chosen = shown[number - 1]
            } else if word.isEmpty, shown.count == 1 {
                chosen = shown[0]
            } else if !word.isEmpty {
                let folded = word.lowercased()
                let exact = snippets.filter { $0.name.lowercased() == folded }
                let matching = snippets.filter {
                    $0.name.lowercased().contains(folded) || $0.tags.contains { $0.lowercased().contains(folded) }
                }
                if exact.count == 1 || matching.count == 1 {
                    chosen = exact.count == 1 ? exact[0] : matching[0]
                } else if matching.isEmpty {
                    terminal.say("no snippet matches '\(Display.safe(word))'")
                } else {
                    shown = matching
                }
            }
            guard let snippet = chosen else { continue }
            guard let command = fill(snippet, on: &terminal) else { return cancelled(&terminal) }
            terminal.say("")
            return command
        }
    }

    /// Each parameter asked for, its default in brackets (Enter takes it); one without a default is asked again.
    static func fill(_ snippet: Snippet, on terminal: inout PickerTerminal) -> String? {
        // Nothing is typed into the session that breaks a snippet's rules (a control character came by sync).
        guard snippet.unusable == nil, let template = try? SnippetTemplate(snippet.command) else {
            terminal.say(
                "snippet '\(Display.safe(snippet.name))' cannot be used: \(Display.safe(snippet.unusable ?? "?")); "
                    + "see: sshelf snippet show")
            return nil
        }
        var values: [String: String] = [:]
        for parameter in template.parameters {
            while values[parameter.name] == nil {
                let prompt = parameter.name + (parameter.defaultValue.map { " [\(Display.safe($0))]" } ?? "") + ": "
                guard let typed = terminal.readLine(prompt: prompt) else { return nil }
                if !typed.isEmpty {
                    values[parameter.name] = typed
                } else if let defaultValue = parameter.defaultValue {
                    values[parameter.name] = defaultValue
                } else {
                    terminal.say("'\(parameter.name)' has no default: type a value (Esc cancels)")
                }
            }
        }
        do { return try template.filled(values) } catch {
            terminal.say(error.description)
            return nil
        }
    }

    static func list(_ snippets: [Snippet], on terminal: inout PickerTerminal) {
        for (index, snippet) in snippets.prefix(20).enumerated() {
            let command = snippet.command.split(separator: "\n").joined(separator: " ⏎ ")
            let shortened = command.count > 50 ? String(command.prefix(49)) + "…" : command
            terminal.say("  \(index + 1)  \(Display.safe(snippet.name))  \(Display.safe(shortened))")
        }
        if snippets.count > 20 { terminal.say("  … \(snippets.count - 20) more: type part of a name") }
    }

    static func cancelled(_ terminal: inout PickerTerminal) -> String? {
        terminal.say("(no snippet typed)")
        return nil
    }
}

/// The local terminal while the picker has it: already raw (the session set it so), so lines end in CR LF and the
/// picker echoes and edits what is typed itself.
struct PickerTerminal {
    let input: Int32
    let output: Int32

    func say(_ line: String) { write(Array(("\r\n" + line).utf8)) }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    /// A line typed after `prompt` (Backspace and Ctrl-U edit it); nil on Esc, Ctrl-C, Ctrl-D or the input's end.
    func readLine(prompt: String) -> String? {
        write(Array(("\r\n" + prompt).utf8))
        var line: [UInt8] = []
        while let byte = readByte() {
            switch byte {
            case 0x0D, 0x0A: return String(decoding: line, as: UTF8.self)
            case 0x1B, 0x03, 0x04: return nil
            case 0x7F, 0x08:
                guard !line.isEmpty else { continue }
                // One character: a UTF-8 lead byte and its continuation bytes.
                while let last = line.popLast(), last & 0xC0 == 0x80 {}
                write(Array("\u{8} \u{8}".utf8))
            case 0x15:
                write(Array(repeating: UInt8(0x08), count: line.count) + Array(repeating: 0x20, count: line.count))
                write(Array(repeating: UInt8(0x08), count: line.count))
                line = []
            case _ where (byte >= 0x20 || byte == 0x09) && line.count < Validation.maxSnippetCommandLength:
                line.append(byte)
                write([byte])
            default: continue
            }
        }
        return nil
    }

    private func readByte() -> UInt8? {
        while true {
            var ready = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, -1)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { return nil }
            var byte: UInt8 = 0
            let count = Glibc.read(input, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            return nil
        }
    }
}
