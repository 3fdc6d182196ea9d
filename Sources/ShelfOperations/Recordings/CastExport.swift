// CastExport: a recording written as an asciinema v2 file (`sessions export --cast`) — the user's explicit
// decision to write it in plaintext: a header line (version, size, start, title) and one JSON array per event,
// [seconds, "o"|"i"|"r", text]. The file is created new, 0600, never over an existing one.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfVault

public enum CastExport {
    /// Writes the recording at `file` to `destination`; answers how many events were written.
    @discardableResult
    public static func write(_ file: (id: UUID, path: String), key: RecordingsKey, to destination: String) throws -> Int
    {
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw ShelfError(
                code == EEXIST ? .invalid : .storage,
                "cannot create \(destination): \(String(cString: strerror(code)))",
                hint: code == EEXIST ? "choose another file name, or remove that file first" : nil)
        }
        _ = fchmod(fd, 0o600)
        var written = 0
        var output = UTF8Carry()
        var input = UTF8Carry()
        var buffer: [UInt8] = []
        func line(_ text: String) {
            buffer += Array(text.utf8)
            buffer.append(0x0A)
            if buffer.count > 1 << 20 { flush() }
        }
        func flush() {
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { return }
                    offset += count
                }
            }
            buffer = []
        }
        func event(_ time: Double, _ kind: String, _ text: String) {
            line("[\(TextFormat.fixed(time, places: 3)), \"\(kind)\", \(jsonString(text))]")
            written += 1
        }
        do {
            try Recordings.read(file.path, id: file.id, key: key) { recorded in
                switch recorded {
                case .info(let info):
                    let title = jsonString(info.host)
                    line(
                        "{\"version\": 2, \"width\": \(info.columns), \"height\": \(info.rows), "
                            + "\"timestamp\": \(Int(info.started)), \"title\": \(title)}")
                case .output(let time, let bytes): event(time, "o", output.text(bytes))
                case .input(let time, let bytes): event(time, "i", input.text(bytes))
                case .resize(let time, let columns, let rows): event(time, "r", "\(columns)x\(rows)")
                case .end: break
                }
                return true
            }
            flush()
        } catch {
            close(fd)
            unlink(destination)
            throw error
        }
        _ = fsync(fd)
        close(fd)
        return written
    }

    /// `text` as a JSON string literal (RFC 8259: quote, backslash and controls escaped).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + TextFormat.hex(scalar.value, width: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Bytes to text across pieces: a character split between two events is written whole with the second.
struct UTF8Carry {
    private var held: [UInt8] = []

    mutating func text(_ bytes: [UInt8]) -> String {
        let all = held + bytes
        var end = all.count
        // Hold back an incomplete character at the end (at most three bytes).
        var back = 0
        while back < min(3, all.count) {
            let byte = all[all.count - 1 - back]
            if byte & 0xC0 != 0x80 {
                let need = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if need > back + 1 { end = all.count - 1 - back }
                break
            }
            back += 1
        }
        held = Array(all[end...])
        return String(decoding: all[..<end], as: UTF8.self)
    }
}
