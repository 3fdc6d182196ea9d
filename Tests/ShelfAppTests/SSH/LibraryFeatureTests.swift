// LibraryFeatureTests: `sshelf version --verbose` names the libssh2 it loaded, where from, and what that library can
// do, asked at run time — the same binary says "no" on Debian 12's 1.10 and "yes" on 1.11.1 (make test runs this
// against both). And the copy `make install-libssh2-1.11` puts beside the binary is the one it loads.
import Foundation
import TestSupport
import XCTest

final class LibraryFeatureTests: XCTestCase {
    private static let features = [
        "RSA keys sign with rsa-sha2-512/256", "the server's login banner is shown",
        "Ctrl-C reaches the remote command of sshelf exec as INT",
    ]

    func testVersionVerboseListsWhatTheLoadedLibraryCanDo() throws {
        let home = TempHome()
        let plain = try home.run("version")
        XCTAssertExit(plain, 0)
        let version = try XCTUnwrap(plain.stdout.split(separator: "\n").first { $0.hasPrefix("libssh2 ") }).dropFirst(8)
        XCTAssertFalse(plain.stdout.contains("features"), "only --verbose lists them: \(plain.stdout)")
        let verbose = try home.run("version", "--verbose")
        XCTAssertExit(verbose, 0)
        XCTAssertTrue(verbose.stdout.contains("libssh2 \(version) (/"), "names the file it loaded: \(verbose.stdout)")
        let newer = version.hasPrefix("1.11") || version.hasPrefix("1.12")
        XCTAssertTrue(newer || version.hasPrefix("1.10"), "a libssh2 this test knows: \(version)")
        for feature in Self.features {
            XCTAssertTrue(
                verbose.stdout.contains("  \(newer ? "yes" : "no ") \(feature)"),
                "\(feature) on \(version):\n\(verbose.stdout)")
        }
        XCTAssertTrue(verbose.stdout.contains("  ciphers: ") && verbose.stdout.contains("aes128-ctr"), verbose.stdout)
        XCTAssertEqual(
            newer, verbose.stdout.contains("aes256-gcm@openssh.com"),
            "1.11 adds AES-GCM:\n\(verbose.stdout)")
    }

    /// The server's banner is on exec's standard error where the library keeps it (1.11), never on its output.
    func testExecShowsTheServersBannerWhereTheLibraryHasIt() throws {
        let banner = FileManager.default.temporaryDirectory
            .appendingPathComponent("sshelf-banner-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: banner) }
        try "Authorised use only\n".write(toFile: banner, atomically: true, encoding: .utf8)
        var options = SSHD.Options()
        options.extraConfig = ["Banner \(banner)"]
        let world = try SSHCLIWorld(options: options)
        let newer = try world.home.run("version", "--verbose").stdout
            .contains("  yes the server's login banner is shown")
        let result = try world.home.run("exec", "t", "--accept-new", "--no-stdin", "--", "echo", "ran")
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "ran\n")
        XCTAssertEqual(result.stderr.contains("Authorised use only\n"), newer, result.stderr)
    }

    /// `make install-libssh2-1.11` puts libssh2 1.11.1 in PREFIX/lib/sshelf/ for a binary in PREFIX/bin/: it is
    /// loaded instead of the system's, without LD_LIBRARY_PATH.
    func testACopyInstalledBesideTheBinaryIsLoadedFirst() throws {
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../.build/libssh2-1.11.1/prefix/lib/libssh2.so.1"
        ).standardized.path
        guard FileManager.default.fileExists(atPath: built) else {
            throw skipped("libssh2 1.11.1 is not built (make libssh2-1.11; make test builds it)")
        }
        let home = TempHome()
        let prefix = home.root + "/prefix"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix + "/lib/sshelf", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: prefix + "/bin/sshelf")
        // The file itself (as install copies it), not the build's symlink to it.
        let file = try XCTUnwrap(realpath(built, nil))
        defer { free(file) }
        try FileManager.default.copyItem(atPath: String(cString: file), toPath: prefix + "/lib/sshelf/libssh2.so.1")
        var environment = home.environment
        environment["LD_LIBRARY_PATH"] = nil
        let result = try CLI.run(
            ["-c", "exec \"$0\" version --verbose", prefix + "/bin/sshelf"],
            environment: environment, shell: true)
        XCTAssertExit(result, 0)
        XCTAssertTrue(
            result.stdout.contains("libssh2 1.11.1 (\(prefix)/bin/../lib/sshelf/libssh2.so.1)"),
            result.stdout)
        XCTAssertTrue(result.stdout.contains("  yes RSA keys sign with rsa-sha2-512/256"), result.stdout)
    }
}
