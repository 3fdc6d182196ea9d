// LocalTime: dates as people read and type them, in the local time zone (`2025-01-31 08:00:00`), with C's
// localtime_r/mktime — DateFormatter is not in FoundationEssentials.
import FoundationEssentials
import Glibc
import ShelfCore

enum LocalTime {
    /// `date` as `yyyy-MM-dd HH:mm:ss` in the local time zone.
    static func text(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return ISO8601.format(date) }
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `2025-01-31`, `2025-01-31T08:00`, `2025-01-31T08:00:00` (local time) or the last with a zone (`Z`, `+01:00`).
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ at: Int, _ width: Int) -> Int? {
            guard at + width <= bytes.count, bytes[at..<at + width].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            return bytes[at..<at + width].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        func isByte(_ at: Int, _ character: Character) -> Bool { at < bytes.count && bytes[at] == character.asciiValue }
        guard let year = number(0, 4), isByte(4, "-"), let month = number(5, 2), isByte(7, "-"), let day = number(8, 2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0, end = 10
        if bytes.count > 10 {
            guard isByte(10, "T"), let h = number(11, 2), isByte(13, ":"), let m = number(14, 2), h < 24, m < 60
            else { return nil }
            (hour, minute, end) = (h, m, 16)
            if isByte(16, ":") {
                guard let s = number(17, 2), s < 61 else { return nil }
                (second, end) = (s, 19)
            }
        }
        var offset: Int?
        if end == 19 && bytes.count > 19 {
            if isByte(19, "Z") && bytes.count == 20 {
                offset = 0
            } else if isByte(19, "+") || isByte(19, "-"), let h = number(20, 2), isByte(22, ":"), let m = number(23, 2),
                bytes.count == 25
            {
                offset = (h * 3600 + m * 60) * (isByte(19, "-") ? -1 : 1)
            } else {
                return nil
            }
        } else if bytes.count != end {
            return nil
        }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
        (parts.tm_hour, parts.tm_min, parts.tm_sec, parts.tm_isdst) = (Int32(hour), Int32(minute), Int32(second), -1)
        if let offset { return Date(timeIntervalSince1970: Double(timegm(&parts) - offset)) }
        let seconds = mktime(&parts)
        return seconds == -1 ? nil : Date(timeIntervalSince1970: Double(seconds))
    }
}
