// SSHConfigMatch: a `Match` line's criteria and what they decide for one name, as `ssh -G` (readconf.c,
// match_cfg_line) decides them: `host` (the HostName so far, else the name; any case), `originalhost` (the name as
// given), `user` (the User so far, else the local user), `localuser`, `all`, `canonical` and `final` (true only in
// the second reading a `Match final` asks for), each negated by `!`, patterns as comma lists with `!` exclusions.
// What only ssh can decide when it connects (`exec`, `localnetwork`, `tagged`, a word ssh may learn later) leaves
// the block undecided — unless another criterion already fails it: a failed criterion fails the whole line, and ssh
// does not even run an `exec` after one.
import FoundationEssentials
import Glibc

public enum SSHConfigMatch {
    public struct Criterion: Hashable, Sendable {
        /// The criterion's name, lower-cased (`host`, `exec`…).
        public var name: String
        public var negated: Bool
        /// The comma-separated patterns of a criterion with a value (empty for `all`, `canonical`, `final`).
        public var patterns: [String]
    }

    /// What a Match line decides for one name.
    public enum Decision: Equatable, Sendable {
        case applies, doesNotApply
        /// Only ssh can tell, when it connects: the criteria it has to run or look up.
        case undecided([String])
    }

    /// What the line's criteria are compared with.
    public struct Subject: Sendable {
        /// The HostName so far (`%h` expanded), else the name.
        public var host: String
        /// The name as given to ssh.
        public var originalHost: String
        /// The User so far, else the local user.
        public var user: String
        public var localUser: String
        /// Whether this is the second reading (`Match final`, `CanonicalizeHostname`).
        public var finalPass: Bool
    }

    static let alone: Set<String> = ["all", "canonical", "final"]
    static let valued: Set<String> = ["exec", "host", "originalhost", "user", "localuser", "localnetwork", "tagged"]
    /// Criteria sshelf decides; the rest of `valued` is left to ssh.
    static let decidable: Set<String> = ["all", "canonical", "final", "host", "originalhost", "user", "localuser"]

    /// The criteria of a Match line's words, or nil when one is not a criterion ssh knows, a value is missing, or
    /// there is none (ssh refuses such a line: the block is kept for ssh to say so).
    public static func criteria(_ arguments: [String]) -> [Criterion]? {
        var found: [Criterion] = []
        var index = 0
        while index < arguments.count {
            var word = arguments[index].lowercased()
            index += 1
            let negated = word.hasPrefix("!")
            if negated { word.removeFirst() }
            if alone.contains(word) {
                found.append(Criterion(name: word, negated: negated, patterns: []))
            } else if valued.contains(word), index < arguments.count {
                let patterns = arguments[index].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                index += 1
                found.append(Criterion(name: word, negated: negated, patterns: patterns))
            } else {
                return nil
            }
        }
        // `all` stands alone, or right after `canonical` or `final` (ssh refuses it anywhere else).
        if let at = found.firstIndex(where: { $0.name == "all" }) {
            guard at == found.count - 1, at == 0 || (at == 1 && ["canonical", "final"].contains(found[0].name)) else {
                return nil
            }
        }
        return found.isEmpty ? nil : found
    }

    /// Whether a line with these criteria asks ssh for a second reading: `final` anywhere on it, even negated (OpenSSH
    /// 9.2 notes the word while reading the line, whether the line applies or not).
    public static func asksForFinalPass(_ criteria: [Criterion]) -> Bool {
        criteria.contains { $0.name == "final" }
    }

    public static func decide(_ criteria: [Criterion], for subject: Subject) -> Decision {
        var open: [String] = []
        for criterion in criteria {
            let matched: Bool
            switch criterion.name {
            case "all": matched = true
            case "canonical", "final": matched = subject.finalPass
            case "host":
                matched = patternListMatches(criterion.patterns, subject.host.lowercased(), foldingCase: true)
            case "originalhost": matched = patternListMatches(criterion.patterns, subject.originalHost)
            case "user": matched = patternListMatches(criterion.patterns, subject.user)
            case "localuser": matched = patternListMatches(criterion.patterns, subject.localUser)
            default:
                open.append(criterion.name)
                continue
            }
            if matched == criterion.negated { return .doesNotApply }
        }
        return open.isEmpty ? .applies : .undecided(open)
    }

    /// OpenSSH's match_pattern_list: true when a pattern matches and no `!pattern` does; patterns are compared in
    /// lower case when `foldingCase` (the subject is then already lower case).
    static func patternListMatches(_ patterns: [String], _ subject: String, foldingCase: Bool = false) -> Bool {
        var matched = false
        for pattern in patterns {
            let negated = pattern.hasPrefix("!")
            var body = negated ? String(pattern.dropFirst()) : pattern
            if foldingCase { body = body.lowercased() }
            if SSHConfigResolver.glob(body, subject) {
                if negated { return false }
                matched = true
            }
        }
        return matched
    }

    /// The user sshelf runs as: what `user` compares with when no User is set, and what `localuser` compares with.
    public static func currentUser() -> String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return ""
    }
}
