// TestSupport/TestTools: every external program a test runs, with the Debian package that installs it — the one
// table `make test`'s TEST_DEBS is checked against (ArchitectureTests.DeclaredToolsTests), so a machine where a
// program was installed by hand cannot hide a missing install step.
import Foundation

/// A program the tests run, by its name and the Debian package it comes from (nil: the Swift toolchain).
public struct TestTool: Sendable, CustomStringConvertible {
    public let program: String
    public let package: String?

    init(_ program: String, package: String?) {
        self.program = program
        self.package = package
    }

    /// Where Debian installs programs (usr-merged or not); the toolchain's are found on PATH.
    static let systemFolders = ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]

    /// The installed program, or a path that cannot exist and says which package to install: launching it then
    /// fails with that advice in the error instead of a bare "no such file".
    public var path: String {
        let folders =
            package == nil
            ? (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            : Self.systemFolders
        for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + program) {
            return folder + "/" + program
        }
        return "/missing-test-tool/\(program) (install \(package ?? "the Swift toolchain"): make test-deps)"
    }

    public var url: URL { URL(fileURLWithPath: path) }
    public var description: String { program }
}

extension TestTool {
    // The table, one program a line, read by DeclaredToolsTests (keep each row on one line, in this shape).
    public static let sh = TestTool("sh", package: "dash")
    public static let bash = TestTool("bash", package: "bash")
    public static let zsh = TestTool("zsh", package: "zsh")
    public static let fish = TestTool("fish", package: "fish")
    public static let ssh = TestTool("ssh", package: "openssh-client")
    public static let sshKeygen = TestTool("ssh-keygen", package: "openssh-client")
    public static let sshAdd = TestTool("ssh-add", package: "openssh-client")
    public static let sshAgent = TestTool("ssh-agent", package: "openssh-client")
    public static let scp = TestTool("scp", package: "openssh-client")
    public static let sshd = TestTool("sshd", package: "openssh-server")
    public static let git = TestTool("git", package: "git")
    public static let gitFilterRepo = TestTool("git-filter-repo", package: "git-filter-repo")
    public static let tmux = TestTool("tmux", package: "tmux")
    public static let systemdAnalyze = TestTool("systemd-analyze", package: "systemd")
    public static let nc = TestTool("nc", package: "netcat-openbsd")
    public static let socat = TestTool("socat", package: "socat")
    public static let rsync = TestTool("rsync", package: "rsync")
    public static let python3 = TestTool("python3", package: "python3-minimal")
    public static let setpriv = TestTool("setpriv", package: "util-linux")
    public static let setsid = TestTool("setsid", package: "util-linux")
    public static let mount = TestTool("mount", package: "mount")
    public static let umount = TestTool("umount", package: "mount")
    public static let useradd = TestTool("useradd", package: "passwd")
    public static let usermod = TestTool("usermod", package: "passwd")
    public static let chpasswd = TestTool("chpasswd", package: "passwd")
    public static let sha256sum = TestTool("sha256sum", package: "coreutils")
    public static let chown = TestTool("chown", package: "coreutils")
    public static let id = TestTool("id", package: "coreutils")
    public static let sleep = TestTool("sleep", package: "coreutils")
    public static let dpkgDeb = TestTool("dpkg-deb", package: "dpkg")
    public static let aptGet = TestTool("apt-get", package: "apt")
    public static let lintian = TestTool("lintian", package: "lintian")
    public static let readelf = TestTool("readelf", package: "binutils")
    public static let swiftc = TestTool("swiftc", package: nil)
}
