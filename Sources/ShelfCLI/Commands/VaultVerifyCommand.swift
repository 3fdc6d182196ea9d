// VaultVerifyCommand: `sshelf vault verify` — opens every item (naming its class) to check its integrity tag,
// without printing or keeping any value: "is my vault intact?", and the read path `make bench` times.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfVault

enum VaultVerifyCommand {
    static let command = CommandSpec(
        path: ["vault", "verify"], summary: "check that every item opens and is intact (values are never shown)",
        details:
            "Items of a locked class are counted as locked, not as damaged; give the passphrase to check them too. "
            + "Exit code 4 when an item fails its integrity check.",
        options: Options.self, run: verify)

    struct Options: CommandOptions {
        let passphraseFD = Option(
            "passphrase-fd", .descriptor, "read the vault passphrase from file descriptor N instead of the terminal")
    }

    static func verify(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        let vault = try VaultCommands.open(context, create: false)
        if call[\.passphraseFD] != nil {
            try VaultCommands.unlockIfNeeded(
                vault, for: Set(AccessibilityClass.allCases), SecretInput(call, \.passphraseFD))
        }
        let items = try VaultCommands.attempt { () throws(VaultError) in try vault.items() }
        var intact = 0, locked = 0
        var damaged: [String] = []
        for item in items {
            guard let key = ReferenceKey(item.key), let accessibility = item.knownClass else {
                damaged.append("\(item.key): not a reference key or an unknown class")
                continue
            }
            switch vault.verify(key, class: accessibility) {
            case .intact: intact += 1
            case .locked: locked += 1
            case .changed: damaged.append("\(item.key): changed while checking")
            case .damaged(let reason): damaged.append("\(item.key): \(reason)")
            }
        }
        var line = "\(intact) of \(items.count) item\(items.count == 1 ? "" : "s") intact"
        if locked > 0 { line += ", \(locked) locked (not checked)" }
        context.print(line)
        for problem in damaged { context.errorOutput("sshelf: error: \(Display.safe(problem))\n") }
        return damaged.isEmpty ? 0 : 4
    }
}
