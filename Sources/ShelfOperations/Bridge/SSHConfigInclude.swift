// SSHConfigInclude: the one line `ssh-config install` puts at the top of ~/.ssh/config (`Include` of the bridge) and
// `uninstall` takes out again. Every other byte of the user's file stays as it was (line endings, a missing final
// newline, its mode); a copy is saved beside it before each change; a symlinked config (a dotfiles manager's) is
// changed where the link points. A missing ~/.ssh (0700) and config (0600) are created.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public struct SSHConfigInclude: Sendable {
    /// The user's config (~/.ssh/config).
    public let configPath: String
    /// The bridge it includes.
    public let bridgePath: String
    let home: String

    public init(home: String, bridgePath: String) {
        configPath = home + "/.ssh/config"
        self.bridgePath = bridgePath
        self.home = home
    }

    /// The line as written: `Include /path` (quoted when the path has a space).
    public var line: String { "Include \(SSHConfigEmitter.quote(bridgePath))" }
    /// Where the copy made before a change goes.
    public var backupPath: String { configPath + ".sshelf-backup" }

    public enum Outcome: Sendable, Equatable {
        case changed
        case alreadyThere
        case notThere
    }

    /// Puts the Include line first in the config (creating it when missing); nothing when it is already there.
    public func install() throws -> Outcome {
        let target = resolved()
        let current = try contents(target)
        if let current, lineRanges(current).contains(where: { isOurs(current, $0) }) { return .alreadyThere }
        var updated = Array((line + "\n").utf8)
        if let current {
            try backup(current)
            updated += current
            try write(updated, to: target, like: target)
        } else {
            try PrivateFiles.ensureDirectory(target.parentPath)
            try write(updated, to: target, like: nil)
        }
        return .changed
    }

    /// Takes every line that includes the bridge out of the config; nothing else changes.
    public func uninstall() throws -> Outcome {
        let target = resolved()
        guard let current = try contents(target) else { return .notThere }
        let ours = lineRanges(current).filter { isOurs(current, $0) }
        guard !ours.isEmpty else { return .notThere }
        try backup(current)
        var updated: [UInt8] = []
        var at = 0
        for range in ours {
            updated += current[at..<range.lowerBound]
            at = range.upperBound
        }
        updated += current[at...]
        try write(updated, to: target, like: target)
        return .changed
    }

    /// The config as it would be without the lines that include the bridge (nil when it cannot be read): what ssh
    /// reads when the bridge is not installed (`check` compares the two).
    public func withoutInclude() -> [UInt8]? {
        guard let current = try? contents(resolved()) else { return nil }
        var out: [UInt8] = []
        for range in lineRanges(current) where !isOurs(current, range) { out += current[range] }
        return out
    }

    /// Whether the config includes the bridge now.
    public var isInstalled: Bool {
        guard let current = try? contents(resolved()) else { return false }
        return lineRanges(current).contains { isOurs(current, $0) }
    }

    // MARK: lines

    /// Each line's byte range, its newline included.
    func lineRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            ranges.append(start..<(index + 1))
            start = index + 1
        }
        if start < bytes.count { ranges.append(start..<bytes.count) }
        return ranges
    }

    /// An `Include` of the bridge alone (as install writes it, or as a user would: `~/` spelt out or not).
    func isOurs(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        var text = String(decoding: bytes[range], as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        guard let lexed = try? SSHConfigLexer.lex(Substring(text), file: "", number: 0), lexed.key == "include",
            lexed.arguments.count == 1
        else { return false }
        return SSHConfigReader.expandTilde(lexed.arguments[0], home: home) == bridgePath
    }

    // MARK: files

    /// The file a change goes to: the config itself, or what it links to.
    func resolved() -> String {
        guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: configPath) else {
            return configPath
        }
        let absolute =
            destination.hasPrefix("/")
            ? destination
            : configPath.parentPath.appendingPathPart(destination)
        guard let real = realpath(absolute, nil) else { return PathText.standardized(absolute, home: home) }
        defer { free(real) }
        return String(cString: real)
    }

    func contents(_ path: String) throws -> [UInt8]? {
        guard access(path, F_OK) == 0 else { return nil }
        do { return try RegularFile.read(path, limit: 256 << 20) } catch {
            throw ShelfError(
                .failure, "cannot read \(path): \(error)", hint: "sshelf changes ~/.ssh/config only when it can read it"
            )
        }
    }

    /// Saves the config before a change — once: the first copy (the file as it was before sshelf ever changed it)
    /// is what a user who wants their old config back needs, so a later install or uninstall never replaces it.
    func backup(_ bytes: [UInt8]) throws {
        guard access(backupPath, F_OK) != 0 else { return }
        do { try PrivateFiles.atomicWrite(Data(bytes), to: backupPath) } catch {
            throw ShelfError(.failure, "cannot save a copy of \(configPath) first (\(error)); it was left as it was")
        }
    }

    /// Replaces `path` atomically, then gives it the mode `like` had (0600 for a new file).
    func write(_ bytes: [UInt8], to path: String, like original: String?) throws {
        let mode = original.flatMap(PrivateFiles.mode(of:)) ?? PrivateFiles.fileMode
        do {
            try PrivateFiles.atomicWrite(Data(bytes), to: path)
            if chmod(path, mode) != 0 {
                throw ShelfError(.failure, "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            throw ShelfError(.failure, "cannot write \(path): \(error)", hint: "the copy from before is \(backupPath)")
        }
    }
}
