// IdentityKeysTests: one key, one identity in memory — keys compared by their blob (not the comment, not the spacing),
// the holder with its private key in the vault found first, the stricter of two sets of agent options, and the
// agent's one entry per key carrying the stricter options of all that hold it.
import Foundation
import ShelfCore
import XCTest

final class IdentityKeysTests: XCTestCase {
    let line = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHd9lo1S+b6Fv9B6eCmPuEvXwVd0ugknx6c3tXyVQ0kf laptop"
    let other = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBnp3j7A1mkXtDbdzR8Ph1VqS2xLxJ3qEW7EVpYV3kbX other"

    func testKeysAreComparedByTheirBlob() {
        let sameKeyOtherComment =
            "ssh-ed25519\tAAAAC3NzaC1lZDI1NTE5AAAAIHd9lo1S+b6Fv9B6eCmPuEvXwVd0ugknx6c3tXyVQ0kf  work"
        XCTAssertEqual(IdentityKeys.blob(of: line), IdentityKeys.blob(of: sameKeyOtherComment))
        XCTAssertNotEqual(IdentityKeys.blob(of: line), IdentityKeys.blob(of: other))
        XCTAssertNil(IdentityKeys.blob(of: ""))
        XCTAssertNil(IdentityKeys.blob(of: "ssh-ed25519 not-base64!"))
        XCTAssertEqual(IdentityKeys.fingerprint(of: line)?.hasPrefix("SHA256:"), true)
        XCTAssertFalse(IdentityKeys.fingerprint(of: line)?.hasSuffix("=") ?? true, "unpadded, as ssh-keygen -l")
    }

    func testTheHolderWithItsKeyInTheVaultComesFirst() {
        let fileOnly = Identity(name: "a-file", publicKey: line, keyFile: "~/.ssh/id_ed25519")
        let inVault = Identity(name: "b-vault", publicKey: line, privateKeyRef: .identityPrivateKey(UUID()))
        let unrelated = Identity(name: "c", publicKey: other)
        XCTAssertEqual(IdentityKeys.holder(of: line, among: [fileOnly, inVault, unrelated])?.name, "b-vault")
        XCTAssertEqual(IdentityKeys.holder(of: line, among: [fileOnly, unrelated])?.name, "a-file")
        XCTAssertNil(IdentityKeys.holder(of: line, among: [fileOnly], except: fileOnly.id), "not itself")
        XCTAssertNil(IdentityKeys.holder(of: "", among: [Identity(name: "empty")]), "no key holds nothing")
    }

    func testTheStricterOptionsOfTwo() {
        let plain = Identity(name: "plain")
        let careful = Identity(name: "careful", confirmEachUse: true, agentLifetime: 3600)
        let brief = Identity(name: "brief", agentLifetime: 60)
        XCTAssertTrue(IdentityKeys.stricter(plain, careful) == (true, 3600), "no limit is the least strict")
        XCTAssertTrue(IdentityKeys.stricter(careful, brief) == (true, 60), "the shorter lifetime")
        XCTAssertTrue(IdentityKeys.stricter(plain, plain) == (false, 0))
    }

    func testOneEntryPerKeyWithTheStricterOptionsOfAll() {
        let identities = [
            Identity(name: "aa-plain", publicKey: line),
            Identity(name: "mm", publicKey: other),
            Identity(
                name: "zz-c", publicKey: line.replacingOccurrences(of: "laptop", with: "desk"), confirmEachUse: true),
            Identity(name: "zz-t", publicKey: line, agentLifetime: 120),
            Identity(name: "no-key"),
        ]
        let served = IdentityKeys.onePerKey(identities)
        XCTAssertEqual(served.map(\.name), ["aa-plain", "mm", "no-key"])
        XCTAssertEqual(served[0].confirmEachUse, true)
        XCTAssertEqual(served[0].agentLifetime, 120)
        XCTAssertEqual(served[1], identities[1], "a key held once is unchanged")
    }
}
