// StoreOptionDefaults: the defaults blocks (`Host *` and other patterns, with the options written under them, and
// the `Match` blocks only ssh can decide, kept for OpenSSH), in file order. They belong to this device, like the
// ~/.ssh/config they came from (paths, agents and keychains differ from machine to machine): sync does not carry
// them; a host's own options travel with the host.
import FoundationEssentials
import ShelfCore

extension Store {
    public func optionDefaults() throws -> [OptionDefaults] {
        try db.query("SELECT pattern, options, is_match FROM option_defaults ORDER BY position") { row in
            row.int(2) != 0
                ? OptionDefaults(match: row.text(0), options: OptionLines.decode(row.text(1)))
                : OptionDefaults(pattern: row.text(0), options: OptionLines.decode(row.text(1)))
        }
    }

    /// Replaces every defaults block with `blocks`, in this order (call inside `write`).
    public func setOptionDefaults(_ blocks: [OptionDefaults]) throws {
        try db.run("DELETE FROM option_defaults")
        for (position, block) in blocks.enumerated() {
            try db.run(
                "INSERT INTO option_defaults(position, pattern, options, is_match) VALUES (?, ?, ?, ?)",
                [
                    .int(position), .text(block.pattern), .text(OptionLines.encode(block.options)),
                    .int(block.isMatch ? 1 : 0),
                ])
        }
    }
}
