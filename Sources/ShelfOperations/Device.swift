// Device: this device's name as other devices see it in `sync devices` (the host name; never synced as an id).
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public enum Device {
    public static func name() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
