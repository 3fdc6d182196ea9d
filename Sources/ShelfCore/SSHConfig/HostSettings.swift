// HostSettings: what a host's kept options (its own, then the defaults blocks that match it; first value wins, as in
// ssh) mean for sshelf's own client — the settings libssh2 1.10 can honour, read into values, and the ones it cannot,
// named so `connect` can say so once and offer OpenSSH's ssh instead. Pure: no IO.
import FoundationEssentials

public struct HostSettings: Sendable, Equatable {
    public enum HostKeyPolicy: String, Sendable, Equatable {
        /// sshelf's own rule: an unknown key is asked about (or refused without a terminal).
        case ask
        /// Unknown keys are refused without asking.
        case strict
        /// Unknown keys are accepted and pinned (OpenSSH's `accept-new`, and `no`, which sshelf takes no further:
        /// a changed key stays a hard failure).
        case acceptNew
    }

    public enum TTYRequest: String, Sendable, Equatable {
        case auto, yes, no, force
    }

    /// Seconds between keepalives while the server sends nothing; nil: sshelf's default (30 s, never ends a session).
    public var serverAliveInterval: Int? = nil
    /// Unanswered keepalives before the session is ended as dead (with an interval set).
    public var serverAliveCountMax = 3
    public var compression = false
    /// Algorithm preferences as written (OpenSSH syntax: a list, or one starting with `+`, `-` or `^`).
    public var hostKeyAlgorithms: String? = nil
    public var kexAlgorithms: String? = nil
    public var ciphers: String? = nil
    public var macs: String? = nil
    public var connectTimeout: Double? = nil
    public var identitiesOnly = false
    /// IdentityFiles to try after the host's identity, in order.
    public var identityFiles: [String] = []
    /// OpenSSH user certificates (`CertificateFile`, as written): offered with the identity key they certify.
    public var certificateFiles: [String] = []
    /// `RevokedHostKeys`: a KRL or a list of public keys; a host key (or a certificate's CA) in it is refused.
    public var revokedHostKeys: String? = nil
    public var hostKeyPolicy = HostKeyPolicy.ask
    /// `SetEnv NAME=value` pairs, in order.
    public var setEnv: [(name: String, value: String)] = []
    /// `SendEnv` patterns (`LANG`, `LC_*`; `-NAME` removes).
    public var sendEnv: [String] = []
    public var requestTTY = TTYRequest.auto
    public var proxyCommand: String? = nil
    /// How many times a typed password may be tried.
    public var numberOfPasswordPrompts: Int? = nil
    /// The agent to ask: a socket path (`~` not yet expanded), `SSH_AUTH_SOCK` (or `$NAME`) for an environment
    /// variable's, `none` for no agent; nil: sshelf's default (SSH_AUTH_SOCK).
    public var identityAgent: String? = nil
    /// Keywords set to something sshelf's own client cannot do, as written (`ForwardAgent`).
    public var unsupported: [String] = []
    /// Lines whose value could not be read (`ServerAliveInterval soon`), with why.
    public var invalid: [String] = []
    /// Forwards to or from a unix socket (`LocalForward 5555 /var/run/docker.sock`), as written: kept with the host
    /// and run by OpenSSH's ssh (`connect --openssh`, the bridge); sshelf's client names each when it connects.
    public var socketForwards: [String] = []

    public init() {}

    public static func == (a: HostSettings, b: HostSettings) -> Bool {
        a.serverAliveInterval == b.serverAliveInterval && a.serverAliveCountMax == b.serverAliveCountMax
            && a.compression == b.compression && a.hostKeyAlgorithms == b.hostKeyAlgorithms
            && a.kexAlgorithms == b.kexAlgorithms && a.ciphers == b.ciphers && a.macs == b.macs
            && a.connectTimeout == b.connectTimeout && a.identitiesOnly == b.identitiesOnly
            && a.identityFiles == b.identityFiles && a.certificateFiles == b.certificateFiles
            && a.revokedHostKeys == b.revokedHostKeys
            && a.hostKeyPolicy == b.hostKeyPolicy
            && a.setEnv.map { "\($0.name)=\($0.value)" } == b.setEnv.map { "\($0.name)=\($0.value)" }
            && a.sendEnv == b.sendEnv && a.requestTTY == b.requestTTY && a.proxyCommand == b.proxyCommand
            && a.numberOfPasswordPrompts == b.numberOfPasswordPrompts && a.identityAgent == b.identityAgent
            && a.unsupported == b.unsupported
            && a.invalid == b.invalid && a.socketForwards == b.socketForwards
    }

    /// Keywords sshelf's client reads into these settings.
    public static let honoured: Set<String> = [
        "serveraliveinterval", "serveralivecountmax", "compression", "hostkeyalgorithms", "kexalgorithms", "ciphers",
        "macs", "connecttimeout", "identitiesonly", "identityfile", "stricthostkeychecking", "setenv", "sendenv",
        "requesttty", "proxycommand", "numberofpasswordprompts", "identityagent", "certificatefile",
        "revokedhostkeys",
    ]

    /// Keywords that change nothing a libssh2 session does, or whose job sshelf does its own way (known_hosts files,
    /// logging, OpenSSH's own bookkeeping): neither honoured nor worth a warning.
    public static let inert: Set<String> = [
        "loglevel", "logverbose", "syslogfacility", "hashknownhosts", "visualhostkey", "fingerprinthash", "checkhostip",
        "userknownhostsfile", "globalknownhostsfile", "updatehostkeys", "tcpkeepalive", "batchmode", "ignoreunknown",
        "usekeychain", "pubkeyauthentication", "passwordauthentication",
        "kbdinteractiveauthentication", "challengeresponseauthentication", "preferredauthentications",
        "connectionattempts", "escapechar", "nohostauthenticationforlocalhost",
        "streamlocalbindmask", "streamlocalbindunlink", "requiredrsasize", "casignaturealgorithms",
        "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes", "hostbasedacceptedalgorithms", "hostbasedkeytypes",
        "hostbasedauthentication", "enablesshkeysign", "kbdinteractivedevices", "xauthlocation",
        "hostkeyalias", "exitonforwardfailure", "gatewayports", "clearallforwardings", "permitlocalcommand",
        "enableescapecommandline", "protocol", "useroaming", "rekeylimit", "ipqos", "addressfamily",
    ]

    /// Keywords whose "off" values lose nothing: only a value other than these is reported as unsupported.
    static let offValues: [String: Set<String>] = [
        "forwardagent": ["no", "false"], "forwardx11": ["no", "false"], "forwardx11trusted": ["no", "false"],
        "controlmaster": ["no", "false"], "controlpersist": ["no", "false"], "controlpath": ["none"],
        "addkeystoagent": ["no", "false"], "tunnel": ["no", "false"], "gssapiauthentication": ["no", "false"],
        "gssapidelegatecredentials": ["no", "false"], "gssapikeyexchange": ["no", "false"],
        "canonicalizehostname": ["no", "false"], "verifyhostkeydns": ["no", "false"],
        "proxyusefdpass": ["no", "false"],
        "forkafterauthentication": ["no", "false"], "stdinnull": ["no", "false"], "sessiontype": ["default"],
        "pkcs11provider": ["none"], "securitykeyprovider": ["internal"], "knownhostscommand": ["none"],
        "localcommand": [], "remotecommand": ["none"], "permitremoteopen": ["any"],
    ]

    /// The settings `options` (a host's own, then its defaults) give, the first value of each keyword winning.
    public static func read(_ options: [SSHOption]) -> HostSettings {
        var settings = HostSettings()
        var seen: Set<String> = []
        for option in options {
            let key = option.key
            if SSHOption.isSocketForward(option) {
                if !settings.socketForwards.contains(option.line) { settings.socketForwards.append(option.line) }
                if !settings.unsupported.contains(option.keyword) { settings.unsupported.append(option.keyword) }
                continue
            }
            // Host fields a pattern block gave (User, Port…): applied to the host itself (OptionDefaults.applied).
            if SSHOption.patternKeywords.contains(key) { continue }
            let accumulating = SSHOption.accumulating.contains(key)
            guard accumulating || seen.insert(key).inserted else { continue }
            let words = option.arguments
            let first = words.first?.lowercased() ?? ""
            func invalid(_ why: String) { settings.invalid.append("\(option.keyword) \(option.value): \(why)") }
            switch key {
            case "serveraliveinterval":
                guard let seconds = OpenSSHTime.seconds(first) else { invalid("not a time"); continue }
                settings.serverAliveInterval = seconds > 0 ? seconds : nil
            case "serveralivecountmax":
                guard let count = Int(first), count >= 0 else { invalid("not a number"); continue }
                settings.serverAliveCountMax = count
            case "compression":
                guard let value = yesNo(first) else { invalid("not yes or no"); continue }
                settings.compression = value
            case "hostkeyalgorithms": settings.hostKeyAlgorithms = words.first
            case "kexalgorithms": settings.kexAlgorithms = words.first
            case "ciphers": settings.ciphers = words.first
            case "macs": settings.macs = words.first
            case "connecttimeout":
                guard let seconds = OpenSSHTime.seconds(first), seconds > 0 else { invalid("not a time"); continue }
                settings.connectTimeout = Double(seconds)
            case "identitiesonly":
                guard let value = yesNo(first) else { invalid("not yes or no"); continue }
                settings.identitiesOnly = value
            case "identityfile":
                if let path = words.first, path.lowercased() != "none", !settings.identityFiles.contains(path) {
                    settings.identityFiles.append(path)
                }
            case "certificatefile":
                if let path = words.first, path.lowercased() != "none", !settings.certificateFiles.contains(path) {
                    settings.certificateFiles.append(path)
                }
            case "revokedhostkeys":
                if settings.revokedHostKeys == nil, let path = words.first, path.lowercased() != "none" {
                    settings.revokedHostKeys = path
                }
            case "stricthostkeychecking":
                switch first {
                case "yes", "true": settings.hostKeyPolicy = .strict
                case "accept-new", "no", "false", "off": settings.hostKeyPolicy = .acceptNew
                case "ask": settings.hostKeyPolicy = .ask
                default: invalid("not yes, no, ask or accept-new")
                }
            case "setenv":
                for word in words {
                    guard let equals = word.firstIndex(of: "="), equals > word.startIndex else {
                        invalid("'\(word)' is not NAME=value")
                        continue
                    }
                    let name = String(word[..<equals])
                    if !settings.setEnv.contains(where: { $0.name == name }) {
                        settings.setEnv.append((name, String(word[word.index(after: equals)...])))
                    }
                }
            case "sendenv": settings.sendEnv += words
            case "requesttty":
                switch first {
                case "yes", "true": settings.requestTTY = .yes
                case "no", "false": settings.requestTTY = .no
                case "force": settings.requestTTY = .force
                case "auto": settings.requestTTY = .auto
                default: invalid("not yes, no, force or auto")
                }
            case "proxycommand":
                settings.proxyCommand = first == "none" ? nil : option.value
            case "identityagent":
                settings.identityAgent = words.first
            case "numberofpasswordprompts":
                guard let count = Int(first), count >= 0 else { invalid("not a number"); continue }
                settings.numberOfPasswordPrompts = count
            default:
                if inert.contains(key) { continue }
                if let off = offValues[key], off.contains(first) { continue }
                if !settings.unsupported.contains(option.keyword) { settings.unsupported.append(option.keyword) }
            }
        }
        return settings
    }

    static func yesNo(_ word: String) -> Bool? {
        switch word {
        case "yes", "true": true
        case "no", "false": false
        default: nil
        }
    }

    /// The options in effect for `host`: its own, then every defaults block whose pattern matches its name.
    public static func options(for host: Host, defaults: [OptionDefaults]) -> [SSHOption] {
        host.options.sshOptions + defaults.filter { $0.matches(host.name) }.flatMap { $0.options.sshOptions }
    }
}

/// OpenSSH's time format: `30`, `30s`, `5m`, `1h30m` (seconds when no unit).
public enum OpenSSHTime {
    public static func seconds(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        var total = 0
        var number = ""
        for character in text.lowercased() {
            if character.isASCII && character.isNumber {
                number.append(character)
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            case "w": unit = 604_800
            default: return nil
            }
            guard let value = Int(number) else { return nil }
            total += value * unit
            number = ""
        }
        if !number.isEmpty {
            guard let value = Int(number) else { return nil }
            total += value
        }
        return total
    }
}
