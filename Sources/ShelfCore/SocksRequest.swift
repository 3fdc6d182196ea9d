// SocksRequest: the client side of a SOCKS5 (RFC 1928, no authentication) or SOCKS4/4a handshake, parsed from
// bytes as they arrive. Pure and bounds-checked: every length is checked before it is read, input is capped,
// and anything we do not serve gets the protocol's own refusal.
import FoundationEssentials

/// Where a SOCKS client wants to go: an IPv4 or IPv6 literal, or a name the server side resolves.
public struct SocksTarget: Hashable, Sendable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

public struct SocksParser: Sendable {
    public enum Version: Sendable, Equatable { case socks4, socks5 }

    /// What the caller does next.
    public enum Step: Sendable, Equatable {
        /// Wait for more bytes.
        case needMore
        /// Send these bytes to the client and keep feeding (the SOCKS5 method choice).
        case reply([UInt8])
        /// Open the connection; answer with `success()` or `failure()`. Bytes after the request are `leftover`.
        case connect(SocksTarget)
        /// Send `reply` (may be empty when the protocol has no way to say no) and close.
        case refuse(reply: [UInt8], reason: String)
    }

    /// The longest legal request is a SOCKS4a one: 8 bytes, a user id and a host name, each at most 255 + NUL.
    public static let maximumRequest = 8 + 256 + 256

    private enum Phase: Sendable { case start, socks5Request, socks4, done }
    private var phase = Phase.start
    private var buffer: [UInt8] = []
    public private(set) var version: Version?
    /// Bytes the client sent after its request (pipelined data for the target).
    public private(set) var leftover: [UInt8] = []

    public init() {}

    /// Adds bytes from the client and says what to do. After `.reply`, call again with no bytes: the client may
    /// have sent its request together with its greeting.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Step {
        guard phase != .done else { return .needMore }
        buffer.append(contentsOf: bytes)
        let step = parse()
        if step == .needMore, buffer.count > Self.maximumRequest { return finish(refuse("request too long")) }
        return step
    }

    /// The reply that tells the client its connection is open.
    public func success() -> [UInt8] {
        version == .socks4 ? [0, 0x5A, 0, 0, 0, 0, 0, 0] : [5, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    }

    /// The reply that tells the client the connection could not be made.
    public func failure() -> [UInt8] {
        version == .socks4 ? [0, 0x5B, 0, 0, 0, 0, 0, 0] : socks5Reply(0x05)
    }

    // MARK: parsing

    private mutating func parse() -> Step {
        switch phase {
        case .start: return parseGreeting()
        case .socks5Request: return parseSocks5Request()
        case .socks4: return parseSocks4()
        case .done: return .needMore
        }
    }

    private mutating func parseGreeting() -> Step {
        guard let first = buffer.first else { return .needMore }
        switch first {
        case 4:
            version = .socks4
            phase = .socks4
            return parseSocks4()
        case 5:
            version = .socks5
            guard buffer.count >= 2 else { return .needMore }
            let count = Int(buffer[1])
            guard buffer.count >= 2 + count else { return .needMore }
            let methods = buffer[2..<(2 + count)]
            buffer.removeFirst(2 + count)
            guard methods.contains(0) else {
                return finish(.refuse(reply: [5, 0xFF], reason: "the client offers no method without authentication"))
            }
            phase = .socks5Request
            return .reply([5, 0])
        default:
            return finish(.refuse(reply: [], reason: "not a SOCKS request (version byte \(first))"))
        }
    }

    private mutating func parseSocks5Request() -> Step {
        guard buffer.count >= 4 else { return .needMore }
        guard buffer[0] == 5 else { return finish(refuse("wrong version \(buffer[0]) in the SOCKS5 request")) }
        let command = buffer[1]
        let addressType = buffer[3]
        guard command == 1 else {
            return finish(
                .refuse(reply: socks5Reply(0x07), reason: "unsupported SOCKS command \(command) (only CONNECT)"))
        }
        let host: String
        var end: Int
        switch addressType {
        case 1:
            end = 4 + 4
            guard buffer.count >= end + 2 else { return .needMore }
            host = buffer[4..<8].map(String.init).joined(separator: ".")
        case 3:
            guard buffer.count >= 5 else { return .needMore }
            let length = Int(buffer[4])
            end = 5 + length
            guard buffer.count >= end + 2 else { return .needMore }
            guard length > 0, let name = Self.hostName(buffer[5..<end]) else {
                return finish(refuse("bad domain name"))
            }
            host = name
        case 4:
            end = 4 + 16
            guard buffer.count >= end + 2 else { return .needMore }
            host = Self.ipv6(buffer[4..<end])
        default:
            return finish(.refuse(reply: socks5Reply(0x08), reason: "unsupported address type \(addressType)"))
        }
        let port = Int(buffer[end]) << 8 | Int(buffer[end + 1])
        end += 2
        guard port > 0 else { return finish(refuse("port 0")) }
        leftover = Array(buffer[end...])
        buffer = []
        phase = .done
        return .connect(SocksTarget(host: host, port: port))
    }

    private mutating func parseSocks4() -> Step {
        guard buffer.count >= 8 else { return .needMore }
        guard buffer[1] == 1 else {
            return finish(
                .refuse(
                    reply: [0, 0x5B, 0, 0, 0, 0, 0, 0], reason: "unsupported SOCKS4 command \(buffer[1]) (only CONNECT)"
                ))
        }
        let port = Int(buffer[2]) << 8 | Int(buffer[3])
        guard let userEnd = buffer[8...].firstIndex(of: 0) else {
            return buffer.count - 8 > 256 ? finish(refuse4("user id too long")) : .needMore
        }
        var end = userEnd + 1
        let address = buffer[4..<8]
        var host = address.map(String.init).joined(separator: ".")
        // SOCKS4a: 0.0.0.x (x != 0) means "a host name follows the user id".
        if address[4] == 0, address[5] == 0, address[6] == 0, address[7] != 0 {
            guard let nameEnd = buffer[end...].firstIndex(of: 0) else {
                return buffer.count - end > 256 ? finish(refuse4("host name too long")) : .needMore
            }
            guard nameEnd > end, let name = Self.hostName(buffer[end..<nameEnd]) else {
                return finish(refuse4("bad host name"))
            }
            host = name
            end = nameEnd + 1
        }
        guard port > 0 else { return finish(refuse4("port 0")) }
        leftover = Array(buffer[end...])
        buffer = []
        phase = .done
        return .connect(SocksTarget(host: host, port: port))
    }

    // MARK: helpers

    private mutating func finish(_ step: Step) -> Step {
        phase = .done
        buffer = []
        return step
    }

    private func refuse(_ reason: String) -> Step {
        .refuse(reply: version == .socks4 ? [0, 0x5B, 0, 0, 0, 0, 0, 0] : socks5Reply(0x01), reason: reason)
    }

    private func refuse4(_ reason: String) -> Step { .refuse(reply: [0, 0x5B, 0, 0, 0, 0, 0, 0], reason: reason) }

    private func socks5Reply(_ code: UInt8) -> [UInt8] { [5, code, 0, 1, 0, 0, 0, 0, 0, 0] }

    /// A host name as DNS allows it: letters, digits, '-', '.', '_' (no spaces, controls or NULs).
    static func hostName(_ bytes: ArraySlice<UInt8>) -> String? {
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x3A
        }
        return allowed ? String(decoding: bytes, as: UTF8.self) : nil
    }

    static func ipv6(_ bytes: ArraySlice<UInt8>) -> String {
        var groups: [String] = []
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
            index += 2
        }
        return groups.joined(separator: ":")
    }
}
