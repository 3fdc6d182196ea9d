// AlgorithmList: a host's HostKeyAlgorithms / KexAlgorithms / Ciphers / MACs in OpenSSH's syntax — a list, or one
// starting with `+` (append to the defaults), `-` (remove from them; `*` and `?` patterns) or `^` (put first) —
// resolved against sshelf's default order and kept to what the loaded libssh2 has (1.11 adds chacha20 and AES-GCM).
import FoundationEssentials
import ShelfCore

enum AlgorithmList {
    static func resolve(_ option: String?, option name: String, defaults: [String], supported: [String])
        throws(SSHError)
        -> [String]
    {
        guard let option, !option.isEmpty else { return defaults }
        let body = String(option.dropFirst(option.first.map { "+-^".contains($0) } == true ? 1 : 0))
        let named = body.split(separator: ",").map(String.init)
        var result: [String]
        switch option.first {
        case "+": result = defaults + expand(named, in: supported).filter { !defaults.contains($0) }
        case "-":
            result = defaults.filter { algorithm in
                !named.contains { SSHConfigResolver.glob($0.lowercased(), algorithm.lowercased()) }
            }
        case "^":
            let first = expand(named, in: supported)
            result = first + defaults.filter { !first.contains($0) }
        default: result = expand(named, in: supported)
        }
        let usable = result.filter(supported.contains)
        guard !usable.isEmpty else {
            throw SSHError(
                .invalidConfiguration,
                "\(name) \(option) leaves nothing libssh2 \(LibSSH2.version) can use",
                hint: "libssh2 here has: \(supported.joined(separator: ", ")); change the host's option (sshelf edit "
                    + "HOST --option '\(name) …'), or use OpenSSH's ssh (sshelf connect HOST --openssh)")
        }
        return usable
    }

    /// Names as written, with `*`/`?` patterns expanded over what libssh2 has.
    static func expand(_ names: [String], in supported: [String]) -> [String] {
        var out: [String] = []
        for name in names {
            if SSHConfigResolver.isWildcard(name) {
                out += supported.filter {
                    SSHConfigResolver.glob(name.lowercased(), $0.lowercased()) && !out.contains($0)
                }
            } else if !out.contains(name) {
                out.append(name)
            }
        }
        return out
    }
}
