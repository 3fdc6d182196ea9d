// VaultPassphrase: class keys and who may unwrap them — unlock and lock, the idle relock, the kernel keyring
// cache (afterFirstUnlock classes; whenUnlocked ones through the session, VaultSession), and setting, changing or
// removing the vault passphrase.
import FoundationEssentials

/// What a class key lookup found.
enum ClassKeyAccess {
    case key(SecretBytes)
    case locked
    case missing
    case damaged
}

extension Vault {
    // MARK: reading class keys (caller holds the mutex)

    func passphraseParameters() throws -> Sodium.StretchParameters? {
        guard let row = try db.query("SELECT ops_limit, mem_limit, salt FROM passphrase WHERE id = 1").first,
            let ops = row[0].int, let mem = row[1].int, let salt = row[2].blob, ops > 0, mem > 0
        else { return nil }
        return Sodium.StretchParameters(opsLimit: UInt64(ops), memLimit: UInt64(mem), salt: salt)
    }

    /// `use` false: only looking (a status report); the idle timeout measures real use, so looking does not
    /// count as activity (a TUI reading the status each second must not keep keys unlocked forever).
    func classKey(_ accessibility: AccessibilityClass, use: Bool = true) throws -> ClassKeyAccess {
        relockIfIdleHoldingMutex()
        guard
            let row = try db.query(
                "SELECT layers, wrapped FROM class_keys WHERE class = ?",
                [.text(accessibility.rawValue)]
            ).first,
            let layersText = row[0].text, let wrapped = row[1].blob,
            let layers = VaultFormat.Layers(rawValue: layersText)
        else { return .missing }
        switch layers {
        case .device:
            return unwrapDeviceLayer(wrapped, accessibility).map(ClassKeyAccess.key) ?? .damaged
        case .devicePassphrase:
            if let key = processKeys[accessibility] {
                if use { lastActivity = options.clock.instant() }
                return .key(key)
            }
            switch accessibility.unlockScope {
            case .session:
                if let key = keyring.load(description: keyringDescription(accessibility), length: Sodium.keyLength) {
                    return .key(key)
                }
            case .whileActive:
                if let key = sessionKeyHoldingMutex(accessibility, use: use) { return .key(key) }
            case .anyTime:
                break
            }
            return .locked
        }
    }

    func unwrapDeviceLayer(_ wrapped: [UInt8], _ accessibility: AccessibilityClass) -> SecretBytes? {
        Sodium.open(
            wrapped, key: deviceKey,
            associatedData: VaultFormat.deviceLayerData(vaultID: vaultID, accessibility: accessibility.rawValue))
    }

    /// Drops `whenUnlocked…`/`whenPasscodeSet…` keys this process holds itself (no keyring) after the idle timeout
    /// (checked on each use; the TUI also calls `relockIfIdle()` from its clock, which ends an idle session too).
    func relockIfIdleHoldingMutex() {
        guard !processKeys.isEmpty, options.clock.instant() - lastActivity >= options.idleTimeout else { return }
        for accessibility in processKeys.keys where accessibility.unlockScope == .whileActive {
            processKeys[accessibility] = nil
        }
    }

    /// Opens every passphrase-wrapped class key with `passKey` (the passphrase stretched with `stretch`): the class
    /// keys, and the device-wrapped blobs under them.
    /// One generic error when the passphrase is wrong; a partial success means the file was tampered with.
    private func openPassphraseLayers(_ passKey: SecretBytes, _ stretch: Sodium.StretchParameters) throws
        -> [(AccessibilityClass, inner: [UInt8], key: SecretBytes)]
    {
        var opened: [(AccessibilityClass, inner: [UInt8], key: SecretBytes)] = []
        var failed = 0
        for row in try db.query(
            "SELECT class, wrapped FROM class_keys WHERE layers = ?",
            [.text(VaultFormat.Layers.devicePassphrase.rawValue)])
        {
            guard let name = row[0].text, let accessibility = AccessibilityClass(rawValue: name),
                let wrapped = row[1].blob
            else { throw VaultError(.unavailable, "the vault file has a class key it does not recognise") }
            let data = VaultFormat.passphraseLayerData(vaultID: vaultID, accessibility: name, stretch)
            guard let inner = Sodium.open(wrapped, key: passKey, associatedData: data) else {
                failed += 1
                continue
            }
            let innerBytes = inner.withUnsafeBytes { Array($0) }
            guard let key = unwrapDeviceLayer(innerBytes, accessibility) else {
                throw VaultError(
                    .unavailable, "the \(name) class key failed its integrity check; the vault file was altered",
                    hint: "restore vault.sqlite from a backup")
            }
            opened.append((accessibility, innerBytes, key))
        }
        if failed > 0 && opened.isEmpty { throw VaultError.wrongPassphrase }
        if failed > 0 {
            throw VaultError(
                .unavailable, "some class keys failed their integrity check; the vault file was altered",
                hint: "restore vault.sqlite from a backup")
        }
        return opened
    }

    /// Keeps opened class keys in the kernel keyring — `afterFirstUnlock…` until its long timeout,
    /// `whenUnlocked…` as the session (idle timeout) — or in this process when the keyring is unavailable.
    private func remember(_ keys: [(AccessibilityClass, inner: [UInt8], key: SecretBytes)]) {
        let active = keys.filter { $0.0.unlockScope == .whileActive }.map { ($0.0, $0.key) }
        let shared = !active.isEmpty && startSessionHoldingMutex(active)
        for (accessibility, _, key) in keys {
            switch accessibility.unlockScope {
            case .session:
                if keyring.store(
                    key, description: keyringDescription(accessibility),
                    timeoutSeconds: options.keyringTimeoutSeconds)
                {
                    continue
                }
            case .whileActive:
                if shared { continue }
            case .anyTime:
                break
            }
            processKeys[accessibility] = key
        }
        lastActivity = options.clock.instant()
    }

    // MARK: public API

    public var hasPassphrase: Bool { withMutex { (try? passphraseParameters()) != nil } }

    /// Unwraps the class keys with the passphrase. Wrong passphrase: `VaultError.wrongPassphrase`, nothing
    /// changes. Without a passphrase there is nothing to unlock and this returns quietly.
    public func unlock(passphrase: SecretBytes) throws(VaultError) {
        try withPassphraseKey("unlock the vault", passphrase) { opened in
            guard let (stretch, passKey) = opened else { return }
            remember(try openPassphraseLayers(passKey, stretch))
        }
    }

    /// Forgets every unwrapped class key, in this process and in the kernel keyring: the session ends for every
    /// process of this user.
    public func lock() { withMutex { lockHoldingMutex() } }

    func lockHoldingMutex() {
        processKeys.removeAll()
        for accessibility in AccessibilityClass.allCases where accessibility.unlockScope == .session {
            keyring.remove(description: keyringDescription(accessibility))
        }
        endSessionHoldingMutex()
    }

    /// Ends an idle session (here and, for every process, in the keyring); a clock tick calls this.
    public func relockIfIdle() {
        withMutex {
            relockIfIdleHoldingMutex()
            _ = activeSessionHoldingMutex()
        }
    }

    /// Sets a passphrase (`current` nil) or changes it. Only class keys are re-wrapped; items are untouched.
    /// Setting one also creates the whenPasscodeSetThisDeviceOnly class and leaves this process unlocked.
    public func setPassphrase(_ new: SecretBytes, current: SecretBytes?) throws(VaultError) {
        guard !new.isEmpty else { throw VaultError(.invalid, "the new passphrase is empty") }
        let stretch = options.minimumStretch ? Sodium.StretchParameters.minimum() : .moderate()
        let newKey = try stretchOutsideMutex(new, stretch)
        // Without a current passphrase there is nothing to stretch; a vault that has one then says "wrong".
        try withPassphraseKey("set the vault passphrase", current ?? SecretBytes(count: 0)) { opened in
            var keys: [(AccessibilityClass, inner: [UInt8], key: SecretBytes)] = []
            if let (oldStretch, oldKey) = opened {
                guard current != nil else { throw VaultError.wrongPassphrase }
                keys = try openPassphraseLayers(oldKey, oldStretch)
            } else {
                for row in try db.query(
                    "SELECT class, wrapped FROM class_keys WHERE layers = ?",
                    [.text(VaultFormat.Layers.device.rawValue)])
                {
                    guard let name = row[0].text, let accessibility = AccessibilityClass(rawValue: name),
                        !accessibility.isRefusedOnWrite, let wrapped = row[1].blob
                    else { continue }
                    guard let key = unwrapDeviceLayer(wrapped, accessibility) else {
                        throw VaultError(.unavailable, "the \(name) class key failed its integrity check")
                    }
                    keys.append((accessibility, wrapped, key))
                }
                if !keys.contains(where: { $0.0 == .whenPasscodeSetThisDeviceOnly }) {
                    let key = Sodium.randomKey()
                    let inner = Sodium.seal(
                        key, key: deviceKey,
                        associatedData: VaultFormat.deviceLayerData(
                            vaultID: vaultID, accessibility: AccessibilityClass.whenPasscodeSetThisDeviceOnly.rawValue))
                    keys.append((.whenPasscodeSetThisDeviceOnly, inner, key))
                }
            }
            try db.writeTransaction {
                try db.query(
                    "INSERT OR REPLACE INTO passphrase(id, ops_limit, mem_limit, salt) VALUES (1, ?, ?, ?)",
                    [.int(Int64(stretch.opsLimit)), .int(Int64(stretch.memLimit)), .blob(stretch.salt)])
                for (accessibility, inner, _) in keys {
                    let outer = Sodium.seal(
                        SecretBytes(inner), key: newKey,
                        associatedData: VaultFormat.passphraseLayerData(
                            vaultID: vaultID, accessibility: accessibility.rawValue, stretch))
                    try db.query(
                        "INSERT OR REPLACE INTO class_keys(class, layers, wrapped) VALUES (?, ?, ?)",
                        [
                            .text(accessibility.rawValue), .text(VaultFormat.Layers.devicePassphrase.rawValue),
                            .blob(outer),
                        ])
                }
            }
            remember(keys)
        }
    }

    /// Removes the passphrase: class keys fall back to the device key alone, and every
    /// whenPasscodeSetThisDeviceOnly item is destroyed with its class key. Returns how many items went.
    @discardableResult
    public func removePassphrase(current: SecretBytes) throws(VaultError) -> Int {
        try withPassphraseKey("remove the vault passphrase", current) { opened in
            guard let (stretch, passKey) = opened else { return 0 }
            let keys = try openPassphraseLayers(passKey, stretch)
            let destroyed = try db.writeTransaction { () throws -> Int in
                let count =
                    try db.query(
                        "SELECT count(*) FROM items WHERE class = ?",
                        [.text(AccessibilityClass.whenPasscodeSetThisDeviceOnly.rawValue)]
                    ).first?.first?.int ?? 0
                try db.query(
                    "DELETE FROM items WHERE class = ?",
                    [.text(AccessibilityClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                for (accessibility, inner, _) in keys {
                    if accessibility == .whenPasscodeSetThisDeviceOnly {
                        try db.query("DELETE FROM class_keys WHERE class = ?", [.text(accessibility.rawValue)])
                    } else {
                        try db.query(
                            "UPDATE class_keys SET layers = ?, wrapped = ? WHERE class = ?",
                            [.text(VaultFormat.Layers.device.rawValue), .blob(inner), .text(accessibility.rawValue)])
                    }
                }
                try db.query("DELETE FROM passphrase")
                return Int(count)
            }
            // Every class now opens with the device key: no unwrapped key needs to stay anywhere.
            lockHoldingMutex()
            return destroyed
        }
    }

    // MARK: Argon2id outside the mutex

    /// Argon2id(`passphrase`) — about a second at the moderate setting, and the one slow step of an unlock. Called
    /// without the mutex, so the TUI's status line, a connect's read and `V`'s lock on other threads never wait for
    /// it (docs/VAULT.md, "Threads").
    func stretchOutsideMutex(_ passphrase: SecretBytes, _ stretch: Sodium.StretchParameters) throws(VaultError)
        -> SecretBytes
    {
        options.stretchingForTests?()
        guard let key = Sodium.stretch(passphrase, stretch) else {
            throw VaultError(
                .unavailable, "the vault's passphrase parameters are unusable (damaged file or out of memory)")
        }
        return key
    }

    /// Runs `body` under the mutex with the vault's passphrase parameters and `passphrase` stretched with them (nil
    /// when the vault has no passphrase). The parameters are read under the mutex, stretched without it, and read
    /// again under it: when a passphrase change (this process or another) came in between, the stretch is redone.
    func withPassphraseKey<T>(
        _ context: String, _ passphrase: SecretBytes,
        _ body: ((Sodium.StretchParameters, SecretBytes)?) throws -> T
    ) throws(VaultError) -> T {
        var expected = try run(context) { try passphraseParameters() }
        for _ in 0..<3 {
            var passKey: SecretBytes?
            if let stretch = expected { passKey = try stretchOutsideMutex(passphrase, stretch) }
            let seen = expected
            let outcome: PassphraseAttempt<T> = try run(context) {
                let now = try passphraseParameters()
                guard now == seen else { return .changed(now) }
                return .done(try body(zip(now, passKey)))
            }
            switch outcome {
            case .done(let result): return result
            case .changed(let now): expected = now
            }
        }
        throw VaultError(
            .unavailable, "\(context): the vault passphrase kept changing meanwhile", hint: "try again")
    }

    /// Runs `body` under the mutex and turns every failure into a VaultError.
    func run<T>(_ context: String, _ body: () throws -> T) throws(VaultError) -> T {
        mutex.lock()
        defer { mutex.unlock() }
        do {
            return try body()
        } catch let error as VaultError {
            throw error
        } catch let error as DatabaseError {
            throw VaultError.database(error, context)
        } catch {
            throw VaultError(.unavailable, "\(context): \(error)")
        }
    }
}

/// One try of `withPassphraseKey`: done, or the parameters it stretched for were replaced meanwhile.
private enum PassphraseAttempt<T> {
    case done(T)
    case changed(Sodium.StretchParameters?)
}

/// Both values, or nil when either is.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
