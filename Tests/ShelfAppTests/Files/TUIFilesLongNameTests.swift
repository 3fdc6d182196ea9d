// TUIFilesLongNameTests: a folder listing that holds a name longer than the 4,096-byte buffer the list starts with.
// No real file system makes such a name (NAME_MAX is 255), so the real sshd runs, for the test account, the smallest
// fake that exercises the parsing: a script speaking just enough SFTP version 3 (INIT, REALPATH, OPENDIR, READDIR,
// CLOSE) whose one SSH_FXP_NAME answer carries a plain name, a 5,000-byte name and another plain one. Everything
// else — the SSH connection, the host key, the login, libssh2's SFTP client — is real. Without the buffer growing,
// libssh2 answers LIBSSH2_ERROR_BUFFER_TOO_SMALL and the folder does not list at all.
import Foundation
import TestSupport
import XCTest

final class TUIFilesLongNameTests: XCTestCase {
    private static let longName = String(repeating: "N", count: 4990) + "-tail"

    /// The fake server (ForceCommand: the subsystem request runs it instead of internal-sftp).
    private static func fakeServer() -> String {
        """
        #!\(TestTool.python3.path)
        import struct, sys
        inp, out = sys.stdin.buffer, sys.stdout.buffer
        def read(n):
            data = b""
            while len(data) < n:
                chunk = inp.read(n - len(data))
                if not chunk:
                    sys.exit(0)
                data += chunk
            return data
        def string(b):
            return struct.pack(">I", len(b)) + b
        def send(kind, payload):
            out.write(struct.pack(">IB", len(payload) + 1, kind) + payload)
            out.flush()
        def attrs(mode, size):
            return struct.pack(">IQI", 0x1 | 0x4, size, mode)
        def status(rid, code):
            send(101, struct.pack(">II", rid, code) + string(b"") + string(b""))
        entries = [b"alpha.txt", b"\(longName)", b"omega.txt"]
        listed = False
        while True:
            length, kind = struct.unpack(">IB", read(5))
            body = read(length - 1)
            if kind == 1:
                send(2, struct.pack(">I", 3))
                continue
            rid = struct.unpack(">I", body[:4])[0]
            if kind == 16:
                send(104, struct.pack(">II", rid, 1) + string(b"/fake") + string(b"/fake") + attrs(0o40755, 0))
            elif kind == 11:
                send(102, struct.pack(">I", rid) + string(b"h1"))
            elif kind == 12 and not listed:
                listed = True
                names = b"".join(
                    string(n) + string(b"-rw-r--r-- 1 u g 7 Jan 1 2026 " + n) + attrs(0o100644, 7) for n in entries)
                send(104, struct.pack(">II", rid, len(entries)) + names)
            elif kind == 12:
                status(rid, 1)
            elif kind in (7, 17):
                send(105, struct.pack(">I", rid) + attrs(0o40755, 0))
            else:
                status(rid, 0 if kind == 4 else 8)
        """
    }

    func testANameOverTheFirstBufferLists() throws {
        let folder = NSTemporaryDirectory() + "/sshelf-fake-sftp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardown { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/fake-sftp-server"
        try Data(Self.fakeServer().utf8).write(to: URL(fileURLWithPath: script))
        XCTAssertEqual(chmod(folder, 0o755), 0, "the test account reaches the script")
        XCTAssertEqual(chmod(script, 0o755), 0)
        var options = SSHD.Options()
        options.extraConfig = ["Match User \(TestAccount.name)", "  ForceCommand \(script)"]
        let world = try SSHCLIWorld(options: options)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)

        let tui = try Tmux(home: world.home, arguments: ["files", "t", "/fake"], columns: 200, rows: 30)
        try tui.waitFor("the whole folder, the long name in it", context: { world.sshd.log }) {
            $0.contains("t: /fake") && $0.contains("alpha.txt") && $0.contains("NNNNNNNNNN")
                && $0.contains("omega.txt") && $0.contains("3 entries") && !$0.contains("reading...")
        }
        try tui.closeFilesAndQuit(hosts: "1 host")
    }
}
