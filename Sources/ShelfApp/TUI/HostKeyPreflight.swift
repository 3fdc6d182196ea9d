// HostKeyPreflight: before the TUI leaves curses for a session, fetch the target's host key (key exchange only,
// nothing sent) and judge it with the same trust store as `sshelf connect`, so an unknown key is a dialog
// inside the TUI and a changed key stops everything before any credential is read. Runs off the input path.
import Foundation
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfUI

final class HostKeyPreflight: @unchecked Sendable {
    private let context: AppContext
    private let mailbox: Mailbox
    private let lock = NSLock()
    /// Keys offered by hosts whose question is on screen, kept to pin exactly what the user saw.
    private var offered: [UUID: (key: HostKey, hostname: String, port: Int)] = [:]

    init(context: AppContext, mailbox: Mailbox) {
        self.context = context
        self.mailbox = mailbox
    }

    /// Checks in the background and posts `.hostKeyChecked`.
    func check(_ hostID: UUID) {
        mailbox.expect()
        DispatchQueue.global().async { [self] in
            mailbox.deliver(.hostKeyChecked(hostID: hostID, run(hostID)))
        }
    }

    private func run(_ hostID: UUID) -> HostKeyCheckResult {
        do {
            let store = try Store(path: context.locations.store)
            guard let host = try store.host(id: hostID) else { return .failed("the host is gone") }
            let plan = try store.read { store in try ConnectPlan.make(for: host, in: store) }
            // Through jump hosts the key exchange needs logins on the way: `sshelf connect` asks then.
            guard plan.endpoints.count == 1, let hop = plan.endpoints.last else { return .trusted }
            let trust = HostKeyTrustStore.standard(locations: context.locations, home: context.homeDirectory)
            let connector = SSHConnector(options: ConnectOptions(trust: trust), credentials: EmptyCredentialSource(),
                                         delegate: RefusingDelegate())
            let key = try connector.fetchHostKey(plan.endpoints)
            let name = Display.safe(host.name)
            switch trust.evaluate(key, host: hop.hostname, port: hop.port, pinned: host.pinnedHostKey) {
            case .trusted:
                return .trusted
            case .unknown:
                lock.lock()
                offered[hostID] = (key, hop.hostname, hop.port)
                lock.unlock()
                return .unknown(host: name, keyType: key.type, fingerprint: key.fingerprint)
            case .changed(_, let source):
                return .failed("\(name)'s host key CHANGED (\(key.type) \(key.fingerprint), not what \(source.rawValue) has): possible man-in-the-middle; nothing was sent")
            case .otherType(let types, let source):
                return .failed("\(name) offers \(key.type), but \(source.rawValue) knows it as \(types.joined(separator: ", ")); check it, then 'sshelf trust \(name) --replace'")
            case .revoked(let source):
                return .failed("\(name)'s host key is marked @revoked in \(source.rawValue)")
            }
        } catch let error as SSHError {
            return .failed(error.message)
        } catch {
            return .failed(StoreWorker.message(error))
        }
    }

    /// Pins the key the user accepted (sshelf's known_hosts and the host record), as `sshelf trust` does.
    func pin(_ hostID: UUID) -> Notice? {
        lock.lock()
        let entry = offered.removeValue(forKey: hostID)
        lock.unlock()
        guard let entry else { return Notice("no host key to pin", isError: true) }
        do {
            let trust = HostKeyTrustStore.standard(locations: context.locations, home: context.homeDirectory)
            try trust.remember(entry.key, host: entry.hostname, port: entry.port, replacing: false)
            let store = try Store(path: context.locations.store)
            try store.write { store in
                guard var host = try store.host(id: hostID) else { return }
                host.pinnedHostKey = entry.key.pinned
                host.updatedAt = Date()
                try store.save(host)
            }
            return nil
        } catch let error as SSHError {
            return Notice("could not pin the host key: \(error.message)", isError: true)
        } catch {
            return Notice("could not pin the host key: \(StoreWorker.message(error))", isError: true)
        }
    }

    func forget(_ hostID: UUID) {
        lock.lock()
        offered[hostID] = nil
        lock.unlock()
    }
}

/// Asked nothing during a key-only fetch: it never reaches authentication.
private final class RefusingDelegate: ConnectDelegate {
    func decide(_ question: HostKeyQuestion) -> HostKeyDecision { .refuse }
    func askPassword(_ request: PasswordRequest) -> PasswordAnswer? { nil }
    func answer(_ challenge: KeyboardChallenge) -> [SecretBytes]? { nil }
}
