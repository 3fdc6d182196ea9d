// CACommands: `sshelf ca init|show|list|sign` — SSH certificate authorities whose keys live in the vault, and the
// short-lived user certificates they issue for vault identities (CertificateAuthorities does the work).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem

enum CACommands {
    static let caArgument = ArgumentSpec(name: "NAME", help: "the certificate authority's name")

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["ca", "init"], summary: "create a certificate authority whose key lives in the vault",
            details: """
                Makes a new ed25519 CA key in the vault (device-only: it never leaves this device, to a file, a sync \
                remote or another program) and prints its public key line — the line sshd's TrustedUserCAKeys file \
                takes. The creation is a line in the release log.
                """,
            arguments: [caArgument], options: [VaultCommands.passphraseFD],
            examples: ["sshelf ca init team", "sshelf ca init team > /etc/ssh/sshelf_user_ca.pub"], run: initCA),
        CommandSpec(
            path: ["ca", "show"], summary: "print a CA's public key line (for sshd's TrustedUserCAKeys)",
            arguments: [caArgument],
            examples: ["sshelf ca show team | ssh root@server 'cat >> /etc/ssh/trusted_user_ca_keys'"], run: show),
        CommandSpec(
            path: ["ca", "list"], summary: "list the certificate authorities and the certificates they issued",
            options: [VaultCommands.json], run: list),
        CommandSpec(
            path: ["ca", "sign"], summary: "issue a short-lived user certificate for a vault identity",
            details: """
                Signs the identity's public key with the CA's key inside sshelf (the CA key never leaves the vault) \
                and prints the certificate line, as ssh-keygen -s writes it to a -cert.pub file (--out writes that \
                file, mode 0600). The certificate is valid from a minute ago for --valid, for the user names in \
                --principals, with the usual permissions (pty, port, agent and X11 forwarding, user rc). Serials \
                count up per CA; each issue is a line in the release log (CA, serial, identity, principals, \
                validity). A host whose CertificateFile names the file logs in with it.
                """,
            arguments: [
                ArgumentSpec(name: "IDENTITY", help: "identity name (or id prefix)", completion: .identity)
            ],
            options: [
                .value("ca", "NAME", "the certificate authority that signs"),
                .value("principals", "USER,...", "the user names the certificate is valid for"),
                .value("valid", "DURATION", "how long it is valid: 30m, 8h, 7d (default 8h, at most 366d)"),
                .value("out", "FILE", completion: .file, "write the certificate to FILE (mode 0600) too"),
                VaultCommands.passphraseFD,
            ],
            examples: [
                "sshelf ca sign work --ca team --principals deploy --valid 8h",
                "sshelf ca sign work --ca team --principals deploy,root --out ~/.ssh/work-cert.pub",
            ],
            run: sign),
    ]

    static func initCA(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let input = try SecretInput(call, option: "passphrase-fd")
        let authority = try CertificateAuthorities.create(
            named: call.arguments[0], workspace: context.workspace, store: try context.store(),
            vaultPassphrase: { try input.read(prompt: "Vault passphrase: ") })
        context.print(Display.safe(authority.publicKey))
        return 0
    }

    static func show(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let authority = try CertificateAuthorities.named(call.arguments[0], in: try context.store())
        context.print(Display.safe(authority.publicKey))
        return 0
    }

    static func list(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let authorities = try CertificateAuthorities.all(in: try context.store())
        if call.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            context.print(String(decoding: try encoder.encode(authorities), as: UTF8.self))
            return 0
        }
        if authorities.isEmpty { context.print("no certificate authorities (create one: sshelf ca init NAME)") }
        for authority in authorities {
            let fingerprint = IdentityKeys.fingerprint(of: authority.publicKey) ?? "?"
            context.print("\(Display.safe(authority.name))  \(fingerprint)  \(authority.issued.count) issued")
            for issued in authority.issued {
                context.print(
                    "  serial \(issued.serial)  \(Display.safe(issued.identity))  "
                        + "\(issued.principals.map { Display.safe($0) }.joined(separator: ","))  until "
                        + SSHCertificate.timestamp(issued.validBefore))
            }
        }
        return 0
    }

    static func sign(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        guard let caName = call.value("ca") else {
            throw ShelfError(.usage, "ca sign needs --ca NAME", hint: "the CAs on this device: sshelf ca list")
        }
        guard let principals = call.value("principals") else {
            throw ShelfError(
                .usage, "ca sign needs --principals USER,...", hint: "e.g. --principals deploy (the remote user)")
        }
        let validity = try duration(call.value("valid") ?? "8h")
        let store = try context.store()
        let identity = try Resolve.identity(call.arguments[0], in: store)
        let input = try SecretInput(call, option: "passphrase-fd")
        let certificate = try CertificateAuthorities.sign(
            .init(
                identity: identity, principals: principals.split(separator: ",").map(String.init),
                validity: validity, by: "ca sign"),
            by: caName, now: now(context), workspace: context.workspace, store: store,
            vaultPassphrase: { try input.read(prompt: "Vault passphrase: ") })
        let line = CertificateAuthorities.line(certificate, comment: identity.name + "-cert")
        if let out = call.value("out") {
            do {
                try PrivateFiles.atomicWrite(Data((line + "\n").utf8), to: out)
            } catch {
                throw ShelfError(.storage, "could not write \(Display.safe(out)): \(error)")
            }
        }
        context.print(Display.safe(line))
        return 0
    }

    /// "30m", "8h", "7d", "90s" or plain seconds.
    static func duration(_ text: String) throws -> UInt64 {
        let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let trimmed = text.trimmingSpaces().lowercased()
        var value: UInt64?
        if let unit = trimmed.last, let scale = units[unit], let number = UInt64(trimmed.dropLast()) {
            value = number.multipliedReportingOverflow(by: scale).overflow ? nil : number * scale
        } else {
            value = UInt64(trimmed)
        }
        guard let seconds = value, seconds >= 60, seconds <= CertificateAuthorities.longestValidity else {
            throw ShelfError(
                .invalid, "--valid: '\(Display.safe(text))' is not a duration between 1m and 366d",
                hint: "e.g. --valid 30m, 8h or 7d")
        }
        return seconds
    }

    /// Now, in seconds since the epoch (SSHELF_TEST_NOW in tests, as the vault's stamps take it).
    static func now(_ context: AppContext) -> UInt64 {
        if let text = context.environment["SSHELF_TEST_NOW"], let value = UInt64(text) { return value }
        return UInt64(max(0, Date().timeIntervalSince1970))
    }
}
