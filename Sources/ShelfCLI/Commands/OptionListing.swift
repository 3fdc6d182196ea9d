// OptionListing: a host's kept ssh_config options as `show` prints them — its own, then those of the defaults
// blocks that match it (HostOptionSources, which the TUI's details pane shows too) — each marked when sshelf's own
// client cannot do it (OpenSSH's ssh can: `connect --openssh`) or when an earlier value of the same keyword wins.
import FoundationEssentials
import ShelfCore
import ShelfOperations

enum OptionListing {
    static func text(host: ShelfCore.Host, defaults: [OptionDefaults], refused: [String: String] = [:]) -> String {
        var out = ""
        var origin: HostOptionLine.Origin?
        for line in HostOptionSources.lines(host: host, defaults: defaults, refused: refused) {
            if line.origin != origin {
                origin = line.origin
                switch line.origin {
                case .host: out += "options:\n"
                case .pattern(let pattern): out += "options from Host \(Display.safe(pattern)):\n"
                }
            }
            let shown = "  \(Display.safe(line.text))"
            guard let note = line.note else {
                out += shown + "\n"
                continue
            }
            out +=
                shown.padded(to: max(shown.count, 40))
                + "  (\(Display.safe(HostOptionSources.words(note, hostName: host.name))))\n"
        }
        return out
    }
}
