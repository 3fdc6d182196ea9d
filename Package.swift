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
        // C libraries from Debian, each imported by exactly one Swift target. libssh2, libcrypto and libsodium are
        // opened on first use, not at start (each module's deferred.c, written by scripts/deferred-libraries): only
        // connecting, forwarding and the vault need them (docs/PERFORMANCE.md, "Start-up").
        .target(name: "CLibSSH2", path: "Sources/CLibSSH2"),
        .target(name: "CSodium", path: "Sources/CSodium"),
        // SQLite is linked from Debian's static archive (same source and options as its shared library): loading
        // and binding the shared one was a sixth of a `sshelf list`. The store and the vault are sshelf's own
        // files and SQL; nothing from the network or the sync remote reaches SQLite except as bound values
        // (docs/PERFORMANCE.md, "Start-up"). No pkg-config and no `link` in the module map: either would add
        // the shared library back.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "COpenSSL", path: "Sources/COpenSSL"),
        .systemLibrary(
            name: "CNcurses", path: "Sources/CNcurses", pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]),
        // C wrappers for what Swift cannot call itself (macros, variadic syscalls), one module per library,
        // each imported by the one Swift target that owns that library.
        .target(name: "CCursesShims", dependencies: ["CNcurses"], path: "Sources/CCursesShims"),
        .target(name: "CKeyringShims", path: "Sources/CKeyringShims"),
        .target(name: "CDescriptorShims", path: "Sources/CDescriptorShims"),

        .target(name: "ShelfCore", path: "Sources/ShelfCore"),
        // POSIX helpers every file owner shares: private directories and files, atomic writes, hardening,
        // guarded secret memory.
        .target(name: "ShelfSystem", dependencies: ["CDescriptorShims"], path: "Sources/ShelfSystem"),
        // The one SQLite wrapper: the store and the vault both open their files through it.
        .target(
            name: "ShelfSQLite", dependencies: ["ShelfSystem", "CSQLite"], path: "Sources/ShelfSQLite",
            linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libsqlite3.a"])]),
        .target(
            name: "ShelfStore", dependencies: ["ShelfCore", "ShelfSystem", "ShelfSQLite"], path: "Sources/ShelfStore"),
        .target(
            name: "ShelfVault",
            dependencies: ["ShelfCore", "ShelfSystem", "ShelfSQLite", "CSodium", "COpenSSL", "CKeyringShims"],
            path: "Sources/ShelfVault"),
        .target(name: "ShelfSSH", dependencies: ["ShelfCore", "ShelfSystem", "CLibSSH2"], path: "Sources/ShelfSSH"),
        .target(
            name: "ShelfSync", dependencies: ["ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault"],
            path: "Sources/ShelfSync"),
        // What the CLI and the TUI both do, once: saves and deletes with their rules, the vault opened with the
        // right options, connecting and what a connection records, sync runs, one error mapping.
        .target(
            name: "ShelfOperations",
            dependencies: ["ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault", "ShelfSSH", "ShelfSync"],
            path: "Sources/ShelfOperations"),
        .target(name: "ShelfUI", dependencies: ["ShelfCore"], path: "Sources/ShelfUI"),
        .target(
            name: "ShelfTerminal", dependencies: ["ShelfUI", "CNcurses", "CCursesShims"],
            path: "Sources/ShelfTerminal"),
        // What both faces start or share above the operations: the process context and its output, the sshelf
        // agent, warm keepers, the forward supervisor, the OpenSSH handover, a fleet run's session. Below the faces:
        // no TUI module (FaceRulesTests).
        .target(
            name: "ShelfServices",
            dependencies: [
                "ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault", "ShelfSSH", "ShelfSync", "ShelfOperations",
            ],
            path: "Sources/ShelfServices"),
        // The two faces; neither imports the other (the `sshelf` executable wires them together).
        .target(
            name: "ShelfCLI",
            dependencies: [
                "ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault", "ShelfSSH", "ShelfSync", "ShelfOperations",
                "ShelfUI",
                "ShelfTerminal", "ShelfServices",
            ],
            path: "Sources/ShelfCLI"),
        .target(
            name: "ShelfTUIApp",
            dependencies: [
                "ShelfCore", "ShelfSystem", "ShelfStore", "ShelfVault", "ShelfSSH", "ShelfSync", "ShelfOperations",
                "ShelfUI",
                "ShelfTerminal", "ShelfServices",
            ],
            path: "Sources/ShelfTUIApp"),
        // The release build (`make release`, which links the Swift runtime statically) finds libstdc++'s static
        // archive first in .build/static-libs, put there by the Makefile: the runtime's C++ then needs no
        // libstdc++.so loaded and bound at every start. Without that folder the shared library is used.
        .executableTarget(
            name: "sshelf", dependencies: ["ShelfSystem", "ShelfServices", "ShelfCLI", "ShelfTUIApp"],
            path: "Sources/sshelf",
            linkerSettings: [
                .unsafeFlags(["-L\(Context.packageDirectory)/.build/static-libs"], .when(configuration: .release))
            ]),

        // Shared by the test targets only: runs the real binary in a private SSHELF_HOME and starts a real sshd
        // on loopback.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ShelfCoreTests", dependencies: ["ShelfCore"], path: "Tests/ShelfCoreTests"),
        .testTarget(
            name: "ShelfSystemTests", dependencies: ["ShelfSystem", "TestSupport"], path: "Tests/ShelfSystemTests"),
        // Reads Package.swift, docs/ARCHITECTURE.md and the sources: the import rules as a test.
        .testTarget(name: "ArchitectureTests", path: "Tests/ArchitectureTests"),
        .testTarget(
            name: "ShelfStoreTests", dependencies: ["ShelfStore", "ShelfCore", "TestSupport", "ShelfSQLite"],
            path: "Tests/ShelfStoreTests"),
        .testTarget(
            name: "ShelfVaultTests", dependencies: ["ShelfVault", "ShelfCore", "TestSupport", "ShelfSQLite"],
            path: "Tests/ShelfVaultTests"),
        .testTarget(
            name: "ShelfSSHTests", dependencies: ["ShelfSSH", "ShelfCore", "TestSupport"], path: "Tests/ShelfSSHTests"),
        .testTarget(
            name: "ShelfSyncTests",
            dependencies: ["ShelfSync", "ShelfStore", "ShelfVault", "ShelfCore", "TestSupport"],
            path: "Tests/ShelfSyncTests"),
        // The operations and the services on a scratch store and vault, without the binary or sshd: fast, and run
        // first by `make test`.
        .testTarget(
            name: "ShelfOperationsTests",
            dependencies: ["ShelfOperations", "ShelfStore", "ShelfVault", "ShelfCore", "TestSupport"],
            path: "Tests/ShelfOperationsTests"),
        .testTarget(
            name: "ShelfServicesTests",
            dependencies: ["ShelfServices", "ShelfOperations", "ShelfStore", "ShelfSync", "ShelfCore", "TestSupport"],
            path: "Tests/ShelfServicesTests"),
        // Snapshots/ holds the recorded screens as text files, read from the source tree (not bundled).
        .testTarget(
            name: "ShelfUITests", dependencies: ["ShelfUI", "ShelfCore", "TestSupport"], path: "Tests/ShelfUITests",
            exclude: ["Snapshots"]),
        // Drives the built `sshelf` binary (CLI, and the TUI through tmux) as a user would.
        .testTarget(
            name: "ShelfAppTests",
            dependencies: [
                "ShelfCLI", "ShelfTUIApp", "ShelfServices", "ShelfCore", "ShelfStore", "ShelfUI", "TestSupport",
                "ShelfSQLite", "ShelfOperations", "ShelfVault", "ShelfSystem", "ShelfSSH", "ShelfSync",
            ],
            path: "Tests/ShelfAppTests"),
    ]
)
