// PackageTests: the Debian package `make deb` builds (make test hands its path over in SSHELF_DEB) holds what a
// user needs, names every library the binary opens in Depends, passes lintian without errors, resolves for
// `apt install ./sshelf_*.deb` on this machine, and runs from a scratch root with no Swift toolchain on PATH.
import Foundation
import TestSupport
import XCTest

final class PackageTests: XCTestCase {
    var deb: String = ""

    override func setUpWithError() throws {
        let path = ProcessInfo.processInfo.environment["SSHELF_DEB"] ?? ""
        try skip(if: path.isEmpty, "SSHELF_DEB is unset: make test builds the package (make deb) and sets it")
        deb = URL(fileURLWithPath: path).standardizedFileURL.path
        XCTAssertTrue(FileManager.default.fileExists(atPath: deb), "\(deb) was not built")
    }

    func testThePackageHoldsTheProgramItsManPageAndCompletions() throws {
        let contents = try Shell.run(TestTool.dpkgDeb.path, ["--contents", deb])
        for path in [
            "./usr/bin/sshelf", "./usr/share/man/man1/sshelf.1.gz",
            "./usr/share/bash-completion/completions/sshelf", "./usr/share/zsh/vendor-completions/_sshelf",
            "./usr/share/fish/vendor_completions.d/sshelf.fish", "./usr/share/doc/sshelf/copyright",
        ] {
            XCTAssertTrue(contents.contains(" " + path + "\n"), "\(path) is missing:\n\(contents)")
        }
        XCTAssertTrue(contents.contains("-rwxr-xr-x root/root"), "files are root's:\n\(contents)")
    }

    /// Depends names the libraries loaded at start and those opened on first use (dlopen, which dpkg-shlibdeps
    /// cannot see): a package without libssh2 would install and then fail at the first connect.
    func testDependsNamesEveryLibraryTheBinaryOpens() throws {
        let depends = try Shell.run(TestTool.dpkgDeb.path, ["--field", deb, "Depends"])
        for package in ["libc6", "libncursesw6", "libtinfo6", "libssh2-1", "libssl3", "libsodium23"] {
            XCTAssertTrue(
                depends.split(separator: ",").contains {
                    $0.trimmingCharacters(in: .whitespaces)
                        .hasPrefix(package)
                }, "Depends lacks \(package): \(depends)")
        }
    }

    /// Recommends names what sshelf runs when it is there: OpenSSH's ssh (the hand-over) and tmux (windows,
    /// broadcast, `w` in the TUI).
    func testRecommendsNamesOpenSSHAndTmux() throws {
        let recommends = try Shell.run(TestTool.dpkgDeb.path, ["--field", deb, "Recommends"])
        let names = recommends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertTrue(names.contains("openssh-client"), recommends)
        XCTAssertTrue(names.contains("tmux"), recommends)
    }

    /// The copyright file states the repository's licence as Debian's machine-readable format expects: Apache-2.0,
    /// pointing at the text Debian ships, and LICENSE at the top of the repository is the licence's whole text.
    func testTheCopyrightFileStatesTheLicence() throws {
        let home = TempHome()
        try Shell.run(TestTool.dpkgDeb.path, ["--extract", deb, home.root + "/unpacked"])
        let copyright = try String(
            contentsOfFile: home.root + "/unpacked/usr/share/doc/sshelf/copyright", encoding: .utf8)
        XCTAssertTrue(copyright.contains("\nLicense: Apache-2.0\n"), copyright)
        XCTAssertTrue(copyright.contains("/usr/share/common-licenses/Apache-2.0"), copyright)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let licence = try String(contentsOf: repository.appendingPathComponent("LICENSE"), encoding: .utf8)
        XCTAssertTrue(licence.contains("Apache License\n                           Version 2.0, January 2004"), licence)
        XCTAssertTrue(licence.contains("END OF TERMS AND CONDITIONS"), "the whole text, not a summary")
    }

    func testLintianFindsNoError() throws {
        let report = try CLI.run(
            [
                "-c", "exec \"$0\" --fail-on error --no-tag-display-limit \"$1\" 2>&1", TestTool.lintian.path,
                deb,
            ], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], shell: true)
        XCTAssertExit(report, 0)
        XCTAssertFalse(report.stdout.split(separator: "\n").contains { $0.hasPrefix("E: ") }, report.stdout)
    }

    /// What `apt install ./sshelf_*.deb` would do here, without changing the machine: every dependency resolves.
    func testAptCanInstallIt() throws {
        let simulated = try CLI.run(
            [
                "-c", "exec \"$0\" install --simulate --no-install-recommends \"$1\" 2>&1",
                TestTool.aptGet.path, deb,
            ], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
            shell: true)
        XCTAssertExit(simulated, 0)
        XCTAssertTrue(
            simulated.stdout.contains("Inst sshelf ") || simulated.stdout.contains("Conf sshelf "),
            simulated.stdout)
    }

    /// Unpacked into a scratch root and run from there, with only the system's folders on PATH and no library path:
    /// the binary needs nothing of the toolchain.
    func testTheUnpackedProgramRunsWithoutTheToolchain() throws {
        let home = TempHome()
        let root = home.root + "/unpacked"
        try Shell.run(TestTool.dpkgDeb.path, ["--extract", deb, root])
        let binary = [root, "usr", "bin", "sshelf"].joined(separator: "/")
        let dynamic = try Shell.run(TestTool.readelf.path, ["--dynamic", binary])
        XCTAssertFalse(
            dynamic.contains("libswift") || dynamic.contains("libFoundation") || dynamic.contains("RUNPATH"),
            dynamic)
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home.home, "SSHELF_HOME": home.sshelfHome, "LANG": "C.UTF-8",
            "NO_COLOR": "1",
        ]
        let version = try CLI.run(["--version"], environment: environment, program: binary)
        XCTAssertExit(version, 0)
        XCTAssertTrue(version.stdout.hasPrefix("sshelf "), version.stdout)
        XCTAssertExit(
            try CLI.run(
                ["add", "web1", "--host", "web1.example.com"], environment: environment,
                program: binary), 0)
        let listed = try CLI.run(["list"], environment: environment, program: binary)
        XCTAssertExit(listed, 0)
        XCTAssertTrue(listed.stdout.contains("web1"), listed.stdout)
    }
}
