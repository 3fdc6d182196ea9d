// SSHConfigResolver: turns a read ssh_config into concrete hosts the way `ssh -G` would see each alias:
// blocks apply in file order, the first value of a keyword wins, forwards and IdentityFiles accumulate.
// Wildcard patterns and Match blocks are not hosts; they are reported as skipped with their line.
import Foundation

public struct ImportedHost: Hashable, Sendable {
    public var alias: String
    public var hostname: String
    public var user: String
    public var port: Int
    public var identityFiles: [String]
    /// ProxyJump destinations, outermost first; empty when none (or `none`).
    public var proxyJump: [String]
    public var forwards: [ForwardSpec]
    /// Where the alias was first named.
    public var location: String
}

public struct SSHConfigImport: Sendable {
    public var hosts: [ImportedHost] = []
    /// Blocks and hosts that were not imported, each with its file:line and reason.
    public var skipped: [String] = []
    /// Hosts named in the file that could not be imported (a bad Port, an invalid HostName), with file:line.
    public var failures: [String] = []
    /// Settings that were read but cannot be carried over (ProxyCommand, unknown forwards…).
    public var warnings: [String] = []
}

public enum SSHConfigResolver {
    struct Block {
        var patterns: [String]
        var isMatch: Bool
        var header: SSHConfigLine?
        var lines: [SSHConfigLine] = []
    }

    public static func resolve(_ document: SSHConfigDocument) -> SSHConfigImport {
        var result = SSHConfigImport()
        result.warnings = document.warnings
        var blocks = [Block(patterns: ["*"], isMatch: false, header: nil)]
        var aliases: [(String, SSHConfigLine)] = []
        var seen: Set<String> = []
        for line in document.lines {
            switch line.key {
            case "host":
                blocks.append(Block(patterns: line.arguments, isMatch: false, header: line))
                guard !line.reopened else { continue }
                if line.arguments.isEmpty { result.skipped.append("\(line.location): Host line with no pattern") }
                for pattern in line.arguments {
                    if isWildcard(pattern) {
                        result.skipped.append("\(line.location): Host pattern '\(pattern)' is a wildcard, not a host")
                    } else if seen.insert(pattern.lowercased()).inserted {
                        aliases.append((pattern, line))
                    }
                }
            case "match":
                blocks.append(Block(patterns: [], isMatch: true, header: line))
                if !line.reopened {
                    result.skipped.append("\(line.location): Match block skipped (its conditions are evaluated by ssh at connect time)")
                }
            default:
                blocks[blocks.count - 1].lines.append(line)
            }
        }
        // Blocks whose patterns are all literal are found through an index, so resolving 100,000 aliases is
        // not 100,000 × 100,000 pattern matches; blocks with wildcards or negations are tested for each alias.
        var literalBlocks: [String: [Int]] = [:]
        var patternBlocks: [Int] = []
        // A block without settings changes no host (the implicit one before the first Host line, usually).
        for (index, block) in blocks.enumerated() where !block.isMatch && !block.lines.isEmpty {
            if block.patterns.contains(where: isWildcard) {
                patternBlocks.append(index)
            } else {
                for pattern in Set(block.patterns.map { $0.lowercased() }) { literalBlocks[pattern, default: []].append(index) }
            }
        }
        for (alias, line) in aliases {
            let candidates = (literalBlocks[alias.lowercased()] ?? []) + patternBlocks.filter { blockMatches(blocks[$0], alias: alias) }
            let matching = candidates.sorted().map { blocks[$0] }
            switch effectiveHost(alias: alias, location: line.location, blocks: matching) {
            case .success(let host): result.hosts.append(host)
            case .failure(let problem): result.failures.append(problem.message)
            }
            result.warnings += unsupported(alias: alias, blocks: matching)
        }
        return result
    }

    public static func isWildcard(_ pattern: String) -> Bool {
        pattern.utf8.contains { $0 == 0x2A || $0 == 0x3F || $0 == 0x21 || $0 == 0x2C }  // * ? ! ,
    }

    /// OpenSSH Host matching: any positive pattern matches and no negated one does; case-insensitive.
    static func blockMatches(_ block: Block, alias: String) -> Bool {
        if block.isMatch { return false }
        let host = alias.lowercased()
        var matched = false
        for pattern in block.patterns {
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
    static func effectiveHost(alias: String, location: String, blocks: [Block]) -> Result<ImportedHost, ValidationError> {
        var hostname: String?, user: String?, port: Int?, jump: [String]?
        var identityFiles: [String] = []
        var forwards: [ForwardSpec] = []
        func fail(_ line: SSHConfigLine, _ message: String) -> Result<ImportedHost, ValidationError> {
            .failure(ValidationError(field: line.key, message: "\(line.location): host '\(alias)' skipped: \(message)"))
        }
        for block in blocks {
            for line in block.lines {
                let first = line.arguments.first ?? ""
                switch line.key {
                case "hostname" where hostname == nil:
                    guard !first.isEmpty else { return fail(line, "HostName has no value") }
                    let expanded = !first.utf8.contains(0x25) ? first : first.replacingOccurrences(of: "%%", with: "\u{0}")
                        .replacingOccurrences(of: "%h", with: alias).replacingOccurrences(of: "\u{0}", with: "%")
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
                    if !first.isEmpty, !identityFiles.contains(first), first.lowercased() != "none" {
                        identityFiles.append(first)
                    }
                case "proxyjump" where jump == nil:
                    jump = first.lowercased() == "none" ? [] : first.split(separator: ",").map(String.init)
                case "localforward", "remoteforward", "dynamicforward":
                    let kind: ForwardKind = line.key == "localforward" ? .local : line.key == "remoteforward" ? .remote : .dynamic
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
            return .failure(ValidationError(field: "hostname", message: "\(location): host '\(alias)' skipped: hostname \(problem)"))
        }
        if let problem = Validation.nameProblem(alias) {
            return .failure(ValidationError(field: "name", message: "\(location): host skipped: \(problem)"))
        }
        return .success(ImportedHost(alias: alias, hostname: resolvedHost, user: user ?? "", port: port ?? Host.defaultPort,
                                     identityFiles: identityFiles, proxyJump: jump ?? [], forwards: forwards,
                                     location: location))
    }

    /// Keywords that change how ssh reaches a host and that sshelf does not carry: said once per host.
    static func unsupported(alias: String, blocks: [Block]) -> [String] {
        var found: [String] = []
        for block in blocks {
            for line in block.lines where line.key == "proxycommand" {
                found.append("\(line.location): host '\(alias)': ProxyCommand is not supported; imported without it")
            }
        }
        return found
    }
}
