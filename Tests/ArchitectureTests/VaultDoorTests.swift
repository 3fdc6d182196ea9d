// VaultDoorTests: one door out of the vault. The raw read (`Vault.read`, the `load…` helpers of host and identity
// credentials, `lookup`) is internal to ShelfVault; a secret leaves through `release` (logged) or a call named for
// its use (docs/VAULT.md, "The release log"). This holds it: no file outside ShelfVault calls a read with a class,
// and every public vault call that hands back a stored value is on the list below — a new one is a decision,
// written here, not an accident.
import Foundation
import XCTest

final class VaultDoorTests: XCTestCase {
    /// A call of the raw read, across lines: `vault.read(key, class: c)`, `read(\n  key,\n  class: c)`.
    static let rawRead = try! NSRegularExpression(pattern: #"(^|[^\w])read\(\s*[^()]*?,\s*class:"#)

    /// A public (or package/open) declaration in ShelfVault that answers with a stored value.
    static let valueGetter = try! NSRegularExpression(
        pattern: #"\b(public|package|open)\s+(static\s+)?func\s+(\w+)\s*(<[^>]*>)?\([^{]*?->\s*CredentialLookup"#)

    /// The public calls that answer with a stored value, and why each may: the release (logged), sync's seal of a
    /// syncable item, and sync's own device keys, which never go to a host.
    static let namedCalls: Set<String> = [
        "sealForSync", "loadGroupSecret", "loadEpochKey", "loadInviteSecret", "loadSigningSeed",
    ]

    static func matches(_ pattern: NSRegularExpression, _ text: String) -> [NSTextCheckingResult] {
        pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
    }

    static func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
        let root = ImportRulesTests.root + "/"
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: root + folder))
        return try files.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            (folder + "/" + $0, try String(contentsOfFile: root + folder + "/" + $0, encoding: .utf8))
        }
    }

    func testNothingOutsideTheVaultReadsAnItemRaw() throws {
        let outside = try Self.swiftFiles(under: "Sources").filter { !$0.path.hasPrefix("Sources/ShelfVault/") }
        let readers = outside.filter { !Self.matches(Self.rawRead, $0.text).isEmpty }.map(\.path)
        XCTAssertEqual(
            readers, [], "read a vault item through release or a call named for its use (verify, sealForSync…)")
    }

    func testEveryPublicValueGetterOfTheVaultIsANamedCall() throws {
        var getters: Set<String> = []
        for file in try Self.swiftFiles(under: "Sources/ShelfVault") {
            for match in Self.matches(Self.valueGetter, file.text) {
                guard let name = Range(match.range(at: 3), in: file.text).map({ String(file.text[$0]) }) else {
                    continue
                }
                getters.insert(name)
            }
        }
        XCTAssertEqual(getters, Self.namedCalls, "a public call answering with a stored value (CredentialLookup)")
    }

    /// The patterns find what they are there to find (a rule that cannot fail is a defect).
    func testThePatternsFindTheOldWays() {
        for text in [
            "switch vault.read(key, class: accessibility) {", "case .found(let v) = vault.read(item.key, class: s),",
            "let lookup = try other.open().read(\n    key,\n    class: .afterFirstUnlockThisDeviceOnly)",
        ] {
            XCTAssertFalse(Self.matches(Self.rawRead, text).isEmpty, text)
        }
        for text in [
            "try input.read(prompt: \"Vault passphrase: \")", "SSHConfigReader.read(path: path, source: source)",
            "vault.verify(key, class: accessibility)", "vault.sealForSync(key, class: accessibility)",
        ] {
            XCTAssertTrue(Self.matches(Self.rawRead, text).isEmpty, text)
        }
        let declarations = [
            "    public func read(_ key: ReferenceKey, class accessibility: AccessibilityClass) -> CredentialLookup {",
            "    public func loadIdentityPrivateKey(_ identityID: UUID, class accessibility: AccessibilityClass)\n"
                + "        -> CredentialLookup\n    {",
            "    public static func lookup(\n        _ key: ReferenceKey, class accessibility: AccessibilityClass,\n"
                + "        options: VaultOptions\n    ) -> CredentialLookup {",
        ]
        for text in declarations { XCTAssertEqual(Self.matches(Self.valueGetter, text).count, 1, text) }
        XCTAssertTrue(
            Self.matches(Self.valueGetter, "    func read(_ key: ReferenceKey) -> CredentialLookup {").isEmpty)
    }
}
