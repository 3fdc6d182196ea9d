// VaultCredentialSource: the connect flow's credentials, read from the vault after the host key was verified.
// Each read names the class the item is stored under (found in the item list, which holds no secrets); a
// reference with no item here is `notStored` — the "not yet synced to this device" case — never a blank. Every
// secret handed out is first written to the release log (what, by which command, for which host); a release
// that cannot be logged does not happen.
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfVault

/// Who releases credentials, and for which hops — what the release log says about each one.
struct ReleasePurpose {
    /// connect, exec, forward, tui or copy-id.
    var by: String
    var endpoints: [SSHEndpoint]

    /// The hops a reference serves: its host for a password, every hop using the identity for a key.
    func hosts(for reference: ReferenceKey) -> String? {
        let names = endpoints.filter { hop in
            switch reference.owner {
            case .host: hop.hostID == reference.ownerID
            case .identity: hop.identity?.id == reference.ownerID
            case .sync, .log: false
            }
        }.map(\.name)
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    static func what(_ reference: ReferenceKey) -> String {
        switch reference.secret {
        case .password: "password"
        case .privkey: "private key"
        case .passphrase: "key passphrase"
        case .remember, .key: reference.secret.rawValue
        }
    }
}

final class VaultCredentialSource: CredentialSource {
    private let context: AppContext
    private var opened: Result<Vault, VaultError>?
    /// Asks for the vault passphrase when an item is locked; nil where nobody can answer (scripts).
    private let askPassphrase: (() -> ShelfVault.SecretBytes?)?
    private let purpose: ReleasePurpose

    init(context: AppContext, purpose: ReleasePurpose, askPassphrase: (() -> ShelfVault.SecretBytes?)?) {
        self.context = context
        self.purpose = purpose
        self.askPassphrase = askPassphrase
    }

    /// Opened on first use only: a connection whose methods need no stored secret never touches the vault.
    private func vault() -> Result<Vault, VaultError> {
        if let opened { return opened }
        let result: Result<Vault, VaultError>
        do { result = .success(try Vault.open(context.locations, options: VaultCommands.options(context), createIfMissing: false)) } catch {
            result = .failure(error)
        }
        opened = result
        return result
    }

    func privateKey(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup { lookup(reference) }
    func keyPassphrase(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup { lookup(reference) }
    func password(for reference: ReferenceKey) -> ShelfSSH.CredentialLookup { lookup(reference) }

    private func lookup(_ reference: ReferenceKey) -> ShelfSSH.CredentialLookup {
        let vault: Vault
        switch self.vault() {
        case .success(let opened): vault = opened
        case .failure(let error) where error.kind == .notInitialized: return .notStored
        case .failure(let error): return .unavailable(reason: error.message)
        }
        let stored: AccessibilityClass
        do {
            guard let info = try vault.items().first(where: { $0.key == reference.rawValue }) else { return .notStored }
            guard let known = info.knownClass else {
                return .unavailable(reason: "\(reference) is stored under a class this sshelf does not know")
            }
            stored = known
        } catch {
            return .unavailable(reason: error.message)
        }
        var answer = vault.read(reference, class: stored)
        if case .locked = answer, let passphrase = askPassphrase?() {
            if (try? vault.unlock(passphrase: passphrase)) != nil { answer = vault.read(reference, class: stored) }
        }
        switch answer {
        case .found(let secret):
            if let refusal = logRelease(reference, vault: vault) { return .unavailable(reason: refusal) }
            return .found(secret.withUnsafeBytes { ShelfSSH.SecretBytes($0) })
        case .notStored: return .notStored
        case .locked: return .locked
        case .storedInOtherClass(let other): return .unavailable(reason: "\(reference) moved to \(other) while reading")
        case .vaultUnavailable(let reason): return .unavailable(reason: reason)
        }
    }

    /// Appends the release to the log; the reason it could not, otherwise (then nothing is released). A locked
    /// log key is asked for like a locked item.
    private func logRelease(_ reference: ReferenceKey, vault: Vault) -> String? {
        let record = ReleaseEntry(what: ReleasePurpose.what(reference), item: reference.rawValue, by: purpose.by,
                                   host: purpose.hosts(for: reference))
        let log = ReleaseLog(locations: context.locations)
        do {
            try log.append(record, vault: vault)
            return nil
        } catch {
            if case .locked = vault.releaseLogKey(create: false), let passphrase = askPassphrase?(),
                (try? vault.unlock(passphrase: passphrase)) != nil, (try? log.append(record, vault: vault)) != nil
            {
                return nil
            }
            return "the release log could not be written (\(error.message)), so \(reference) was not released"
        }
    }

    var canRemember: Bool {
        if case .failure(let error) = vault(), error.kind != .notInitialized { return false }
        return true
    }

    /// Stores the typed password behind the "remember" gate, in the class its use needs: interactive, or
    /// unattended when the host has autostart forwards (a tunnel at login must be able to read it).
    func rememberPassword(_ password: ShelfSSH.SecretBytes, forHost hostID: UUID) -> ReferenceKey? {
        do {
            let vault = try Vault.open(context.locations, options: VaultCommands.options(context), createIfMissing: true)
            opened = .success(vault)
            let unattended = (try? context.store().forwardRules(hostID: hostID).contains { $0.autostart && $0.enabled }) ?? false
            let accessibility = ClassPolicy.accessibility(for: .hostPassword, readAt: unattended ? .unattended : .interactive)
            let secret = password.withBytes { ShelfVault.SecretBytes(copying: $0) }
            try vault.saveRememberedPassword(secret, enabled: true, hostID: hostID, class: accessibility)
            return .hostPassword(hostID)
        } catch {
            context.warn("could not remember the password: \(error)")
            return nil
        }
    }
}

extension SecretInput {
    /// Reads from the terminal (fd nil) or a given descriptor, outside a parsed command line.
    init(fd: Int32?, option: String) {
        self.fd = fd
        self.option = option
    }
}
