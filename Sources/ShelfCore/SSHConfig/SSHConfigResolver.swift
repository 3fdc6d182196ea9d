// SSHConfigResolver: turns a read ssh_config into concrete hosts the way `ssh -G` would see each alias:
// blocks apply in file order, the first value of a keyword wins, forwards and IdentityFiles accumulate.
// Wildcard patterns and Match blocks are not hosts: a pattern's options are kept as defaults (a pattern with none is
// skipped), a Match block is skipped, each reported with its line. Options sshelf does not model are kept verbatim:
// a host's own blocks' on the host, a pattern block's as defaults for it.
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
    /// Where the alias was first named.
    public var location: String
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
    /// Hosts a skipped Match block may change, and Match blocks that may change any host.
    public var notes: [String] = []
}

public enum SSHConfigResolver {
    struct Block {
        var patterns: [String]
        var isMatch: Bool
        /// The Host or Match line, as a one-line slice of the document's lines (nil for the settings before the first
        /// one): a view, not a copy — each of a 100,000-host file's blocks copied its line (20 MB at the peak).
        var headerLine: ArraySlice<SSHConfigLine>?
        var header: SSHConfigLine? { headerLine?.first }
        /// The block's lines: a slice of the document's (a block's lines follow its header), not a copy.
        var lines: ArraySlice<SSHConfigLine> = []
        /// A block whose patterns are not all literal names (its options become defaults).
        var isPattern: Bool { patterns.contains(where: SSHConfigResolver.isWildcard) }
        /// Where the block starts, for messages.
        var location: String { header?.location ?? lines.first.map { "\($0.file):1" } ?? "?" }
    }

    public static func resolve(_ document: SSHConfigDocument) -> SSHConfigImport {
        var result = SSHConfigImport()
        result.warnings = document.warnings
        let all = document.lines
        var blocks = [Block(patterns: ["*"], isMatch: false, headerLine: nil)]
        var blockStart = 0
        /// Each alias with its case-folded form (made once: the index below is keyed by it) and its Host line's index.
        var aliases: [(alias: String, key: String, line: Int)] = []
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
            blocks[blocks.count - 1].lines = all[blockStart..<index]
            blockStart = index + 1
            let line = all[index]
            if key == "match" {
                blocks.append(Block(patterns: [], isMatch: true, headerLine: all[index...index]))
                if line.reopened {
                } else if let reason = line.unreadable {
                    result.skipped.append("\(line.location): Match block skipped: its line cannot be read (\(reason))")
                } else {
                    result.skipped.append(
                        "\(line.location): Match block skipped (its conditions are evaluated by ssh at connect time)")
                }
                continue
            }
            blocks.append(Block(patterns: line.arguments, isMatch: false, headerLine: all[index...index]))
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
        blocks[blocks.count - 1].lines = all[blockStart...]
        // Blocks whose patterns are all literal are found through an index, so resolving 100,000 aliases is
        // not 100,000 × 100,000 pattern matches; blocks with wildcards or negations are tested for each alias.
        // Most names are in one block: its index is kept alone, further blocks of a name in a second table.
        var literalBlock: [String: Int] = [:]
        literalBlock.reserveCapacity(aliases.count)
        var moreLiteralBlocks: [String: [Int]] = [:]
        var patternBlocks: [Int] = []
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
        // the parts joined in file order.
        let parts = aliases.count >= parallelThreshold ? 2 : 1
        let chunk = (aliases.count + parts - 1) / max(parts, 1)
        let resolved = PartResults(parts, empty: ResolvedPart())
        let shared = SharedBlocks(
            blocks: blocks, literal: literalBlock, more: moreLiteralBlocks, patterns: patternBlocks,
            groupAt: groupAt)
        let aliasList = aliases
        let resolvePart: @Sendable (Int) -> Void = { part in
            var out = ResolvedPart()
            var candidates: [Int] = []
            let range = min(part * chunk, aliasList.count)..<min((part + 1) * chunk, aliasList.count)
            out.hosts.reserveCapacity(range.count)
            for (alias, key, line) in aliasList[range] {
                let location = all[line].location
                candidates.removeAll(keepingCapacity: true)
                if let first = shared.literal[key] {
                    candidates.append(first)
                    if let more = shared.more[key] { candidates += more }
                }
                for index in shared.patterns where blockMatches(shared.blocks[index], alias: alias) {
                    candidates.append(index)
                }
                if candidates.count > 1 { candidates.sort() }
                switch effectiveHost(
                    alias: alias, location: location, blocks: shared.blocks, in: candidates,
                    warnings: &out.warnings)
                {
                case .success(var host):
                    host.group = shared.groupAt[line]
                    out.hosts.append(host)
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
        let resolvedParts = (0..<parts).map { resolved.take($0) }
        for part in resolvedParts {
            result.failures += part.failures
            result.warnings += part.warnings
        }
        // The parts' hosts go straight into the folded list, in order: no joined copy of every host first (20 MB and
        // 100,000 copies at 100,000 hosts). Names alike in every field may still differ in what a pattern gives them
        // (`Host n?a` with SendEnv matches n3a and not n3b): one host's block would give both the same.
        result.hosts = foldingAliases(resolvedParts.map(\.hosts)) { first, other in
            patternBlocks.allSatisfy {
                blockMatches(blocks[$0], alias: first) == blockMatches(blocks[$0], alias: other)
            }
        }
        var keptBlocks: Set<Int> = []
        for index in patternBlocks {
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
        result.notes =
            document.notes
            + SSHConfigMatchNotes.notes(
                blocks: blocks.filter { $0.isMatch && !$0.lines.isEmpty },
                hosts: result.hosts)
        SSHConfigRelease.elsewhere(
            (
                consume blocks, consume seen, consume aliases, consume resolvedParts, resolved, shared,
                resolvePart
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
        var out: [ImportedHost] = []
        out.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        var lineStart = -1
        for host in parts.joined() {
            if lineStart >= 0, out[lineStart].location == host.location, out[lineStart].sameSettings(as: host),
                samePatterns(out[lineStart].alias, host.alias)
            {
                out[lineStart].aliases.append(host.alias)
                continue
            }
            if lineStart < 0 || out[lineStart].location != host.location { lineStart = out.count }
            out.append(host)
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
        var hosts: [ImportedHost] = []
        var failures: [String] = []
        var warnings: [String] = []
    }

    /// The blocks and their index, read (never written) by every part while resolving runs.
    struct SharedBlocks: @unchecked Sendable {
        let blocks: [Block]
        let literal: [String: Int]
        let more: [String: [Int]]
        let patterns: [Int]
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
    public static func hostMatches(patterns: [String], alias: String) -> Bool {
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

    /// The host as the given blocks (already the matching ones, in file order) configure it.
    static func effectiveHost(
        alias: String, location: String, blocks: [Block], in indexes: [Int],
        warnings: inout [String]
    ) -> Result<ImportedHost, ValidationError> {
        var hostname: String?, user: String?, port: Int?, jump: [String]?
        var identityFiles: [String] = []
        var forwards: [ForwardSpec] = []
        var options: [String] = []
        /// Where a pattern block set a first-value-wins keyword: a later value of the host's own is dead in ssh.
        var setByPattern: [String: String] = [:]
        var proxyCommand: String? = nil
        var descriptions: [String] = []
        func fail(_ line: SSHConfigLine, _ message: String) -> Result<ImportedHost, ValidationError> {
            .failure(ValidationError(field: line.key, message: "\(line.location): host '\(alias)' skipped: \(message)"))
        }
        for index in indexes {
            let block = blocks[index]
            let pattern = block.isPattern
            for line in block.lines {
                let first = line.arguments.first ?? ""
                if SSHConfigAnnotation.isAnnotation(line.key) {
                    if line.key == SSHConfigAnnotation.description, !pattern, !first.isEmpty {
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
                        let spec = try ForwardSpec.parseConfig(line.arguments, kind: kind)
                        if !forwards.contains(spec) { forwards.append(spec) }
                    } catch {
                        return fail(line, error.message)
                    }
                default:
                    break
                }
            }
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
                location: location, description: descriptions.joined(separator: "\n")))
    }
}
