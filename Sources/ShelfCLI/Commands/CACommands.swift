// CACommands: `sshelf ca init|show|list|sign|sign-host|revoke` — SSH certificate authorities whose keys live in the
// vault, the short-lived user certificates they issue for vault identities, host certificates for host key files,
// and the revocation list sshd reads (CertificateAuthorities does the work).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
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
            arguments: [caArgument], options: VaultCommands.PassphraseOptions.self,
            examples: ["sshelf ca init team", "sshelf ca init team > /etc/ssh/sshelf_user_ca.pub"], run: initCA),
        CommandSpec(
            path: ["ca", "show"], summary: "print a CA's public key line (for sshd's TrustedUserCAKeys)",
            arguments: [caArgument],
            examples: ["sshelf ca show team | ssh root@server 'cat >> /etc/ssh/trusted_user_ca_keys'"], run: show),
        CommandSpec(
            path: ["ca", "list"], summary: "list the certificate authorities and the certificates they issued",
            options: JSONOptions.self, run: list),
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
            options: SignOptions.self,
            examples: [
                "sshelf ca sign work --ca team --principals deploy --valid 8h",
                "sshelf ca sign work --ca team --principals deploy --valid 8h --renew",
                "sshelf ca sign work --ca team --principals deploy,root --out ~/.ssh/work-cert.pub",
            ],
            run: sign),
        CommandSpec(
            path: ["ca", "sign-host"], summary: "issue a host certificate for a host's public key file",
            details: """
                Signs the host key in FILE (a host's ssh_host_*_key.pub) with the CA's key inside sshelf and writes \
                the certificate beside it as FILE without .pub plus -cert.pub (or to --out), for sshd's \
                HostCertificate. Clients that trust the CA for the host's names (`@cert-authority PATTERN KEY` in \
                known_hosts, which `sshelf ca show` prints the key for) then need no pin or prompt. The issue is a \
                line in the release log.
                """,
            arguments: [ArgumentSpec(name: "FILE", help: "the host's public key file", completion: .file)],
            options: SignHostOptions.self,
            examples: [
                "sshelf ca sign-host /etc/ssh/ssh_host_ed25519_key.pub --ca team --principals db.example.org"
            ],
            run: signHost),
        CommandSpec(
            path: ["ca", "revoke"], summary: "revoke a certificate (by serial) or an identity's certificates",
            details: """
                Revokes the certificate with serial SERIAL, or every certificate the CA issued to IDENTITY (which then \
                gets no new one), and writes the CA's whole revocation list to --out in OpenSSH's KRL format: the \
                file for sshd's RevokedKeys (copy it to each server). `ssh-keygen -Q -f FILE CERT` checks a \
                certificate against it.
                """,
            arguments: [ArgumentSpec(name: "SERIAL|IDENTITY", help: "a serial (ca list shows them) or an identity")],
            options: RevokeOptions.self,
            examples: [
                "sshelf ca revoke 7 --ca team --out team.krl", "sshelf ca revoke work --ca team --out team.krl",
            ],
            run: revoke),
    ]

    struct SignOptions: CommandOptions {
        let ca = Option("ca", .text("NAME"), "the certificate authority that signs")
        let principals = Option("principals", .text("USER,..."), "the user names the certificate is valid for")
        let valid = Option("valid", .validity, "how long it is valid: 30m, 8h, 7d (default 8h, at most 366d)")
        let out = Option("out", .path("FILE"), "write the certificate to FILE (mode 0600) too")
        let renew = Flag(
            "renew",
            "keep it fresh: before a connect or exec with the identity, a certificate near its end (its last "
                + "quarter) is re-issued the same way, logged")
        let passphraseFD = VaultCommands.passphraseFD
    }

    struct SignHostOptions: CommandOptions {
        let ca = Option("ca", .text("NAME"), "the certificate authority that signs")
        let principals = Option("principals", .text("HOST,..."), "the names clients connect to the host by")
        let valid = Option("valid", .validity, "how long it is valid: 30d, 90d (default 90d, at most 366d)")
        let out = Option("out", .path("FILE"), "write the certificate here instead")
        let passphraseFD = VaultCommands.passphraseFD
    }

    struct RevokeOptions: CommandOptions {
        let ca = Option("ca", .text("NAME"), "the certificate authority")
        let out = Option("out", .path("FILE"), "where to write the revocation list (mode 0600)")
    }

    static func initCA(_ call: Call<VaultCommands.PassphraseOptions>, _ context: AppContext) throws -> Int32 {
        let input = SecretInput(call, \.passphraseFD)
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

    static func list(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let authorities = try CertificateAuthorities.all(in: try context.store())
        if call[\.json] {
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

    static func sign(_ call: Call<SignOptions>, _ context: AppContext) throws -> Int32 {
        let caName = try required(call, \.ca, hint: "the CAs on this device: sshelf ca list")
        let principals = try required(
            call, \.principals, hint: "e.g. --principals deploy (the remote user)")
        let validity = call[\.valid] ?? 8 * 3600
        let store = try context.store()
        let identity = try Resolve.identity(call.arguments[0], in: store)
        let input = SecretInput(call, \.passphraseFD)
        let certificate = try CertificateAuthorities.sign(
            .init(
                identity: identity, principals: principals.split(separator: ",").map(String.init),
                validity: validity, by: "ca sign", keepRenewed: call[\.renew]),
            by: caName, now: now(context), workspace: context.workspace, store: store,
            vaultPassphrase: { try input.read(prompt: "Vault passphrase: ") })
        let line = CertificateAuthorities.line(certificate, comment: identity.name + "-cert")
        if let out = call[\.out] { try write(line, to: out) }
        context.print(Display.safe(line))
        return 0
    }

    static func signHost(_ call: Call<SignHostOptions>, _ context: AppContext) throws -> Int32 {
        let caName = try required(call, \.ca, hint: "the CAs on this device: sshelf ca list")
        let principals = try required(call, \.principals, hint: "e.g. --principals db.example.org")
        let validity = call[\.valid] ?? 90 * 86_400
        let path = call.arguments[0]
        let text: String
        do {
            text = String(decoding: try RegularFile.read(path, limit: 64 * 1024), as: UTF8.self)
        } catch {
            throw ShelfError(.notFound, "cannot read \(Display.safe(path)): \(error)")
        }
        let input = SecretInput(call, \.passphraseFD)
        let certificate = try CertificateAuthorities.signHost(
            publicKey: text.trimmingSpacesAndNewlines(), principals: principals.split(separator: ",").map(String.init),
            validity: validity, by: caName, now: now(context), workspace: context.workspace,
            store: try context.store(), vaultPassphrase: { try input.read(prompt: "Vault passphrase: ") })
        let out = call[\.out] ?? (path.hasSuffix(".pub") ? String(path.dropLast(4)) : path) + "-cert.pub"
        try write(CertificateAuthorities.line(certificate, comment: "sshelf-host-cert"), to: out)
        context.print("wrote \(Display.safe(out)) (serial \(certificate.serial))")
        return 0
    }

    static func revoke(_ call: Call<RevokeOptions>, _ context: AppContext) throws -> Int32 {
        let caName = try required(call, \.ca, hint: "the CAs on this device: sshelf ca list")
        let out = try required(call, \.out, hint: "e.g. --out /etc/ssh/revoked_keys (sshd's RevokedKeys)")
        let (revoked, list) = try CertificateAuthorities.revoke(
            call.arguments[0], by: caName, now: now(context), store: try context.store())
        do {
            try PrivateFiles.atomicWrite(Data(list.bytes), to: out)
        } catch {
            throw ShelfError(.storage, "could not write \(Display.safe(out)): \(error)")
        }
        let serials =
            revoked.isEmpty ? "no certificate issued yet" : "serial " + revoked.map(String.init).joined(separator: ", ")
        context.print("revoked \(serials); wrote the revocation list to \(Display.safe(out))")
        return 0
    }

    static func required<O>(_ call: Call<O>, _ key: KeyPath<O, Option<String>>, hint: String) throws -> String {
        guard let value = call[key] else {
            let option = call.spec(key)
            throw ShelfError(
                .usage, "\(call.command.name) needs --\(option.name) \(option.value ?? "")", hint: hint)
        }
        return value
    }

    static func write(_ line: String, to path: String) throws {
        do {
            try PrivateFiles.atomicWrite(Data((line + "\n").utf8), to: path)
        } catch {
            throw ShelfError(.storage, "could not write \(Display.safe(path)): \(error)")
        }
    }

    /// Now, in seconds since the epoch (SSHELF_TEST_NOW in tests, as the vault's stamps take it).
    /// Renews the certificates the plans' tied identities need (CertificateRenewal, the one function every login
    /// path calls), the vault passphrase from --passphrase-fd (read once per process) or the terminal; each renewal
    /// a release-log line naming `by` and a note on stderr.
    static func renewCertificates(
        _ plans: inout [ConnectPlan], by: String, vaultInput: SecretInput, context: AppContext, store: Store
    ) throws {
        for index in plans.indices {
            try CertificateRenewal.prepare(
                &plans[index], by: by, now: now(context), workspace: context.workspace, store: store,
                vaultPassphrase: { try vaultInput.readVaultPassphrase(prompt: "Vault passphrase: ") },
                note: { context.errorOutput("sshelf: note: \($0)\n") })
        }
    }

    public static func now(_ context: AppContext) -> UInt64 {
        if let text = context.environment["SSHELF_TEST_NOW"], let value = UInt64(text) { return value }
        return UInt64(max(0, Date().timeIntervalSince1970))
    }
}
