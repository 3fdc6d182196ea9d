// SSHConfigResolver: turns a read ssh_config into concrete hosts the way `ssh -G` would see each alias:
// blocks apply in file order, the first value of a keyword wins, forwards and IdentityFiles accumulate.
// Wildcard patterns are not hosts: a pattern's options are kept as defaults (a pattern with none is skipped, with its
// line). A Match block is decided for each name as ssh -G decides it (SSHConfigMatch), its lines then the name's own,
// and a second reading follows when `Match final` or CanonicalizeHostname asks for one; a block only ssh can decide
// (exec, localnetwork…) is kept as written, for OpenSSH, with a note for each host it may change. Options sshelf does
// not model are kept verbatim: a host's own blocks' on the host, a pattern block's as defaults for it.
import Dispatch
import FoundationEssentials

public struct ImportedHost: Hashable, Sendable {
    public var alias: String
    /// The other names of its `Host` line that ssh resolves to exactly the same settings (`Host web1 web1.prod`):
    /// one host with aliases, not one host per name.
    public var aliases: [String] = []
    public var hostname: String
    public var user: String
    public var port: Int
    public var identityFiles: [String]
    /// ProxyJump destinations, outermost first; empty when none (or `none`).
    public var proxyJump: [String]
    public var forwards: [ForwardSpec]
    /// Options sshelf does not model, from the host's own blocks, verbatim and in order (IdentityFiles after the
    /// first included).
    public var options: [String] = []
    /// `ProxyCommand ssh -W %h:%p HOST` (or with -J): the jump hosts it names, outermost first; nil otherwise.
    public var proxyCommandJump: [String]? = nil
    /// Where the alias was first named: its file and line (a "file:line" string made for each host was 10 MB of a
    /// 100,000-host import; `location` makes it when a message needs it).
    public var file: String
    public var line: Int
    /// `file:line`, for messages.
    public var location: String { "\(file):\(line)" }
    /// The `#@group:` annotation in force at its Host line (nil: none).
    public var group: String? = nil
    /// Its `#@desc:` lines, joined by newlines (empty: none).
    public var description = ""
}

extension ImportedHost {
    /// Every setting but the names and where they were read.
    func sameSettings(as other: ImportedHost) -> Bool {
        hostname == other.hostname && user == other.user && group == other.group && description == other.description
            && port == other.port && identityFiles == other.identityFiles
            && proxyJump == other.proxyJump && forwards == other.forwards && options == other.options
            && proxyCommandJump == other.proxyCommandJump
    }

    /// The name, then the aliases.
    public var names: [String] { [alias] + aliases }
}

public struct SSHConfigImport: Sendable {
    public var hosts: [ImportedHost] = []
    /// Blocks and hosts that were not imported, each with its file:line and reason.
    public var skipped: [String] = []
    /// Hosts named in the file that could not be imported (a bad Port, an invalid HostName), with file:line.
    public var failures: [String] = []
    /// Settings that were read but cannot be carried over (a unix-socket forward, a shadowed option…).
    public var warnings: [String] = []
    /// Options written under `Host` patterns, kept as defaults in file order.
    public var defaults: [OptionDefaults] = []
    /// Each wildcard `Host` pattern whose options were kept as defaults, with its file:line (a pattern with none
    /// to keep is in `skipped`): one word for what happened to a pattern.
    public var keptAsDefaults: [String] = []
    /// Hosts a Match block only ssh can decide may change (the block is kept for OpenSSH), Match blocks skipped
    /// unread that may change any host.
    public var notes: [String] = []
}

public enum SSHConfigResolver {
    struct Block {
        /// The Host line's words (its own storage, shared: no array made per block).
        var patterns: SSHConfigWords
        var isMatch: Bool
        /// The Host or Match line and the block's lines after it, as one slice of the document's lines: a view, not a
        /// copy (each of a 100,000-host file's blocks copied its line: 20 MB at the peak; a slice for the line and one
        /// for the rest, 4 MB more than one).
        var span: ArraySlice<SSHConfigLine>
        /// Whether `span` starts with the block's Host or Match line (not for the settings before the first one).
        var hasHeader: Bool
        /// A Match line's criteria; nil for a Host block, and for a Match line ssh would refuse (kept as written).
        var criteria: [SSHConfigMatch.Criterion]? = nil
        /// The Host or Match line (nil for the settings before the first one).
        var header: SSHConfigLine? { hasHeader ? span.first : nil }
        /// The block's lines, after its header.
        var lines: ArraySlice<SSHConfigLine> { hasHeader ? span.dropFirst() : span }
        /// A block whose patterns are not all literal names (its options become defaults).
        var isPattern: Bool { patterns.contains(where: SSHConfigResolver.isWildcard) }
        /// Where the block starts, for messages.
        var location: String { header?.location ?? lines.first.map { "\($0.file):1" } ?? "?" }
    }

    /// `localUser`: who runs ssh, for `Match user` (when no User is set yet) and `Match localuser`.
    public static func resolve(_ document: SSHConfigDocument, localUser: String = SSHConfigMatch.currentUser())
        -> SSHConfigImport
    {
        var result = SSHConfigImport()
        result.warnings = document.warnings
        let all = document.lines
        var blocks = [Block(patterns: ["*"], isMatch: false, span: [], hasHeader: false)]
        // Room for a block and a name every four lines (Host, HostName, User, IdentityFile: a usual host), not arrays
        // grown by doubling (a third of each unused, and the copies left behind); a file of shorter blocks grows them.
        blocks.reserveCapacity(all.count / 4 + 1)
        var blockStart = 0
        /// Each alias with its case-folded form (made once: the index below is keyed by it) and its Host line's index.
        var aliases: [(alias: String, key: String, line: Int)] = []
        aliases.reserveCapacity(all.count / 4)
        var seen: Set<String> = []
        seen.reserveCapacity(all.count / 4)
        /// The `#@group:` in force at each Host line (by the line's index), only where there is one.
        var groupAt: [Int: String] = [:]
        var currentGroup: String? = nil
        /// Each wildcard pattern of a Host line, by its block: kept as defaults or skipped once the block is read.
        var wildcards: [(block: Int, text: String)] = []
        for index in all.indices {
            let key = all[index].key
            if key == SSHConfigAnnotation.group {
                currentGroup = all[index].arguments.first.flatMap { $0.isEmpty ? nil : $0 }
                continue
            }
            guard key == "host" || key == "match" else { continue }
            if key == "host", let currentGroup, !all[index].reopened { groupAt[index] = currentGroup }
            blocks[blocks.count - 1].span = all[blockStart..<index]
            blockStart = index
            let line = all[index]
            if key == "match" {
                blocks.append(
                    Block(
                        patterns: [], isMatch: true, span: all[index...index], hasHeader: true,
                        criteria: line.unreadable == nil ? SSHConfigMatch.criteria(line.arguments.array) : nil))
                if !line.reopened, let reason = line.unreadable {
                    result.skipped.append("\(line.location): Match block skipped: its line cannot be read (\(reason))")
                }
                continue
            }
            blocks.append(Block(patterns: line.arguments, isMatch: false, span: all[index...index], hasHeader: true))
            guard !line.reopened else { continue }
            if line.arguments.isEmpty { result.skipped.append("\(line.location): Host line with no pattern") }
            for pattern in line.arguments {
                if isWildcard(pattern) {
                    wildcards.append((blocks.count - 1, "\(line.location): Host pattern '\(pattern)'"))
                } else {
                    let folded = lowercased(pattern)
                    if seen.insert(folded).inserted { aliases.append((pattern, folded, index)) }
                }
            }
        }
        blocks[blocks.count - 1].span = all[blockStart...]
        // Only the names are needed from here: the set (4 MB at 100,000 names) goes before the hosts are resolved.
        SSHConfigRelease.elsewhere(consume seen)
        // Blocks whose patterns are all literal are found through an index, so resolving 100,000 aliases is
        // not 100,000 × 100,000 pattern matches; blocks with wildcards or negations are tested for each alias.
        // Most names are in one block: its index is kept alone, further blocks of a name in a second table.
        var literalBlock: [String: Int] = [:]
        literalBlock.reserveCapacity(aliases.count)
        var moreLiteralBlocks: [String: [Int]] = [:]
        var patternBlocks: [Int] = []
        // Match blocks are decided for every name, in file order; one whose line cannot be read is skipped (noted
        // below), one ssh would refuse is kept as written. Those without settings still count: `Match final` asks
        // for the second reading.
        let matchBlocks = blocks.indices.filter { blocks[$0].isMatch && blocks[$0].criteria != nil }
        // A block without settings changes no host (the implicit one before the first Host line, usually).
        for (index, block) in blocks.enumerated() where !block.isMatch && !block.lines.isEmpty {
            if block.patterns.contains(where: isWildcard) {
                patternBlocks.append(index)
                continue
            }
            for (n, pattern) in block.patterns.enumerated() {
                let key = lowercased(pattern)
                // The same name twice on one Host line is one block for it.
                if block.patterns[..<n].contains(where: { lowercased($0) == key }) { continue }
                if literalBlock[key] == nil {
                    literalBlock[key] = index
                } else {
                    moreLiteralBlocks[key, default: []].append(index)
                }
            }
        }
        // Each alias is resolved on its own (the blocks are only read): large files are split across cores, and
        // the parts joined in file order. Each part writes its hosts into its own range of one array (made with room
        // for every name), and the second part's are moved down after the first's: no array of each part beside the
        // joined one (8 MB at 100,000 hosts, at the import's peak).
        let parts = aliases.count >= parallelThreshold ? 2 : 1
        let chunk = (aliases.count + parts - 1) / max(parts, 1)
        let resolved = PartResults(parts, empty: ResolvedPart())
        let shared = SharedBlocks(
            blocks: blocks, literal: literalBlock, more: moreLiteralBlocks, patterns: patternBlocks,
            matches: matchBlocks, groupAt: groupAt)
        let aliasList = aliases
        var resolvedParts: [ResolvedPart] = []
        var hosts = [ImportedHost](unsafeUninitializedCapacity: aliasList.count) { room, initialized in
            let room = HostRoom(room)
            let resolvePart: @Sendable (Int) -> Void = { part in
                var out = ResolvedPart()
                // The Host blocks for a name (literal ones through the index), and every Match block, in file order.
                func blocks(for name: String, key: String) -> [Int] {
                    var candidates: [Int] = []
                    if let first = shared.literal[key] {
                        candidates.append(first)
                        if let more = shared.more[key] { candidates += more }
                    }
                    for index in shared.patterns where blockMatches(shared.blocks[index], alias: name) {
                        candidates.append(index)
                    }
                    candidates += shared.matches
                    if candidates.count > 1 { candidates.sort() }
                    return candidates
                }
                let range = min(part * chunk, aliasList.count)..<min((part + 1) * chunk, aliasList.count)
                for (alias, key, line) in aliasList[range] {
                    switch effectiveHost(
                        alias: alias, file: all[line].file, number: all[line].number, blocks: shared.blocks,
                        in: blocks(for: alias, key: key),
                        localUser: localUser,
                        finalPass: { name in blocks(for: name, key: lowercased(name)) },
                        warnings: &out.warnings, open: &out.open)
                    {
                    case .success(var host):
                        host.group = shared.groupAt[line]
                        room.put(host, at: range.lowerBound + out.hostCount)
                        out.hostCount += 1
                    case .failure(let problem): out.failures.append(problem.message)
                    }
                }
                resolved.set(part, out)
            }
            if parts == 1 {
                resolvePart(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: parts, execute: resolvePart)
            }
            // The parts' hosts one after another, in file order (the ranges' gaps are names that failed).
            resolvedParts = (0..<parts).map { resolved.take($0) }
            for part in 0..<parts {
                let count = resolvedParts[part].hostCount
                room.move(from: min(part * chunk, aliasList.count), count: count, to: initialized)
                initialized += count
            }
        }
        for part in resolvedParts {
            result.failures += part.failures
            result.warnings += part.warnings
            result.notes += part.open.map(\.note)
        }
        // The Match blocks only ssh can decide, and those it would refuse, are kept as written for OpenSSH.
        let keptMatches = Set(resolvedParts.flatMap { $0.open.map(\.block) }).union(
            blocks.indices.filter {
                blocks[$0].isMatch && blocks[$0].criteria == nil && blocks[$0].header?.unreadable == nil
            })
        // The parts' hosts go straight into the folded list, in order: no joined copy of every host first (20 MB and
        // 100,000 copies at 100,000 hosts). Names alike in every field may still differ in what a pattern gives them
        // (`Host n?a` with SendEnv matches n3a and not n3b): one host's block would give both the same.
        var hostParts = [hosts]
        hosts = []
        result.hosts = foldingAliases(moving: &hostParts) { first, other in
            patternBlocks.allSatisfy {
                blockMatches(blocks[$0], alias: first) == blockMatches(blocks[$0], alias: other)
            }
        }
        var keptBlocks: Set<Int> = []
        for index in (patternBlocks + keptMatches).sorted() {
            let kept = defaults(of: blocks[index], warnings: &result.warnings)
            if !kept.isEmpty { keptBlocks.insert(index) }
            result.defaults += kept
        }
        for (block, text) in wildcards {
            if keptBlocks.contains(block) {
                result.keptAsDefaults.append("\(text): its options apply to the hosts it matches")
            } else {
                result.skipped.append("\(text) is a wildcard with no options to keep, not a host")
            }
        }
        result.notes = document.notes + result.notes + matchNotes(blocks, kept: keptMatches, defaults: keptBlocks)
        SSHConfigRelease.elsewhere(
            (
                consume blocks, consume aliases, consume resolvedParts, resolved, shared
            ))
        return result
    }

    /// The names of one `Host` line (they follow each other in the list) that resolve to the same settings become one
    /// host: the first name is its name, the others its aliases. A name that resolves differently (its own block
    /// later, a pattern matching only it, `%h` in HostName, no HostName at all) stays a host of its own, as ssh -G
    /// sees it; `samePatterns` says whether two names are matched by the same pattern blocks.
    static func foldingAliases(_ hosts: [ImportedHost], samePatterns: (String, String) -> Bool = { _, _ in true })
        -> [ImportedHost]
    {
        foldingAliases([hosts], samePatterns: samePatterns)
    }

    /// The same over the hosts of several parts, one after another.
    static func foldingAliases(_ parts: [[ImportedHost]], samePatterns: (String, String) -> Bool) -> [ImportedHost] {
        var parts = parts
        return foldingAliases(moving: &parts, samePatterns: samePatterns)
    }

    /// The same, taking the parts' hosts (the parts are left empty): the first part's array becomes the result, folded
    /// where it lies, and the other parts' hosts are moved into its spare room (the resolver makes it with room for
    /// every name) — not a third array of every host beside the parts (15 MB at 100,000 hosts).
    static func foldingAliases(moving parts: inout [[ImportedHost]], samePatterns: (String, String) -> Bool)
        -> [ImportedHost]
    {
        guard !parts.isEmpty else { return [] }
        var out: [ImportedHost] = []
        swap(&out, &parts[0])
        /// Where the hosts of the Host line being read start in `out`.
        var lineStart = -1
        /// Whether `host` is another name of the host at `lineStart` (then it is added to its aliases), given the
        /// index it takes in `out` when it is not.
        func folds(_ host: ImportedHost, at next: Int) -> Bool {
            if lineStart >= 0, out[lineStart].line == host.line, out[lineStart].file == host.file,
                out[lineStart].sameSettings(as: host),
                samePatterns(out[lineStart].alias, host.alias)
            {
                out[lineStart].aliases.append(host.alias)
                return true
            }
            if lineStart < 0 || out[lineStart].line != host.line || out[lineStart].file != host.file {
                lineStart = next
            }
            return false
        }
        var kept = 0
        for index in out.indices {
            let host = out[index]
            if folds(host, at: kept) { continue }
            if kept != index { out[kept] = host }
            kept += 1
        }
        out.removeSubrange(kept...)
        for part in parts.indices.dropFirst() {
            var hosts: [ImportedHost] = []
            swap(&hosts, &parts[part])
            out.reserveCapacity(out.count + hosts.count)
            for host in hosts where !folds(host, at: out.count) { out.append(host) }
        }
        return out
    }

    /// From this many aliases the resolving is split across two cores.
    static let parallelThreshold = 4_096

    /// A name's case-folded form as Host matching compares it; a name without capitals is its own (no copy).
    static func lowercased(_ name: String) -> String {
        name.utf8.contains(where: { $0 &- 0x41 < 26 || $0 >= 0x80 }) ? name.lowercased() : name
    }

    /// `none` in any case (what turns IdentityFile and ProxyJump off), without lower-casing every value.
    static func isNone(_ value: String) -> Bool {
        value.utf8.count == 4 && value.lowercased() == "none"
    }

    /// What one part of the aliases resolved to, in their order.
    struct ResolvedPart {
        /// How many hosts the part wrote into its range of the hosts' array.
        var hostCount = 0
        var failures: [String] = []
        var warnings: [String] = []
        /// Each Match block only ssh can decide that may change a host: the block's index and the note for the host.
        var open: [(block: Int, note: String)] = []
    }

    /// The hosts' array while the parts write into it: each part its own range, each place once; moved together after
    /// the parts have ended.
    struct HostRoom: @unchecked Sendable {
        let base: UnsafeMutablePointer<ImportedHost>?
        init(_ room: UnsafeMutableBufferPointer<ImportedHost>) { base = room.baseAddress }

        func put(_ host: ImportedHost, at index: Int) { base.map { ($0 + index).initialize(to: host) } }

        /// Moves `count` hosts from `from` down to `to` (at or before it).
        func move(from: Int, count: Int, to: Int) {
            guard let base, count > 0, from != to else { return }
            (base + to).moveInitialize(from: base + from, count: count)
        }
    }

    /// The blocks and their index, read (never written) by every part while resolving runs.
    struct SharedBlocks: @unchecked Sendable {
        let blocks: [Block]
        let literal: [String: Int]
        let more: [String: [Int]]
        let patterns: [Int]
        let matches: [Int]
        let groupAt: [Int: String]
    }

    /// A line sshelf keeps verbatim as an option: everything it does not model (IdentityFile is modelled: the first
    /// one is the host's identity).
    static func keptAsOption(_ line: SSHConfigLine) -> Bool {
        !SSHOption.modelled.contains(line.key) && line.key != "identityfile"
    }

    /// The line as an option: as written for kept keywords; IdentityFile (read as arguments) quoted again.
    static func optionLine(_ line: SSHConfigLine) -> String {
        if line.key == "identityfile" {
            return "\(line.keyword) \(line.arguments.map(SSHConfigEmitter.quote).joined(separator: " "))"
        }
        return SSHOption(keyword: line.keyword, value: line.rawArguments).line
    }

    /// A pattern block's every line as defaults, in order (nothing when it has none): it has no fields, so `User`,
    /// `Port`, `HostName` and forwards are lines there too.
    static func defaults(of block: Block, warnings: inout [String]) -> [OptionDefaults] {
        var options: [String] = []
        for line in block.lines
        where line.key != "host" && line.key != "match" && line.key != "include"
            && !SSHConfigAnnotation.isAnnotation(line.key)
        {
            let text =
                keptAsOption(line)
                ? optionLine(line)
                : "\(line.keyword) \(line.arguments.map(SSHConfigEmitter.quote).joined(separator: " "))"
            if let problem = SSHOption.patternProblem(text) {
                warnings.append("\(line.location): not kept: \(problem)")
            } else {
                options.append(text)
            }
        }
        guard !options.isEmpty else { return [] }
        if block.isMatch, let header = block.header {
            return [OptionDefaults(match: header.rawArguments, options: options)]
        }
        return [OptionDefaults(pattern: block.patterns.joined(separator: " "), options: options)]
    }

    public static func isWildcard(_ pattern: String) -> Bool {
        pattern.utf8.contains { $0 == 0x2A || $0 == 0x3F || $0 == 0x21 || $0 == 0x2C }  // * ? ! ,
    }

    /// OpenSSH Host matching: any positive pattern matches and no negated one does; case-insensitive.
    static func blockMatches(_ block: Block, alias: String) -> Bool {
        if block.isMatch { return false }
        return hostMatches(patterns: block.patterns, alias: alias)
    }

    /// The same for a pattern list (`* !bastion`).
    public static func hostMatches<Patterns: Sequence<String>>(patterns: Patterns, alias: String) -> Bool {
        let host = alias.lowercased()
        var matched = false
        for pattern in patterns {
            if pattern.hasPrefix("!") {
                if glob(String(pattern.dropFirst()).lowercased(), host) { return false }
            } else if glob(pattern.lowercased(), host) {
                matched = true
            }
        }
        return matched
    }

    /// `*` and `?` glob, iterative with backtracking on the last star (linear-ish, no recursion blow-up).
    public static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern.unicodeScalars)
        let t = Array(text.unicodeScalars)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// The host as the given blocks (the Host blocks matching the name and every Match block, in file order)
    /// configure it; `finalPass` gives the blocks for the second reading, by the HostName the first one ended with.
    /// Each Match block only ssh can decide for it is added to `open` with a note.
    static func effectiveHost(
        alias: String, file: String, number: Int, blocks: [Block], in indexes: [Int], localUser: String = "",
        finalPass: (String) -> [Int] = { _ in [] }, warnings: inout [String], open: inout [(block: Int, note: String)]
    ) -> Result<ImportedHost, ValidationError> {
        /// Where the alias was named, made only for a message.
        var location: String { "\(file):\(number)" }
        var hostname: String?, user: String?, port: Int?, jump: [String]?
        var identityFiles: [String] = []
        var forwards: [ForwardSpec] = []
        var options: [String] = []
        /// Where a pattern block set a first-value-wins keyword: a later value of the host's own is dead in ssh.
        var setByPattern: [String: String] = [:]
        var proxyCommand: String? = nil
        var descriptions: [String] = []
        func fail(_ line: SSHConfigLine, _ message: String) -> Result<Void, ValidationError> {
            .failure(ValidationError(field: line.key, message: "\(line.location): host '\(alias)' skipped: \(message)"))
        }
        /// Whether a second reading is asked for (`Match final`, CanonicalizeHostname other than `no`), and whether
        /// this is it.
        var wantsFinalPass = false, inFinalPass = false
        var canonicalizeSeen = false
        /// One block's lines, in order (a Match block's as the host's own).
        func apply(_ block: Block) -> Result<Void, ValidationError> {
            let pattern = block.isPattern && !inFinalPass
            for line in block.lines {
                let first = line.arguments.first ?? ""
                if line.key == "canonicalizehostname", !canonicalizeSeen {
                    canonicalizeSeen = true
                    if first.lowercased() != "no" { wantsFinalPass = true }
                }
                if SSHConfigAnnotation.isAnnotation(line.key) {
                    if line.key == SSHConfigAnnotation.description, !pattern, !block.isMatch, !first.isEmpty {
                        descriptions.append(first)
                    }
                    continue
                }
                if keptAsOption(line) {
                    // ProxyJump and ProxyCommand exclude each other; the first one written wins, as in ssh.
                    if line.key == "proxycommand", proxyCommand == nil, jump == nil { proxyCommand = line.rawArguments }
                    if pattern {
                        if !SSHOption.accumulating.contains(line.key), setByPattern[line.key] == nil {
                            setByPattern[line.key] =
                                "'Host \(block.patterns.joined(separator: " "))' at \(block.location)"
                        }
                    } else if let shadow = setByPattern[line.key] {
                        warnings.append(
                            "\(line.location): host '\(alias)': \(line.keyword) is set first by \(shadow), the value "
                                + "ssh uses; this one is not kept")
                    } else if let problem = SSHOption.problem(optionLine(line)) {
                        warnings.append("\(line.location): host '\(alias)': not kept: \(problem)")
                    } else {
                        options.append(optionLine(line))
                    }
                    continue
                }
                switch line.key {
                case "hostname" where hostname == nil:
                    guard !first.isEmpty else { return fail(line, "HostName has no value") }
                    let expanded =
                        !first.utf8.contains(0x25)
                        ? first
                        : first.replacing("%%", with: "\u{0}")
                            .replacing("%h", with: alias).replacing("\u{0}", with: "%")
                    if let problem = Validation.hostnameProblem(expanded) { return fail(line, "HostName \(problem)") }
                    hostname = expanded
                case "user" where user == nil:
                    if let problem = Validation.userProblem(first) { return fail(line, problem) }
                    user = first
                case "port" where port == nil:
                    guard let value = ForwardSpec.parsePort(first) else {
                        return fail(line, "Port '\(first)' is not a number between 1 and 65535")
                    }
                    port = value
                case "identityfile":
                    if !first.isEmpty, !identityFiles.contains(first), !isNone(first) {
                        identityFiles.append(first)
                        // The first is the host's identity; later ones from its own blocks are tried after it, in
                        // order.
                        if identityFiles.count > 1, !pattern { options.append(optionLine(line)) }
                    }
                case "proxyjump" where jump == nil:
                    guard proxyCommand == nil else { break }
                    jump = isNone(first) ? [] : first.split(separator: ",").map(String.init)
                case "localforward", "remoteforward", "dynamicforward":
                    let kind: ForwardKind =
                        line.key == "localforward" ? .local : line.key == "remoteforward" ? .remote : .dynamic
                    if kind != .dynamic, line.arguments.contains(where: { $0.contains("/") }) {
                        // A unix socket: kept as the host's line (SSHOption.isSocketForward), for OpenSSH to run.
                        let text =
                            "\(line.keyword) \(line.arguments.map(SSHConfigEmitter.quote).joined(separator: " "))"
                        if pattern {
                        } else if let problem = SSHOption.problem(text) {
                            warnings.append("\(line.location): host '\(alias)': not kept: \(problem)")
                        } else if !options.contains(text) {
                            options.append(text)
                        }
                        continue
                    }
                    do {
                        let spec = try ForwardSpec.parseConfig(line.arguments.array, kind: kind)
                        if !forwards.contains(spec) { forwards.append(spec) }
                    } catch {
                        return fail(line, error.message)
                    }
                default:
                    break
                }
            }
            return .success(())
        }
        var applied: Set<Int> = []
        /// The undecided blocks noted for this name (the second reading meets them again).
        var noted: Set<Int> = []
        var order = indexes
        while true {
            for index in order {
                let block = blocks[index]
                // The second reading adds what is still unset: a block read in the first adds nothing again.
                if inFinalPass, applied.contains(index) { continue }
                if block.isMatch {
                    guard let criteria = block.criteria else { continue }
                    if !inFinalPass, SSHConfigMatch.asksForFinalPass(criteria) { wantsFinalPass = true }
                    let subject = SSHConfigMatch.Subject(
                        host: hostname ?? alias, originalHost: alias, user: user ?? localUser, localUser: localUser,
                        finalPass: inFinalPass)
                    switch SSHConfigMatch.decide(criteria, for: subject) {
                    case .applies: break
                    case .doesNotApply: continue
                    case .undecided(let words):
                        if !block.lines.isEmpty, let header = block.header, noted.insert(index).inserted {
                            open.append(
                                (index, openNote(alias: alias, location: location, header: header, words: words)))
                        }
                        continue
                    }
                }
                applied.insert(index)
                if case .failure(let problem) = apply(block) { return .failure(problem) }
            }
            guard wantsFinalPass, !inFinalPass else { break }
            inFinalPass = true
            order = finalPass(lowercased(hostname ?? alias))
        }
        let resolvedHost = hostname ?? alias
        if let problem = Validation.hostnameProblem(resolvedHost) {
            return .failure(
                ValidationError(field: "hostname", message: "\(location): host '\(alias)' skipped: hostname \(problem)")
            )
        }
        if let problem = Validation.nameProblem(alias) {
            return .failure(ValidationError(field: "name", message: "\(location): host skipped: \(problem)"))
        }
        return .success(
            ImportedHost(
                alias: alias, hostname: resolvedHost, user: user ?? "", port: port ?? Host.defaultPort,
                identityFiles: identityFiles, proxyJump: jump ?? [], forwards: forwards,
                options: options, proxyCommandJump: proxyCommand.flatMap(ProxyCommandJump.hosts),
                file: file, line: number, description: descriptions.joined(separator: "\n")))
    }

    /// The note for a host a Match block only ssh can decide may change.
    static func openNote(alias: String, location: String, header: SSHConfigLine, words: [String]) -> String {
        let criteria = words.count == 1 ? "its \(words[0]) criterion" : "its \(words.joined(separator: ", ")) criteria"
        return
            "\(location): host '\(alias)': 'Match \(header.rawArguments)' at \(header.location) is kept as written for "
            + "OpenSSH (ssh decides \(criteria) when it connects; sshelf's own client does not apply it)"
    }

    /// One note for each Match block skipped unread, or kept for OpenSSH because ssh would refuse its line: either
    /// may change any host.
    static func matchNotes(_ blocks: [Block], kept: Set<Int>, defaults: Set<Int>) -> [String] {
        var notes: [String] = []
        for (index, block) in blocks.enumerated() where block.isMatch && block.criteria == nil && !block.lines.isEmpty {
            guard let header = block.header, !header.reopened else { continue }
            let settings = Set(block.lines.filter { !SSHConfigAnnotation.isAnnotation($0.key) }.map(\.keyword)).sorted()
                .joined(separator: ", ")
            if header.unreadable != nil {
                notes.append(
                    "\(header.location): the skipped Match block sets \(settings) and may change any host; check them "
                        + "with ssh -G")
            } else if kept.contains(index), defaults.contains(index) {
                notes.append(
                    "\(header.location): 'Match \(header.rawArguments)' is not a Match line sshelf can read; kept as "
                        + "written for OpenSSH, it sets \(settings) and may change any host")
            }
        }
        return notes
    }
}
