// ValueKind: what an option's text is read as — a port, a number of seconds in a range, a span such as 30d, a size,
// one of a few words, an open file descriptor, text — and the one error a bad value gets: what is wrong
// ("--port: '70000' is not a port (1-65535)") and what to give instead (examples, or the words it takes).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations

/// How a bad value is described: `--NAME: 'TEXT' is not WHAT`, or `--NAME: unknown NOUN 'TEXT'` for words.
enum BadValue: Sendable {
    case isNot(String)
    case unknown(String)
}

struct ValueKind<Value: Sendable>: Sendable {
    /// The table's placeholder (`PORT`), unless the option names its own.
    var placeholder: String
    var completion: OptionSpec.Completion = .none
    var wrong: BadValue
    /// Good values to show in the hint (`e.g. --keep 12h, 30d or 8w`); none: no example.
    var examples: [String] = []
    /// The hint instead of examples (the words a choice takes).
    var hint: String? = nil
    var read: @Sendable (String) -> Value?

    func parse(_ text: String, option name: String) throws(ShelfError) -> Value {
        if let value = read(text) { return value }
        let shown = Display.safe(text)
        let message =
            switch wrong {
            case .isNot(let what): "--\(name): '\(shown)' is not \(what)"
            case .unknown(let noun): "--\(name): unknown \(noun) '\(shown)'"
            }
        // e.g. --keep 12h, 30d or 8w
        let listed =
            examples.count > 1
            ? examples.dropLast().joined(separator: ", ") + " or " + (examples.last ?? "") : examples.first
        throw ShelfError(.invalid, message, hint: hint ?? listed.map { "e.g. --\(name) \($0)" })
    }

    /// The same kind, read as another type (a port as `UInt16`, a setting wrapped in an enum).
    func map<Other>(_ transform: @escaping @Sendable (Value) -> Other?) -> ValueKind<Other> {
        let read = self.read
        return ValueKind<Other>(
            placeholder: placeholder, completion: completion, wrong: wrong, examples: examples, hint: hint,
            read: { text in read(text).flatMap(transform) })
    }
}

extension ValueKind where Value == String {
    /// Any text, as given.
    static func text(_ placeholder: String, completion: OptionSpec.Completion = .none) -> Self {
        ValueKind(placeholder: placeholder, completion: completion, wrong: .isNot("text"), read: { $0 })
    }

    /// A path on this machine (the shell completes files).
    static func path(_ placeholder: String = "PATH") -> Self { text(placeholder, completion: .file) }
}

extension ValueKind where Value == Int {
    static let port = ValueKind(
        placeholder: "PORT", wrong: .isNot("a port (1-65535)"), examples: ["22", "2222"],
        read: { text in
            guard text.allSatisfy(\.isNumber), let port = Int(text), (1...65535).contains(port) else { return nil }
            return port
        })

    /// A whole number of seconds in `range` (`--idle 600`).
    static func seconds(_ range: ClosedRange<Int>, placeholder: String = "SECONDS") -> Self {
        ValueKind(
            placeholder: placeholder,
            wrong: .isNot("a number of seconds (\(range.lowerBound)-\(range.upperBound))"),
            examples: [String(min(max(range.lowerBound, 60), range.upperBound))],
            read: { text in
                guard let value = Int(text), range.contains(value) else { return nil }
                return value
            })
    }

    /// A whole count in `range` (`--benchmark-seed 100000`).
    static func count(_ range: ClosedRange<Int>, placeholder: String = "N", examples: [String] = []) -> Self {
        ValueKind(
            placeholder: placeholder,
            wrong: .isNot("a whole number from \(range.lowerBound) to \(range.upperBound)"), examples: examples,
            read: { text in
                guard let value = Int(text), range.contains(value) else { return nil }
                return value
            })
    }

    /// A size with its unit, in bytes: 500M, 2G (K, M, G, T: powers of 1024).
    static let size = ValueKind(
        placeholder: "SIZE", wrong: .isNot("a size"), examples: ["500M", "2G"],
        read: { text in
            let units: [Character: Double] = ["K": 1024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
            guard let unit = text.uppercased().last, let per = units[unit], let count = Double(text.dropLast()),
                count > 0, count * per < Double(Int.max)
            else { return nil }
            return Int(count * per)
        })
}

extension ValueKind where Value == Double {
    /// A number of seconds, fractions allowed, more than 0 and at most `most` (`--timeout 2.5`).
    static func seconds(atMost most: Double, placeholder: String = "SECONDS") -> Self {
        ValueKind(
            placeholder: placeholder, wrong: .isNot("a number of seconds (more than 0, at most \(Int(most)))"),
            examples: ["2.5", "10"],
            read: { text in
                guard let value = Double(text), value.isFinite, value > 0, value <= most else { return nil }
                return value
            })
    }

    /// A number: more than 0 when `positive`, else 0 or more (`--speed 2`, `--from 0`).
    static func number(positive: Bool, placeholder: String, examples: [String] = []) -> Self {
        ValueKind(
            placeholder: placeholder, wrong: .isNot(positive ? "a positive number" : "a number"), examples: examples,
            read: { text in
                guard let value = Double(text), value.isFinite, positive ? value > 0 : value >= 0 else { return nil }
                return value
            })
    }
}

/// A span written with its unit (30m, 12h, 7d; a bare number is seconds where `bare` allows it), in seconds.
enum Span {
    static func seconds(_ text: String, units: [Character: Double], bare: Bool) -> Double? {
        let trimmed = text.trimmingSpaces().lowercased()
        if let unit = trimmed.last, let scale = units[unit], let number = Double(trimmed.dropLast()),
            number.isFinite, number >= 0
        {
            return number * scale
        }
        guard bare, let number = Double(trimmed), number.isFinite, number >= 0 else { return nil }
        return number
    }

    static let minutesToDays: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    static let hoursToWeeks: [Character: Double] = ["h": 3600, "d": 86_400, "w": 604_800]

    static func words(_ seconds: Double) -> String {
        let units: [(String, Double)] = [("d", 86_400), ("h", 3600), ("m", 60)]
        let unit = units.first { seconds >= $0.1 && seconds.truncatingRemainder(dividingBy: $0.1) == 0 }
        return unit.map { "\(Int(seconds / $0.1))\($0.0)" } ?? "\(Int(seconds))s"
    }
}

extension ValueKind where Value == Double {
    /// A span between `range`'s bounds, in seconds: `--expires 30m`, 1h, 2d, or a bare number of seconds.
    static func span(_ range: ClosedRange<Double>, examples: [String], placeholder: String = "DURATION") -> Self {
        ValueKind(
            placeholder: placeholder,
            wrong: .isNot("a duration between \(Span.words(range.lowerBound)) and \(Span.words(range.upperBound))"),
            examples: examples,
            read: { text in
                guard let value = Span.seconds(text, units: Span.minutesToDays, bare: true), range.contains(value)
                else { return nil }
                return value
            })
    }

    /// An age in hours, days or weeks, more than 0 (`--keep 30d`).
    static let age = ValueKind(
        placeholder: "AGE", wrong: .isNot("an age"), examples: ["12h", "30d", "8w"],
        read: { text in
            guard let value = Span.seconds(text, units: Span.hoursToWeeks, bare: false), value > 0 else { return nil }
            return value
        })
}

extension ValueKind where Value == UInt64 {
    /// How long a certificate is valid: 30m, 8h, 7d (a bare number is seconds), from 1m to 366d.
    static let validity = ValueKind<Double>.span(
        60...Double(CertificateAuthorities.longestValidity), examples: ["30m", "8h", "7d"]
    ).map { UInt64($0) }
}

extension ValueKind where Value == Date {
    /// A date (local time, or with Z) or a span back from now: `--since 2025-01-31`, `--since 12h`.
    static let since = ValueKind(
        placeholder: "WHEN", wrong: .isNot("a date or a span"), examples: ["2025-01-31", "2025-01-31T08:00", "12h"],
        read: { LogCommands.since($0, now: Date()) })
}

extension ValueKind where Value == Int32 {
    /// A file descriptor open in this process (`--passphrase-fd 3` with `3<file` in the shell).
    static let descriptor = ValueKind(
        placeholder: "N", wrong: .isNot("an open file descriptor"), examples: ["3 with 3<file in the shell"],
        read: { text in
            guard let fd = Int32(text), fd >= 0, fcntl(fd, F_GETFD) != -1 else { return nil }
            return fd
        })
}

extension ValueKind {
    /// One of a few words (`--pq require|off`): a word outside them is `unknown NOUN`, with the words as the hint
    /// unless `hint` says more.
    static func choice(
        _ words: [(String, Value)], noun: String = "value", placeholder: String? = nil, hint: String? = nil
    ) -> Self {
        let names = words.map(\.0)
        let table = Dictionary(words, uniquingKeysWith: { first, _ in first })
        return ValueKind(
            placeholder: placeholder ?? names.joined(separator: "|"), completion: .words(names),
            wrong: .unknown(noun), hint: hint ?? "one of: \(names.joined(separator: ", "))",
            read: { table[$0] })
    }
}

/// `--record`'s word: a setting of the host's (or group's) own, or `group` to take its group's (its parent's).
enum RecordWord: Sendable {
    case own(RecordSetting), asGroup

    var setting: RecordSetting? {
        if case .own(let setting) = self { return setting }
        return nil
    }
}

extension ValueKind where Value == RecordWord {
    static let recordSetting = ValueKind.choice(
        [("off", .own(.off)), ("on", .own(.on)), ("ask", .own(.ask)), ("group", .asGroup)],
        hint: "one of: off, on, ask, or group (as its group)")
}

extension ValueKind where Value: OpenEnum {
    /// One of an open enum's known cases, read as `OpenEnum.parseKnown` reads what a user types (case, - and _
    /// ignored: keyboard-interactive is keyboardInteractive); the shell completes the cases as stored.
    static func known(noun: String = "value", placeholder: String, hint: String? = nil) -> Self {
        let names = Value.knownCases.map(\.rawValue)
        return ValueKind(
            placeholder: placeholder, completion: .words(names), wrong: .unknown(noun),
            hint: hint ?? "one of: \(names.joined(separator: ", "))", read: { Value.parseKnown($0) })
    }
}

extension ValueKind where Value == PostQuantumSetting {
    static let postQuantum = ValueKind.known(
        placeholder: "require|off",
        hint: "--pq require (sessions only through OpenSSH, post-quantum key exchange) or --pq off")
}

extension ValueKind where Value == AuthMethod {
    static let authMethod = ValueKind.known(noun: "method", placeholder: "METHOD")
}
