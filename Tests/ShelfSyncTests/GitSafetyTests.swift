// GitSafetyTests: a git remote is an adversary too. Hooks in a local bare repository (and in the working copy) never
// run — every hook git has for a push, a fetch, a commit or a checkout would leave a marker file; a FIFO in the bare
// repository makes the run fall back with a reason within the git time limit instead of waiting on it.
import Foundation
import ShelfSync
import TestSupport
import XCTest

final class GitSafetyTests: XCTestCase {
    static let hooks = [
        "pre-receive", "update", "post-receive", "post-update", "reference-transaction", "push-to-checkout",
        "proc-receive", "pre-push", "pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout",
        "post-merge", "post-rewrite", "pre-rebase", "pre-auto-gc", "fsmonitor-watchman",
    ]

    /// Executable hooks in `directory` that each leave a file named after themselves in `markers`.
    func plantHooks(in directory: String, markers: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for hook in GitSafetyTests.hooks {
            let path = directory + "/" + hook
            // Shell builtins only: a hook that runs leaves its marker with no program of its own.
            try "#!\(TestTool.sh.path)\n: > '\(markers)/\(hook)-'\"$$\"\nexit 0\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
    }

    func testHooksInABareRepositoryAndTheWorkingCopyNeverRun() throws {
        let repository = try makeBareRepository()
        let markers = try makeFolder("markers")
        try plantHooks(in: repository.path + "/hooks", markers: markers)
        // The repository's own configuration asks for hooks elsewhere too: still none run.
        try Shell.run(
            TestTool.git.path, ["-C", repository.path, "config", "core.hooksPath", repository.path + "/hooks"])
        try GitRemote.probe(repository.url)
        try GitRemote.probe(repository.path)
        let a = try Device("a"), b = try Device("b")
        try a.enable(git: repository.url)
        try b.enable(git: repository.path)
        _ = try a.add("from-a")
        try formGroup([a, b])
        for device in [a, b] {
            try plantHooks(in: SyncRunner.gitWorkingCopy(device.locations) + "/.git/hooks", markers: markers)
        }
        _ = try a.add("a2")
        _ = try b.add("b2")
        a.sync(); b.sync(); a.sync()
        XCTAssertNotNil(try b.host("a2"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: markers), [], "hooks ran")
    }

    func testAFIFOInTheBareRepositoryIsAFallbackNotAWait() throws {
        let repository = try makeBareRepository()
        let a = try Device("a")
        try a.enable(git: repository.url)
        _ = try a.add("kept")
        a.sync()
        let config = repository.path + "/config"
        try FileManager.default.moveItem(atPath: config, toPath: config + ".real")
        XCTAssertEqual(mkfifo(config, 0o600), 0)
        setenv("SSHELF_SYNC_GIT_SECONDS", "3", 1)
        defer { unsetenv("SSHELF_SYNC_GIT_SECONDS") }
        _ = try a.add("later")
        let started = Date()
        let report = a.sync(expect: .localFallback)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "the run waited on the FIFO")
        XCTAssertTrue(report.reason?.hasPrefix("git remote unreachable: git") == true, report.reason ?? "")
        XCTAssertTrue(report.reason?.contains("did not finish within 3 s") == true, report.reason ?? "")
        XCTAssertNotNil(try a.host("later"), "nothing local is lost")

        try FileManager.default.removeItem(atPath: config)
        try FileManager.default.moveItem(atPath: config + ".real", toPath: config)
        unsetenv("SSHELF_SYNC_GIT_SECONDS")
        a.sync()
    }
}
