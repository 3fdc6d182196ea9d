// OptionListing: a host's kept ssh_config options as `show` prints them — its own, then those of the defaults
// blocks that match it — each marked when sshelf's own client cannot do it (OpenSSH's ssh can: `connect --openssh`)
// or when an earlier value of the same keyword wins.
import FoundationEssentials
import ShelfCore
import ShelfOperations

enum OptionListing {
    static func text(host: ShelfCore.Host, defaults: [OptionDefaults]) -> String {
        let matching = defaults.filter { $0.matches(host.name) }
        guard !host.options.isEmpty || matching.contains(where: { !$0.options.isEmpty }) else { return "" }
        let settings = HostSettings.read(HostSettings.options(for: host, defaults: defaults))
        var seen: Set<String> = []
        func line(_ text: String) -> String {
            guard let option = SSHOption(line: text) else { return "  \(Display.safe(text))\n" }
            var marks: [String] = []
            if !SSHOption.accumulating.contains(option.key), !seen.insert(option.key).inserted {
                marks.append("an earlier value wins")
            } else if settings.unsupported.contains(option.keyword) {
                marks.append("OpenSSH only: sshelf connect \(host.name) --openssh")
            } else if settings.invalid.contains(where: { $0.hasPrefix(option.line + ":") }) {
                marks.append("sshelf cannot read this value")
            }
            let shown = "  \(Display.safe(option.line))"
            return marks.isEmpty ? shown + "\n" : shown.padded(to: max(shown.count, 40))
                + "  (\(marks.joined(separator: "; ")))\n"
        }
        var out = ""
        if !host.options.isEmpty { out += "options:\n" + host.options.map(line).joined() }
        for block in matching where !block.options.isEmpty {
            out += "options from Host \(Display.safe(block.pattern)):\n" + block.options.map(line).joined()
        }
        return out
    }
}
