// AuthTests: every auth method against a real sshd — ed25519/ECDSA keys from the credential source, a key file,
// a real ssh-agent, password (typed, stored, remembered, wrong), keyboard-interactive (PAM), the RSA message,
// the "not yet synced" error with no attempt in the sshd log, and `auto` limited to what the server offers.
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class AuthTests: XCTestCase {
    override func setUpWithError() throws { try TestAccount.ensure() }

    private func server(keys: [TestKey] = [], configure: (inout SSHD.Options) -> Void = { _ in }) throws -> SSHD {
        var options = SSHD.Options()
        options.authorizedKeys = keys.map(\.publicLine)
        configure(&options)
        return try SSHD.start(options)
    }

    private func whoami(_ connection: SSHConnection) throws -> String {
        let (_, out, _) = try SSHWorld.run(connection, "whoami")
        return String(decoding: out, as: UTF8.self)
    }

    func testECDSAKeyFromTheCredentialSource() throws {
        let key = try TestKey.generate(.ecdsa)
        let sshd = try server(keys: [key])
        let world = SSHWorld()
        let connection = try world.connector.connect([
            world.endpoint(
                sshd, auth: .publickey, identity: world.vaultIdentity(key, type: .ecdsa), pinned: world.pin(sshd))
        ])
        XCTAssertEqual(try whoami(connection), "\(TestAccount.name)\n")
    }

    func testKeyFileNamedByTheIdentity() throws {
        let key = try TestKey.generate(.ed25519)
        let sshd = try server(keys: [key])
        let world = SSHWorld()
        let identity = Identity(name: "file", keyType: .ed25519, keyFile: key.privatePath)
        let before = try Data(contentsOf: URL(fileURLWithPath: key.privatePath))
        let connection = try world.connector.connect([world.endpoint(sshd, identity: identity, pinned: world.pin(sshd))]
        )
        XCTAssertEqual(connection.outcome.methods, ["publickey"])
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: key.privatePath)), before, "the key file is never rewritten")
    }

    func testAKeyFileThatIsAFIFOIsRefusedNotWaitedOn() throws {
        let key = try TestKey.generate(.ed25519)
        let sshd = try server(keys: [key])
        let world = SSHWorld()
        let fifo = world.directory + "/key-fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let identity = Identity(name: "pipe", keyType: .ed25519, keyFile: fifo)
        let hop = world.endpoint(sshd, auth: .publickey, identity: identity, pinned: world.pin(sshd))
        // On another thread with a deadline: a read that blocks on the FIFO fails the test instead of hanging it.
        final class Attempt: @unchecked Sendable {
            let connector: SSHConnector
            var error: Error?
            init(_ connector: SSHConnector) { self.connector = connector }
        }
        let outcome = Attempt(world.connector)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do { try outcome.connector.connect([hop]).close() } catch { outcome.error = error }
            done.signal()
        }.start()
        try eventually("connect to refuse the FIFO instead of blocking on it") {
            done.wait(timeout: .now()) == .success
        }
        let error = try XCTUnwrap(outcome.error as? SSHError)
        XCTAssertEqual(error.kind, .credentialUnavailable)
        XCTAssertTrue(error.message.contains("is a FIFO (named pipe), not a regular file"), error.message)
    }

    func testAgentWithARealSSHAgent() throws {
        let key = try TestKey.generate(.ed25519)
        let sshd = try server(keys: [key])
        let agent = try TestAgent()
        try agent.add(key)
        let world = SSHWorld()
        world.agentSocket = agent.socketPath
        let connection = try world.connector.connect([world.endpoint(sshd, auth: .agent, pinned: world.pin(sshd))])
        XCTAssertEqual(connection.outcome.methods, ["agent"])
        XCTAssertEqual(try whoami(connection), "\(TestAccount.name)\n")
    }

    func testTypedPasswordAndRememberingIt() throws {
        let sshd = try server()
        let world = SSHWorld()
        world.delegate.passwords = [TestAccount.password]
        world.delegate.rememberPassword = true
        let hop = world.endpoint(sshd, auth: .password, pinned: world.pin(sshd))
        let connection = try world.connector.connect([hop])
        XCTAssertEqual(connection.outcome.methods, ["password"])
        XCTAssertEqual(world.delegate.passwordRequests.first?.canRemember, true)
        let hostID = try XCTUnwrap(hop.hostID)
        XCTAssertEqual(connection.outcome.rememberedPasswords.map(\.reference), [.hostPassword(hostID)])
        XCTAssertEqual(world.source.remembered[hostID], Array(TestAccount.password.utf8))
        connection.close()

        // Next time the remembered password comes from the source: no prompt.
        world.source.items[ReferenceKey.hostPassword(hostID).rawValue] = Array(TestAccount.password.utf8)
        var again = hop
        again.passwordRef = .hostPassword(hostID)
        world.delegate.passwordRequests = []
        let second = try world.connector.connect([again])
        XCTAssertTrue(world.delegate.passwordRequests.isEmpty)
        XCTAssertEqual(second.outcome.methods, ["password"])
        XCTAssertEqual(try whoami(second), "\(TestAccount.name)\n")
    }

    func testWrongPasswordIsAClearError() throws {
        let sshd = try server()
        let world = SSHWorld()
        world.delegate.passwords = ["wrong one", "wrong two"]
        XCTAssertThrowsError(
            try world.connector.connect([world.endpoint(sshd, auth: .password, pinned: world.pin(sshd))])
        ) {
            let error = $0 as? SSHError
            XCTAssertEqual(error?.kind, .authenticationFailed)
            XCTAssertTrue(error?.message.contains("tried password") == true, "\(String(describing: error))")
            XCTAssertEqual(error?.hint, "check the password")
        }
        XCTAssertEqual(world.delegate.passwordRequests.map(\.attempt), [1, 2, 3])
        XCTAssertTrue(sshd.waitForLog("Failed password for \(TestAccount.name)", count: 2), sshd.log)
    }

    func testPasswordRefWithNothingStoredIsNotSyncedAndNeverTried() throws {
        let sshd = try server()
        let world = SSHWorld()
        let hostID = UUID()
        var hop = world.endpoint(sshd, auth: .auto, passwordRef: .hostPassword(hostID), pinned: world.pin(sshd))
        hop.hostID = hostID
        world.delegate.passwords = ["must not be asked"]
        XCTAssertThrowsError(try world.connector.connect([hop])) {
            let error = $0 as? SSHError
            XCTAssertEqual(error?.kind, .credentialNotSynced)
            XCTAssertEqual(error?.message, "the credential for target has not synced to this device yet")
            XCTAssertTrue(error?.hint?.contains("sshelf sync status") == true)
        }
        XCTAssertTrue(world.delegate.passwordRequests.isEmpty)
        sshd.waitForConnectionsEnded()
        XCTAssertFalse(sshd.log.contains("method password"), sshd.log)
        XCTAssertFalse(sshd.log.contains("Failed password"), sshd.log)
    }

    func testPrivateKeyRefWithNothingStoredIsNotSynced() throws {
        let sshd = try server()
        let world = SSHWorld()
        var identity = Identity(name: "synced-later", keyType: .ed25519)
        identity.privateKeyRef = .identityPrivateKey(identity.id)
        XCTAssertThrowsError(
            try world.connector.connect([world.endpoint(sshd, identity: identity, pinned: world.pin(sshd))])
        ) {
            XCTAssertEqual(($0 as? SSHError)?.kind, .credentialNotSynced)
        }
        sshd.waitForConnectionsEnded()
        XCTAssertFalse(sshd.log.contains("method publickey"), sshd.log)
    }

    func testKeyboardInteractiveThroughPAM() throws {
        let sshd = try server {
            $0.keyboardInteractive = true; $0.passwordAuthentication = false
        }
        let world = SSHWorld()
        world.delegate.keyboardAnswers = [[TestAccount.password]]
        let connection = try world.connector.connect([world.endpoint(sshd, pinned: world.pin(sshd))])
        XCTAssertEqual(connection.outcome.methods, ["keyboard-interactive"])
        let prompt = try XCTUnwrap(world.delegate.challenges.first?.prompts.first)
        XCTAssertFalse(prompt.echo)
        XCTAssertTrue(prompt.text.lowercased().contains("password"), prompt.text)
        XCTAssertEqual(try whoami(connection), "\(TestAccount.name)\n")
    }

    func testKeyboardInteractiveAnsweredByTheStoredPassword() throws {
        let sshd = try server {
            $0.keyboardInteractive = true; $0.passwordAuthentication = false
        }
        let world = SSHWorld()
        let hostID = UUID()
        world.source.items[ReferenceKey.hostPassword(hostID).rawValue] = Array(TestAccount.password.utf8)
        var hop = world.endpoint(
            sshd, auth: .keyboardInteractive, passwordRef: .hostPassword(hostID), pinned: world.pin(sshd))
        hop.hostID = hostID
        try world.connector.connect([hop]).close()
        XCTAssertTrue(world.delegate.challenges.isEmpty, "no question shown")
    }

    // An RSA key from the vault on the default method (auto): libssh2 1.11 signs rsa-sha2 and logs in; 1.10 stops at
    // once with why and the fix — it never goes on to ask for a password that would hide the reason. Both libraries
    // run this (make test's second run loads 1.11.1).
    func testRSAKeyLogsInOn1_11AndFailsAtOnceWithTheReasonOn1_10() throws {
        let key = try TestKey.generate(.rsa)
        let sshd = try server(keys: [key])
        let world = SSHWorld()
        world.delegate.passwords = ["never asked"]
        let hop = world.endpoint(sshd, identity: world.vaultIdentity(key, type: .rsa), pinned: world.pin(sshd))
        if LibSSH2.features.rsaSHA2 {
            let connection = try world.connector.connect([hop])
            XCTAssertEqual(connection.outcome.methods, ["publickey"])
            XCTAssertEqual(try whoami(connection), "\(TestAccount.name)\n")
            XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
            XCTAssertTrue(sshd.log.contains("pkalg rsa-sha2-512"), "signed with rsa-sha2-512:\n\(sshd.log)")
        } else {
            XCTAssertThrowsError(try world.connector.connect([hop])) {
                let error = $0 as? SSHError
                XCTAssertEqual(error?.kind, .rsaSignatureUnsupported, "\(String(describing: $0))")
                XCTAssertTrue(
                    error?.message.contains("refused the RSA key of identity 'test-rsa'") == true,
                    "\(String(describing: error))")
                XCTAssertTrue(error?.hint?.contains("ed25519") == true)
                XCTAssertTrue(error?.hint?.contains("libssh2 1.11 or newer (Debian 13") == true)
                XCTAssertFalse(error?.hint?.contains("make ") == true, "no source-tree target for a package user")
            }
        }
        XCTAssertTrue(world.delegate.passwordRequests.isEmpty, "no password asked")
        XCTAssertTrue(world.delegate.challenges.isEmpty, "no keyboard-interactive question")
    }

    // Through an agent (OpenSSH's ssh-agent) libssh2 1.11 asks for an rsa-sha2-512 signature; 1.10 can only ask for
    // ssh-rsa, which the server refuses: the login fails saying what was tried, never with a password prompt.
    func testRSAKeyThroughAnAgent() throws {
        let key = try TestKey.generate(.rsa)
        let sshd = try server(keys: [key])
        let agent = try TestAgent()
        try agent.add(key)
        let world = SSHWorld()
        world.agentSocket = agent.socketPath
        let hop = world.endpoint(sshd, auth: .agent, pinned: world.pin(sshd))
        if LibSSH2.features.rsaSHA2 {
            let connection = try world.connector.connect([hop])
            XCTAssertEqual(connection.outcome.methods, ["agent"])
            XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
            XCTAssertTrue(sshd.log.contains("pkalg rsa-sha2-512"), "signed with rsa-sha2-512:\n\(sshd.log)")
            connection.close()
        } else {
            XCTAssertThrowsError(try world.connector.connect([hop])) {
                XCTAssertEqual(($0 as? SSHError)?.kind, .authenticationFailed, "\(String(describing: $0))")
            }
        }
    }

    // Several IdentityFiles of the host's options, an RSA one first: on 1.10 the RSA key is refused and the next file
    // still logs in (only the host's own identity stops the login at once).
    func testAnRSAIdentityFileIsOnlyOneOfSeveral() throws {
        let rsa = try TestKey.generate(.rsa), ed25519 = try TestKey.generate(.ed25519)
        let sshd = try server(keys: [rsa, ed25519])
        let world = SSHWorld()
        var hop = world.endpoint(sshd, auth: .publickey, pinned: world.pin(sshd))
        hop.settings.identityFiles = [rsa.privatePath, ed25519.privatePath]
        let connection = try world.connector.connect([hop])
        XCTAssertEqual(connection.outcome.methods, ["publickey"])
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
        XCTAssertTrue(sshd.log.contains(LibSSH2.features.rsaSHA2 ? "ssh2: RSA" : "ssh2: ED25519"), sshd.log)
        connection.close()
    }

    // A key that is simply not authorized (any library): the password step that nobody answers does not hide it.
    func testARefusedKeyIsNamedWhenNoPasswordIsGiven() throws {
        let key = try TestKey.generate(.ed25519)
        let sshd = try server(keys: [])
        let world = SSHWorld()
        world.delegate.passwords = []
        XCTAssertThrowsError(
            try world.connector.connect([
                world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
            ])
        ) {
            let error = $0 as? SSHError
            XCTAssertEqual(error?.kind, .authenticationFailed, "\(String(describing: $0))")
            XCTAssertTrue(
                error?.message.contains("refused the key of identity 'test-ed25519'") == true,
                "\(String(describing: error))")
            XCTAssertTrue(error?.hint?.contains("copy-id") == true, "\(String(describing: error))")
        }
    }

    // sshd's Banner reaches the delegate on libssh2 1.11 (escape sequences removed), after the host key was verified;
    // 1.10 does not keep it, so there is none.
    func testTheServersLoginBannerWhereTheLibraryKeepsIt() throws {
        let key = try TestKey.generate(.ed25519)
        let world = SSHWorld()
        let banner = world.directory + "/banner"
        try "Authorised use only\u{1B}[31m, logged\n".write(toFile: banner, atomically: true, encoding: .utf8)
        let sshd = try server(keys: [key]) { $0.extraConfig = ["Banner \(banner)"] }
        try world.connector.connect([
            world.endpoint(
                sshd, auth: .publickey, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
        ]).close()
        let entries = world.journal.entries
        let banners = entries.filter { $0.hasPrefix("banner ") }
        if LibSSH2.features.userauthBanner {
            XCTAssertEqual(banners, ["banner target: Authorised use only, logged\n"], "\(entries)")
            XCTAssertLessThan(
                try XCTUnwrap(entries.firstIndex(of: "verified target")),
                try XCTUnwrap(entries.firstIndex(of: banners[0])))
        } else {
            XCTAssertEqual(banners, [], "\(entries)")
        }
    }

    func testAutoTriesOnlyWhatTheServerOffers() throws {
        let sshd = try server { $0.passwordAuthentication = false }
        let world = SSHWorld()
        world.delegate.passwords = ["never asked"]
        XCTAssertThrowsError(try world.connector.connect([world.endpoint(sshd, pinned: world.pin(sshd))])) {
            let error = $0 as? SSHError
            XCTAssertEqual(error?.kind, .authenticationFailed)
            XCTAssertTrue(
                error?.message.contains("the server offers publickey") == true, "\(String(describing: error))")
        }
        XCTAssertTrue(world.delegate.passwordRequests.isEmpty)
        XCTAssertTrue(world.delegate.challenges.isEmpty)
    }

    func testEncryptedKeyAsksForItsPassphraseAfterVerification() throws {
        let key = try TestKey.generate(.ed25519, passphrase: "open sesame")
        let sshd = try server(keys: [key])
        let world = SSHWorld()
        world.delegate.keyPassphrase = "open sesame"
        let identity = Identity(name: "locked", keyType: .ed25519, keyFile: key.privatePath)
        let connection = try world.connector.connect([
            world.endpoint(sshd, auth: .publickey, identity: identity, pinned: world.pin(sshd))
        ])
        XCTAssertEqual(connection.outcome.methods, ["publickey"])
        let entries = world.journal.entries
        XCTAssertLessThan(
            try XCTUnwrap(entries.firstIndex(of: "verified target")),
            try XCTUnwrap(entries.firstIndex(of: "askKeyPassphrase")))
    }

    func testRSAHostKeyWorksWhenTheServerAllowsSSHRSA() throws {
        let key = try TestKey.generate(.ed25519)
        let sshd = try server(keys: [key]) {
            $0.hostKeyTypes = [.rsa]
            $0.extraConfig = ["HostKeyAlgorithms +ssh-rsa"]
        }
        let world = SSHWorld()
        let connection = try world.connector.connect([
            world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd, .rsa))
        ])
        XCTAssertEqual(try whoami(connection), "\(TestAccount.name)\n")
    }
}
