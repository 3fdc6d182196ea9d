// CopyFiles: what the `cp` tests make and look at — files of random bytes, a path's permission bits, the temporary
// files (.part) in a folder, and a folder's listing or files' modes as the host shows them over SSH.
import Foundation
import TestSupport
import XCTest

enum CopyFiles {
    /// A file of `count` bytes that are not all the same (so a misplaced block shows), with `mode`.
    @discardableResult
    static func make(_ path: String, count: Int, mode: mode_t = 0o644) throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, mode), 0)
        return data
    }

    /// A sparse file of `size` bytes (it costs nothing to make or to read, and a copy of it takes a while).
    static func sparse(_ path: String, size: Int) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        chmod(path, 0o644)
        XCTAssertEqual(truncate(path, size), 0)
    }

    /// The permission bits of `path` (setuid, setgid and sticky included), as stat gives them.
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    /// The temporary files (`.part`) in `directory`.
    static func parts(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".part") }
    }

    /// The size of `path`, 0 when it is gone.
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// What `command` prints on host `host`, run over SSH by `sshelf run`.
    static func remote(_ world: FleetWorld, _ host: String, _ command: String) throws -> String {
        let result = try world.home.run("run", host, "--json", "--", command)
        XCTAssertExit(result, 0)
        return try XCTUnwrap(try FleetWorld.jsonLines(result.stdout)[host]?["stdout"] as? String, result.stdout)
    }

    /// The temporary files in `directory`, listed on `host` over SSH.
    static func remoteParts(_ world: FleetWorld, _ host: String, _ directory: String) throws -> [String] {
        try remote(world, host, "ls -a '\(directory)'").split(separator: "\n").map(String.init)
            .filter { $0.hasSuffix(".part") }
    }

    /// `path`'s permission bits on `host` (stat over SSH), in octal as stat prints them.
    static func remoteMode(_ world: FleetWorld, _ host: String, _ path: String) throws -> String {
        try remote(world, host, "stat -c %a '\(path)'").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
