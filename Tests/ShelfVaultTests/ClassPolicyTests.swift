// ClassPolicyTests: the class each item family is stored with — read back from the vault file, because the
// class is invisible to every behaviour test.
import Foundation
import ShelfCore
import ShelfVault
import XCTest

final class ClassPolicyTests: XCTestCase {
    /// Written out by hand on purpose: a change to the policy table must change this test too.
    let expected: [(ItemFamily, ReadMoment, String)] = [
        (.hostPassword, .interactive, "whenUnlockedThisDeviceOnly"),
        (.hostPassword, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.hostRemember, .interactive, "whenUnlockedThisDeviceOnly"),
        (.hostRemember, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.identityPrivateKey, .interactive, "whenUnlockedThisDeviceOnly"),
        (.identityPrivateKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.identityPassphrase, .interactive, "whenUnlockedThisDeviceOnly"),
        (.identityPassphrase, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.syncKey, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.syncKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.syncSigningKey, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.syncSigningKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.syncGroupKey, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.syncGroupKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.syncEpochKey, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.syncEpochKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.syncInvite, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.syncInvite, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.logKey, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.logKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.caPrivateKey, .interactive, "whenUnlockedThisDeviceOnly"),
        (.caPrivateKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
        (.recordingsKey, .interactive, "afterFirstUnlockThisDeviceOnly"),
        (.recordingsKey, .unattended, "afterFirstUnlockThisDeviceOnly"),
    ]

    func testEveryFamilyAndMomentHasExactlyOneRow() {
        for family in ItemFamily.allCases {
            for moment in ReadMoment.allCases {
                XCTAssertEqual(
                    ClassPolicy.table.filter { $0.family == family && $0.moment == moment }.count, 1,
                    "\(family) \(moment)")
            }
        }
        XCTAssertEqual(ClassPolicy.table.count, expected.count)
    }

    func testEachRowIsTheClassInTheVaultFile() throws {
        for (family, moment, className) in expected {
            let fixture = VaultFixture()
            let vault = try fixture.open()
            let id = UUID()
            let accessibility = ClassPolicy.accessibility(for: family, readAt: moment)
            let key: ReferenceKey
            switch family {
            case .hostPassword:
                key = .hostPassword(id)
                try vault.saveHostPassword(secret("v"), hostID: id, class: accessibility)
            case .hostRemember:
                key = .hostRemember(id)
                try vault.saveRememberedPassword(secret("v"), enabled: true, hostID: id, class: accessibility)
            case .identityPrivateKey:
                key = .identityPrivateKey(id)
                try vault.saveIdentityPrivateKey(secret("v"), identityID: id, class: accessibility)
            case .identityPassphrase:
                key = .identityPassphrase(id)
                try vault.saveIdentityPassphrase(secret("v"), identityID: id, class: accessibility)
            case .syncKey:
                key = .syncKey
                try vault.saveSyncKey(secret("v"), class: accessibility)
            case .syncSigningKey:
                key = .syncSigning
                _ = try vault.deviceKeys(class: accessibility)
            case .syncGroupKey:
                key = .syncGroup(id)
                try vault.saveGroupSecret(secret("v"), group: id, class: accessibility)
            case .syncEpochKey:
                key = .syncEpoch(id)
                try vault.saveEpochKey(secret("v"), epoch: id, class: accessibility)
            case .syncInvite:
                key = .syncInvite(id)
                try vault.saveInviteSecret(secret("v"), invite: id, class: accessibility)
            case .caPrivateKey:
                key = .caPrivateKey(id)
                _ = try vault.createCertificateAuthority(
                    id: id, comment: "ca", class: accessibility, by: "test", detail: "CA 'ca'")
            case .logKey:
                // Created by the vault itself on the first release, never from outside.
                key = .logKey
                guard case .key = vault.releaseLogKey(create: true) else { return XCTFail("no release log key") }
            case .recordingsKey:
                // Created by the vault itself on the first recording, never from outside.
                key = .recordingsKey
                guard case .key = vault.recordingsKey(create: true, for: "test") else {
                    return XCTFail("no recordings key")
                }
            }
            XCTAssertEqual(fixture.classOf(key), className, "\(family) read \(moment)")
            XCTAssertEqual(
                fixture.rows("SELECT family FROM items WHERE key = '\(key.rawValue)'").first?.first, family.rawValue)
        }
    }

    func testNewSecretsDefaultToDeviceOnly() {
        XCTAssertTrue(ClassPolicy.table.allSatisfy { !$0.accessibility.mayLeaveDevice })
    }

    func testCLIStoresAnAutostartHostsPasswordAfterFirstUnlock() throws {
        let fixture = VaultFixture()
        XCTAssertEqual(try fixture.cli(["add", "plain", "--host", "plain.example"]).status, 0)
        XCTAssertEqual(try fixture.cli(["add", "tunnel", "--host", "tunnel.example"]).status, 0)
        XCTAssertEqual(
            try fixture.cli(["forward", "add", "tunnel", "-L", "8080:localhost:80", "--autostart"]).status, 0)
        for (name, expectedClass) in [
            ("plain", "whenUnlockedThisDeviceOnly"), ("tunnel", "afterFirstUnlockThisDeviceOnly"),
        ] {
            let before = Set(fixture.rows("SELECT key FROM items").map { $0[0] })
            let result = try fixture.cli(["vault", "set-password", name, "--secret-fd", "0"], stdin: "pw-\(name)\n")
            XCTAssertEqual(result.status, 0, "\(result)")
            let added = fixture.rows("SELECT key, class FROM items").filter { !before.contains($0[0]) }
            XCTAssertEqual(added.map { $0[1] }, [expectedClass], name)
        }
        let keygen = try fixture.cli(["keygen", "laptop"])
        XCTAssertEqual(keygen.status, 0, "\(keygen)")
        XCTAssertEqual(
            fixture.rows("SELECT class FROM items WHERE family = 'identity.privkey'").first?.first,
            "whenUnlockedThisDeviceOnly")
    }

    /// The compiler enforces "no default class" only if nobody writes one; this keeps it that way.
    func testNoCallAnywhereHasADefaultClass() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).filter {
            $0.hasSuffix(".swift")
        }
        XCTAssertFalse(files.isEmpty)
        let pattern = try NSRegularExpression(pattern: #":\s*AccessibilityClass\??\s*="#)
        for file in files {
            let text = try String(contentsOfFile: root.path + "/" + file, encoding: .utf8)
            let hits = pattern.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
            XCTAssertEqual(hits, 0, "\(file) gives an AccessibilityClass a default value")
        }
    }
}

final class ReadMomentTests: XCTestCase {
    func testAutostartMakesAHostAndItsIdentityUnattended() {
        let key = Identity(name: "k")
        let tunnel = ShelfCore.Host(name: "tunnel", hostname: "t", identityID: key.id)
        let plain = ShelfCore.Host(name: "plain", hostname: "p")
        let rules = [
            PortForwardRule(
                hostID: tunnel.id, kind: .local, bindPort: 1, targetHost: "x", targetPort: 2, autostart: true),
            PortForwardRule(
                hostID: plain.id, kind: .local, bindPort: 3, targetHost: "x", targetPort: 4, autostart: true,
                enabled: false),
        ]
        XCTAssertEqual(ClassPolicy.readMoment(host: tunnel.id, forwardRules: rules), .unattended)
        XCTAssertEqual(
            ClassPolicy.readMoment(host: plain.id, forwardRules: rules), .interactive, "a disabled rule never starts")
        XCTAssertEqual(
            ClassPolicy.readMoment(identity: key.id, hosts: [tunnel, plain], forwardRules: rules), .unattended)
        let needs = ClassPolicy.needs(hosts: [tunnel, plain], forwardRules: rules)
        XCTAssertEqual(needs[.hostPassword(tunnel.id)], .unattended)
        XCTAssertEqual(needs[.identityPrivateKey(key.id)], .unattended)
        XCTAssertEqual(needs[.hostPassword(plain.id)], .interactive)
        XCTAssertEqual(needs[.syncKey], .unattended)
    }
}
