// SyncConflictCommands: `sshelf sync conflicts [--json] [--seen]` — each merge conflict in words (record, field, the
// kept value and the other, which device wrote each and when; keys shortened to fingerprints) — and
// `sshelf sync conflicts resolve ID --take other|kept`, which writes the chosen side as an edit that syncs.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync

enum SyncConflictCommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["sync", "conflicts"], summary: "list edits that merges kept or discarded",
            details:
                "A field edited on two devices without either seeing the other's edit keeps the later value; an edit "
                + "a deletion discarded is listed too. Tags and aliases merge value by value: only one value added on "
                + "one device and removed on another is a conflict. Each is shown with the kept value and the other, "
                + "the device that wrote each and when; long values (keys, pinned host keys) as fingerprints, in full "
                + "with --json. New ones are marked until --seen; 'sshelf sync conflicts resolve ID --take other' "
                + "takes the other value. Every device lists the same conflicts in the same states: a settled one "
                + "shows which device settled it and how, and is no longer offered; one two devices settled "
                + "differently shows disputed, both choices named, until it is settled again.",
            options: ListOptions.self, run: list),
        CommandSpec(
            path: ["sync", "conflicts", "resolve"],
            summary: "settle a merge conflict: take the other value, or keep the kept one",
            details:
                "The value taken is written as an edit on this device, stamped after both sides, so every device "
                + "takes it on its next sync without a new conflict, and the choice travels as a signed settlement "
                + "every device shows. A deletion is final: a conflict with a deleted record cannot take the other "
                + "side.",
            arguments: [ArgumentSpec(name: "ID", help: "the conflict's number from 'sshelf sync conflicts'")],
            options: ResolveOptions.self,
            examples: ["sshelf sync conflicts resolve 3 --take other"],
            run: resolve),
    ]

    struct ListOptions: CommandOptions {
        let json = Flag("json", "print JSON for scripts (full values)")
        let seen = Flag("seen", "mark every conflict seen")
    }

    struct ResolveOptions: CommandOptions {
        let take = Option(
            "take", .choice([("other", Store.ConflictSide.other), ("kept", .kept)], placeholder: "SIDE"),
            completion: OptionSpec.Completion.none, "other (the value the merge did not keep) or kept")
    }

    static func list(_ call: Call<ListOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        if call[\.seen] {
            let marked = try SyncRunner.markConflictsSeen(store: store, locations: context.locations)
            context.print("\(marked) conflict\(marked == 1 ? "" : "s") marked seen")
            return 0
        }
        let all = try store.conflicts()
        if call[\.json] {
            context.print(try JSONOutput.encode(all))
            return 0
        }
        guard !all.isEmpty else {
            context.print("no merge conflicts")
            return 0
        }
        let names = try GroupInfo.names(store)
        let me = try store.deviceID
        context.output(all.map { text($0, names: names, me: me) }.joined(separator: "\n"))
        return 0
    }

    /// One conflict as a few lines of words (the TUI's conflict list words it the same way: ConflictItems).
    static func text(_ conflict: StoredConflict, names: [String: String], me: String) -> String {
        let item = ConflictItems.item(conflict, names: names, me: me)
        var state = item.isNew ? " · new" : ""
        if let settled = item.settled { state = " · settled: took \(settled)" }
        var lines = ["#\(item.id) \(item.record) · \(item.field) · found \(Display.relative(conflict.at))\(state)"]
        lines.append("  kept   \(item.kept)" + (item.keptBy.isEmpty ? "" : "  by \(item.keptBy)"))
        lines.append("  other  \(item.other)" + (item.otherBy.isEmpty ? "" : "  by \(item.otherBy)"))
        lines.append("  why    \(item.why)")
        if item.settled == nil, item.settleable {
            lines.append("  settle sshelf sync conflicts resolve \(item.id) --take other")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func resolve(_ call: Call<ResolveOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let text = call.argument(0) ?? ""
        guard let id = Int(text), id > 0 else {
            throw ShelfError(
                .usage, "'\(Display.safe(text))' is not a conflict number",
                hint: "see the numbers in 'sshelf sync conflicts'")
        }
        guard let side = call[\.take] else {
            throw ShelfError(
                .usage, "say which value to take: --take other or --take kept",
                hint: ArgumentParser.usageHint(call.command))
        }
        try store.write { try $0.settleConflict(id, take: side) }
        try SyncRunner.refreshConflictCount(store: store, locations: context.locations)
        let pending = try SyncSettings.load(from: store) != nil
        context.print(
            "conflict \(id) settled: took the \(side == .kept ? "kept" : "other") value"
                + (pending ? "; it goes to the other devices on the next sync" : ""))
        return 0
    }
}
