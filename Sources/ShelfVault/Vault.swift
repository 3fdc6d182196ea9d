// Vault: the device-bound credential vault — opening (and creating) `vault.sqlite` beside its device key,
// the process's unlock state, and the status report. Items, passphrases and helpers live in extensions.
import FoundationEssentials
import ShelfCore
import ShelfSystem
#if canImport(Glibc)
import Glibc
#endif

/// How a vault behaves in this process.
public struct VaultOptions: Sendable {
    /// `whenUnlocked…` class keys are dropped after this long without use.
    public var idleTimeout: Duration
    /// How long the kernel keeps an afterFirstUnlock class key (until reboot or logout at the latest).
    public var keyringTimeoutSeconds: UInt32
    /// False forces the in-process fallback (`SSHELF_VAULT_NO_KEYRING=1`), as in a container without keyctl.
    public var useKernelKeyring: Bool
    /// Test suites only (`SSHELF_TEST_WEAK_KDF=1`): Argon2id at libsodium's minimum; `vault audit` reports it.
    public var minimumStretch: Bool
    /// Test suites only (`SSHELF_TEST_SIGKILL_BEFORE_COMMIT=1`): an import kills its own process with
    /// SIGKILL inside the write transaction, to prove a crash leaves the old contents readable.
    public var killBeforeCommitForTests = false
    /// Test suites only: called as an Argon2id stretch starts (outside the vault's mutex), so a test can prove
    /// that other threads are served meanwhile.
    public var stretchingForTests: (@Sendable () -> Void)?
    /// Where "nothing stored, because…" warnings go; reads never throw, so this is how a broken vault is told.
    public var warn: @Sendable (String) -> Void
    /// Item times and the idle timeout read this (the system's clock unless a test sets one).
    public var clock = VaultClock.system

    public init(
        idleTimeout: Duration = .seconds(15 * 60), keyringTimeoutSeconds: UInt32 = 12 * 3600,
        useKernelKeyring: Bool = true, minimumStretch: Bool = false,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.idleTimeout = idleTimeout
        self.keyringTimeoutSeconds = keyringTimeoutSeconds
        self.useKernelKeyring = useKernelKeyring
        self.minimumStretch = minimumStretch
        self.warn = warn
    }

    public static let noKeyringVariable = "SSHELF_VAULT_NO_KEYRING"
    public static let idleVariable = "SSHELF_VAULT_IDLE_SECONDS"
    public static let weakStretchVariable = "SSHELF_TEST_WEAK_KDF"

    /// Reads the switches from the environment (never secrets: those come from a terminal or a descriptor).
    public static func from(environment: [String: String], warn: @escaping @Sendable (String) -> Void) -> VaultOptions {
        var options = VaultOptions(warn: warn)
        options.useKernelKeyring = environment[noKeyringVariable] != "1"
        options.minimumStretch = environment[weakStretchVariable] == "1"
        options.killBeforeCommitForTests = environment["SSHELF_TEST_SIGKILL_BEFORE_COMMIT"] == "1"
        options.clock = VaultClock.from(environment: environment)
        if let text = environment[idleVariable], let seconds = Int(text), seconds >= 0 {
            options.idleTimeout = .seconds(seconds)
        }
        return options
    }
}

/// The answer to a read. The SSH code turns `notStored` into "not yet synced to this device" and `locked`
/// into a passphrase prompt; it never sees an empty string in place of a secret.
public enum CredentialLookup: Sendable {
    case found(SecretBytes)
    case notStored
    /// Stored, but under another class than the caller named; not read, because the call's class is the
    /// contract (e.g. a tunnel asking afterFirstUnlock for a password kept whenUnlocked).
    case storedInOtherClass(AccessibilityClass)
    case locked
    case vaultUnavailable(reason: String)

    public var secret: SecretBytes? { if case .found(let value) = self { value } else { nil } }
}

public final class Vault: @unchecked Sendable {
    public let locations: DataLocations
    let options: VaultOptions
    let db: VaultDatabase
    let deviceKey: SecretBytes
    let vaultID: [UInt8]
    let keyring: KernelKeyring
    /// Guards everything below and serialises this process's use of the connection. Lock order: this mutex, then
    /// the connection's (SQLiteConnectionLock, taken inside every `db` call), then SQLite's file locks; nothing
    /// slow but a database wait is done holding it (Argon2id runs outside: `stretchOutsideMutex`), and nothing
    /// under it calls back into the vault (`options.warn` must not: the mutex is not recursive). docs/VAULT.md,
    /// "Threads".
    let mutex = Lock()
    var processKeys: [AccessibilityClass: SecretBytes] = [:]
    var lastActivity: ContinuousClock.Instant

    public static func exists(at locations: DataLocations) -> Bool {
        PrivateFiles.mode(of: locations.vault) != nil && DeviceKey.exists(locations.deviceKey)
    }

    /// Opens the vault, creating it and the device key when `createIfMissing` and there is none. Refuses a
    /// vault file or device key others can read, a vault without its device key, and a newer format.
    public static func open(_ locations: DataLocations, options: VaultOptions, createIfMissing: Bool)
        throws(VaultError) -> Vault
    {
        guard Sodium.initialize() else { throw VaultError(.unavailable, "libsodium failed to initialise") }
        let vaultPath = locations.vault
        let keyPath = locations.deviceKey
        let vaultExists = PrivateFiles.mode(of: vaultPath) != nil
        if !vaultExists && !createIfMissing {
            throw VaultError(.notInitialized, "there is no vault on this device yet", hint: "run 'sshelf vault init'")
        }
        if vaultExists { try refuseLoose(vaultPath) }
        if !DeviceKey.exists(keyPath) {
            if vaultExists, (try? hasVaultID(vaultPath)) == true {
                _ = try DeviceKey.load(keyPath)  // throws the "device key is missing" error
            }
            guard createIfMissing else {
                throw VaultError(
                    .notInitialized, "there is no vault on this device yet", hint: "run 'sshelf vault init'")
            }
            do {
                try PrivateFiles.ensureDirectory(locations.stateDirectory)
            } catch {
                throw VaultError(.unavailable, "cannot create \(locations.stateDirectory): \(error)")
            }
            try DeviceKey.create(keyPath)
        }
        let deviceKey = try DeviceKey.load(keyPath)
        if !vaultExists {
            do {
                try PrivateFiles.ensureDirectory(locations.dataDirectory)
                try PrivateFiles.ensureFile(vaultPath)
            } catch {
                throw VaultError(.unavailable, "cannot create \(vaultPath): \(error)")
            }
        }
        do {
            let db = try VaultDatabase(path: vaultPath)
            try db.execute("PRAGMA busy_timeout = 10000")
            try db.query("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = FULL; PRAGMA secure_delete = ON")
            for suffix in ["-wal", "-shm"] { PrivateFiles.tighten(vaultPath + suffix) }
            let version = try db.query("PRAGMA user_version").first?.first?.int ?? 0
            if version > VaultFormat.version {
                throw VaultError(
                    .unavailable, "the vault was written by a newer sshelf (format \(version))",
                    hint: "upgrade sshelf; this version will not change the file")
            }
            let vaultID = try existingVaultID(db) ?? (try createContent(db, deviceKey: deviceKey))
            return Vault(locations: locations, options: options, db: db, deviceKey: deviceKey, vaultID: vaultID)
        } catch let error as DatabaseError {
            throw VaultError.database(error, "open the vault")
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError(.unavailable, "open the vault: \(error)")
        }
    }

    private init(
        locations: DataLocations, options: VaultOptions, db: VaultDatabase, deviceKey: SecretBytes,
        vaultID: [UInt8]
    ) {
        self.locations = locations
        self.options = options
        self.db = db
        self.deviceKey = deviceKey
        self.vaultID = vaultID
        self.keyring = KernelKeyring(enabled: options.useKernelKeyring)
        lastActivity = options.clock.instant()
    }

    /// The vault's current time (its clock's): what an item written now is stamped with.
    public var now: Date { options.clock.now() }

    static func refuseLoose(_ path: String) throws(VaultError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFLNK {
            throw VaultError(
                .permissions, "\(path) is a symbolic link", hint: "sshelf opens its vault only as a plain file")
        }
        try DeviceKey.refuseLoose(path, info)
    }

    private static func hasVaultID(_ path: String) throws -> Bool {
        let db = try VaultDatabase(path: path)
        return try existingVaultID(db) != nil
    }

    private static func existingVaultID(_ db: VaultDatabase) throws -> [UInt8]? {
        let tables = try db.query("SELECT 1 FROM sqlite_master WHERE name = 'vault_meta'")
        guard !tables.isEmpty else { return nil }
        return try db.query("SELECT value FROM vault_meta WHERE name = 'vault_id'").first?.first?.blob
    }

    /// First open: schema, vault id and one class key per writable class (whenPasscodeSet… waits for a
    /// passphrase). A concurrent first open waits on the write lock and then finds the work done.
    private static func createContent(_ db: VaultDatabase, deviceKey: SecretBytes) throws -> [UInt8] {
        try db.writeTransaction {
            try db.execute(VaultFormat.schema)
            if let id = try existingVaultID(db) { return id }
            let id = Sodium.randomBytes(16)
            try db.query("INSERT INTO vault_meta(name, value) VALUES ('vault_id', ?)", [.blob(id)])
            try db.execute("PRAGMA user_version = \(VaultFormat.version)")
            for accessibility in AccessibilityClass.writable where !accessibility.needsPassphrase {
                let wrapped = Sodium.seal(
                    Sodium.randomKey(), key: deviceKey,
                    associatedData: VaultFormat.deviceLayerData(vaultID: id, accessibility: accessibility.rawValue))
                try db.query(
                    "INSERT INTO class_keys(class, layers, wrapped) VALUES (?, ?, ?)",
                    [.text(accessibility.rawValue), .text(VaultFormat.Layers.device.rawValue), .blob(wrapped)])
            }
            return id
        }
    }

    /// Serialises this process's use of the vault.
    func withMutex<T>(_ body: () throws -> T) rethrows -> T {
        mutex.lock()
        defer { mutex.unlock() }
        return try body()
    }

    /// The vault id as hex: names the keyring entries so two vaults (two SSHELF_HOMEs) never share one.
    var idText: String { vaultID.map { TextFormat.hex($0) }.joined() }

    func keyringDescription(_ accessibility: AccessibilityClass) -> String {
        "sshelf:\(idText):\(accessibility.rawValue)"
    }
}
