// CredentialBatch: a device's credential set as it travels in an entry's sealed content — item keys, classes, times
// and values in a bounds-checked binary framing built directly in guarded memory (never a String). Key names
// included, it is sealed under the epoch's key; the remote sees its size and nothing else.
import FoundationEssentials
import ShelfCore
import ShelfVault

struct CredentialItem {
    var key: ReferenceKey
    var accessibility: AccessibilityClass
    /// When (and by whom) the value was written, or, for a deletion, deleted.
    var stamp: CredentialStamp
    var value: SecretBytes
    /// A tombstone: the item was deleted on the device that wrote the batch (the value is empty).
    var deleted = false
}

enum CredentialBatch {
    /// Version 2 adds a flags byte per item (bit 0: deleted); version 3 stamps each item with milliseconds, a
    /// counter and its author (CredentialStamp) instead of whole seconds. Version 2 is still read.
    static let magic = Array("SSHCRED3".utf8)
    static let magicV2 = Array("SSHCRED2".utf8)
    static let maxItems = 100_000
    static let maxValue = 1024 * 1024

    static func encode(_ items: [CredentialItem]) -> SecretBytes {
        var size = magic.count + 4
        for item in items {
            size +=
                2 + item.key.rawValue.utf8.count + 1 + item.accessibility.rawValue.utf8.count + 1 + 8 + 4 + 16 + 4
                + item.value.count
        }
        let out = SecretBytes(count: size)
        out.withUnsafeMutableBytes { buffer in
            var offset = 0
            func put(_ bytes: [UInt8]) {
                for byte in bytes { buffer[offset] = byte; offset += 1 }
            }
            func putInt(_ value: UInt64, _ width: Int) {
                for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
                    put([UInt8((value >> UInt64(shift)) & 0xff)])
                }
            }
            put(magic)
            putInt(UInt64(items.count), 4)
            for item in items {
                let key = Array(item.key.rawValue.utf8), cls = Array(item.accessibility.rawValue.utf8)
                putInt(UInt64(key.count), 2)
                put(key)
                putInt(UInt64(cls.count), 1)
                put(cls)
                putInt(item.deleted ? 1 : 0, 1)
                putInt(UInt64(bitPattern: item.stamp.time), 8)
                putInt(UInt64(item.stamp.counter), 4)
                put(UUID(uuidString: item.stamp.author)?.bytes ?? [UInt8](repeating: 0, count: 16))
                putInt(UInt64(item.value.count), 4)
                item.value.withUnsafeBytes { value in
                    if value.count > 0 {
                        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + value.count)]).copyMemory(
                            from: value)
                    }
                }
                offset += item.value.count
            }
        }
        return out
    }

    /// Items in a batch; refuses anything malformed, and any item of a class that never leaves its device. A
    /// version 2 batch's items are stamped with their seconds and `sender` as author.
    static func decode(_ plaintext: SecretBytes, sender: String) throws(SyncFailure) -> [CredentialItem] {
        var failure: SyncFailure?
        var items: [CredentialItem] = []
        plaintext.withUnsafeBytes { buffer in
            var offset = 0
            func take(_ count: Int) -> UnsafeRawBufferPointer? {
                guard count >= 0, offset + count <= buffer.count else { return nil }
                defer { offset += count }
                return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
            }
            func int(_ width: Int) -> UInt64? {
                guard let bytes = take(width) else { return nil }
                return bytes.reduce(0) { ($0 << 8) | UInt64($1) }
            }
            guard let head = take(magic.count), Array(head) == magic || Array(head) == magicV2, let count = int(4),
                count <= maxItems
            else {
                failure = SyncFailure("not a credential batch of this format")
                return
            }
            for _ in 0..<count {
                let stamped = Array(head) == magic
                guard let keyLength = int(2), let keyBytes = take(Int(keyLength)), let classLength = int(1),
                    let classBytes = take(Int(classLength)), let flags = int(1), let updated = int(8),
                    let counter = stamped ? int(4) : 0, let author = stamped ? take(16).map(Array.init) : [],
                    let valueLength = int(4), valueLength <= maxValue, let value = take(Int(valueLength))
                else {
                    failure = SyncFailure("credential batch is truncated")
                    return
                }
                guard let key = ReferenceKey(String(decoding: keyBytes, as: UTF8.self)),
                    let accessibility = AccessibilityClass(rawValue: String(decoding: classBytes, as: UTF8.self))
                else {
                    failure = SyncFailure("credential batch holds an item this version cannot name")
                    return
                }
                guard accessibility.mayLeaveDevice, !key.isDeviceSecret else {
                    failure = SyncFailure(
                        "credential batch holds a \(accessibility) item, which never leaves its device; refused")
                    return
                }
                let stamp =
                    stamped
                    ? CredentialStamp(
                        time: Int64(bitPattern: updated), counter: UInt32(truncatingIfNeeded: counter),
                        author: author == [UInt8](repeating: 0, count: 16) ? "" : UUID(bytes: author).lowerText)
                    : CredentialStamp(time: Int64(bitPattern: updated) &* 1000, counter: 0, author: sender)
                items.append(
                    CredentialItem(
                        key: key, accessibility: accessibility, stamp: stamp, value: SecretBytes(copying: value),
                        deleted: flags & 1 == 1))
            }
            if offset != buffer.count { failure = SyncFailure("credential batch has trailing bytes") }
        }
        if let failure { throw failure }
        return items
    }
}
