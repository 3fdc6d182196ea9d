// VerifiedSessionTests: "no credential read before the host key is verified" held by the compiler. Small
// programs against the built ShelfSSH module are type-checked with swiftc: one that implements a credential
// source the intended way compiles, and each attempt to get at a credential without a VerifiedSession — making
// one, asking a source without one, making a prompt request — is refused. (The behaviour itself — lookups only
// after verification, each carrying its own hop's key — is tested against real sshd in HostKeyTests and
// JumpTests.)
import Foundation
import TestSupport
import XCTest

final class VerifiedSessionTests: XCTestCase {
    /// Type-checks `source` against the package's built modules; returns the compiler's complaints ("" when it
    /// compiled).
    private func typecheck(_ source: String) throws -> String {
        let binaries = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let file = NSTemporaryDirectory() + "sshelf-typecheck-\(UUID().uuidString).swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let process = Process()
        process.executableURL = TestTool.swiftc.url
        // The C modules SwiftPM made a module map for (CDescriptorShims, below ShelfSystem) are found in their build
        // folders; CLibSSH2 brings its own.
        let generated = ((try? FileManager.default.contentsOfDirectory(atPath: binaries)) ?? []).filter {
            $0.hasSuffix(".build") && FileManager.default.fileExists(atPath: binaries + "/" + $0 + "/module.modulemap")
        }
        process.arguments =
            ["-typecheck", "-I", binaries + "/Modules", "-I", root + "/Sources/CLibSSH2"]
            + generated.flatMap { ["-I", binaries + "/" + $0] } + [file]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? "" : (text.isEmpty ? "swiftc failed" : text)
    }

    private let preamble = """
        import Foundation
        import ShelfCore
        import ShelfSSH
        final class Source: CredentialSource {
            func privateKey(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup { .notStored }
            func keyPassphrase(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup { .notStored }
            func password(for reference: ReferenceKey, on hop: VerifiedSession) -> CredentialLookup {
                print(hop.hop.name, hop.hostKey.fingerprint, hop.trustedBy)
                return .notStored
            }
            var canRemember: Bool { false }
            func rememberPassword(_ password: SecretBytes, forHost hostID: UUID, on hop: VerifiedSession)
                -> ReferenceKey? { nil }
        }

        """

    func testACredentialSourceWrittenAsIntendedCompiles() throws {
        XCTAssertEqual(
            try typecheck(preamble + "let source: CredentialSource = Source()\nprint(source.canRemember)\n"), "")
    }

    func testOnlyTheHostKeyCheckCanMakeAVerifiedSession() throws {
        let errors = try typecheck(
            preamble + """
                let endpoint = SSHEndpoint(name: "h", hostname: "127.0.0.1")
                let forged = VerifiedSession(hop: endpoint, hostKey: HostKey(blob: [])!, trustedBy: "me")
                """)
        XCTAssertTrue(errors.contains("'VerifiedSession' initializer is inaccessible"), errors)
    }

    func testNoCredentialCanBeAskedForWithoutAVerifiedSession() throws {
        let errors = try typecheck(
            preamble + """
                let reference = ReferenceKey.hostPassword(UUID())
                _ = Source().password(for: reference)
                """)
        XCTAssertTrue(errors.contains("missing argument"), errors)
    }

    func testNoPromptForACredentialCanBeMadeOutsideTheAuthenticator() throws {
        for request in [
            "PasswordRequest(hopName: \"h\", user: \"u\", destination: \"u@h\", attempt: 1, "
                + "canRemember: false, note: nil)",
            "KeyPassphraseRequest(hopName: \"h\", keyDescription: \"k\")",
            "KeyboardChallenge(hopName: \"h\", name: \"\", instruction: \"\", prompts: [])",
        ] {
            let errors = try typecheck(preamble + "_ = \(request)\n")
            XCTAssertTrue(errors.contains("initializer is inaccessible"), "\(request): \(errors)")
        }
    }

    /// Inside the module too (`@testable`, as ShelfSSH's own code sees it): a password, a key, keyboard answers and
    /// the agent's keys are sent only through a VerifiedSession; a bare Session has no way to send them.
    func testNoCredentialCanBeSentWithoutAVerifiedSession() throws {
        let inside = """
            import Foundation
            @testable import ShelfSSH

            """
        let intended = try typecheck(
            inside + """
                func send(_ verified: VerifiedSession, _ secret: SecretBytes) throws {
                    _ = verified.sendPassword(secret)
                    _ = verified.sendPublicKey(secret, passphrase: nil)
                    _ = verified.sendPublicKey([1, 2, 3]) { _ in nil }
                    _ = verified.sendKeyboardInteractive { _, _, _ in nil }
                    _ = try verified.sendAgentKeys(socketPath: "/nonexistent")
                }
                """)
        XCTAssertEqual(intended, "", "the intended way compiles")
        for call in [
            "session.password(user: \"u\", secret: secret)", "session.sendPassword(secret)",
            "session.publicKey(user: \"u\", privateKey: secret, passphrase: nil)",
            "session.sendPublicKey(secret, passphrase: nil)",
            "session.keyboardInteractive(user: \"u\") { _, _, _ in nil }",
            "session.sendKeyboardInteractive { _, _, _ in nil }",
            "try session.agent(user: \"u\", socketPath: \"/x\")", "try session.sendAgentKeys(socketPath: \"/x\")",
        ] {
            let errors = try typecheck(
                inside + "func send(_ session: Session, _ secret: SecretBytes) throws { _ = \(call) }\n")
            XCTAssertTrue(errors.contains("has no member"), "\(call): \(errors)")
        }
    }
}
