// swift-tools-version:6.0
// sshelf: a keyboard-driven terminal SSH host manager. Targets follow docs/ARCHITECTURE.md.
import PackageDescription

let package = Package(
    name: "sshelf",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sshelf", targets: ["sshelf"])
    ],
    targets: [
        // C libraries from Debian, each imported by exactly one Swift target.
        .systemLibrary(
            name: "CLibSSH2", path: "Sources/CLibSSH2", pkgConfig: "libssh2",
            providers: [.apt(["libssh2-1-dev"])]),
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CNcurses", path: "Sources/CNcurses", pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]),
        // Prefixed functions for C macros Swift cannot import; nothing else.
        .target(name: "CShims", dependencies: ["CLibSSH2", "CNcurses"], path: "Sources/CShims"),

        .target(name: "ShelfCore", path: "Sources/ShelfCore"),
        // POSIX helpers every file owner shares: private directories and files, atomic writes, hardening.
        .target(name: "ShelfSystem", dependencies: ["ShelfCore"], path: "Sources/ShelfSystem"),
        .target(
            name: "ShelfStore", dependencies: ["ShelfCore", "ShelfSystem", "CSQLite"], path: "Sources/ShelfStore"),
        .target(
            name: "ShelfVault", dependencies: ["ShelfCore", "ShelfSystem", "CSodium", "COpenSSL", "CSQLite", "CShims"],
            path: "Sources/ShelfVault"),
        .target(name: "ShelfSSH", dependencies: ["ShelfCore", "ShelfSystem", "CLibSSH2", "CShims"], path: "Sources/ShelfSSH"),
        .target(
            name: "ShelfSync", dependencies: ["ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault"],
            path: "Sources/ShelfSync"),
        .target(name: "ShelfUI", dependencies: ["ShelfCore"], path: "Sources/ShelfUI"),
        .target(
            name: "ShelfTerminal", dependencies: ["ShelfUI", "CNcurses", "CShims"], path: "Sources/ShelfTerminal"),
        .target(
            name: "ShelfApp",
            dependencies: [
                "ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault", "ShelfSSH", "ShelfSync", "ShelfUI", "ShelfTerminal",
            ],
            path: "Sources/ShelfApp"),
        .executableTarget(name: "sshelf", dependencies: ["ShelfApp"], path: "Sources/sshelf"),

        // Shared by the test targets only: runs the real binary in a private SSHELF_HOME, and (with the SSH
        // issue) starts a real sshd on loopback.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ShelfCoreTests", dependencies: ["ShelfCore"], path: "Tests/ShelfCoreTests"),
        .testTarget(
            name: "ShelfStoreTests", dependencies: ["ShelfStore", "ShelfCore", "TestSupport"],
            path: "Tests/ShelfStoreTests"),
        .testTarget(
            name: "ShelfVaultTests", dependencies: ["ShelfVault", "ShelfCore", "TestSupport", "CSQLite"],
            path: "Tests/ShelfVaultTests"),
        .testTarget(
            name: "ShelfSSHTests", dependencies: ["ShelfSSH", "ShelfCore", "TestSupport"], path: "Tests/ShelfSSHTests"),
        .testTarget(
            name: "ShelfSyncTests", dependencies: ["ShelfSync", "ShelfStore", "ShelfVault", "ShelfCore", "TestSupport"],
            path: "Tests/ShelfSyncTests"),
        .testTarget(name: "ShelfUITests", dependencies: ["ShelfUI", "ShelfCore"], path: "Tests/ShelfUITests"),
        // Drives the built `sshelf` binary (CLI, and the TUI through tmux) as a user would.
        .testTarget(
            name: "ShelfAppTests", dependencies: ["ShelfApp", "ShelfCore", "ShelfStore", "TestSupport", "CSQLite"],
            path: "Tests/ShelfAppTests"),
    ]
)
