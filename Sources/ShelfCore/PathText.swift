// PathText: the parts of a file path, worked out on its text as Foundation's NSString path methods do (not in
// FoundationEssentials): the folder a file is in, its last part, a part appended, an extension removed.
extension String {
    /// The path without its last part: `/a/b` → `/a`, `/a` → `/`, `b` → `` (NSString's
    /// deletingLastPathComponent).
    public var parentPath: String {
        let path = PathText.withoutTrailingSlashes(self)
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let parent = PathText.withoutTrailingSlashes(String(path[..<slash]))
        return parent.isEmpty ? "/" : parent
    }

    /// The last part: `/a/b/` → `b`, `/` → `/` (NSString's lastPathComponent).
    public var lastPathPart: String {
        let path = PathText.withoutTrailingSlashes(self)
        guard let slash = path.lastIndex(of: "/"), path != "/" else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `part` added after a slash: `a` + `b` → `a/b`, `/` + `b` → `/b` (NSString's appendingPathComponent).
    public func appendingPathPart(_ part: String) -> String {
        if isEmpty { return part }
        if part.isEmpty { return self }
        let base = PathText.withoutTrailingSlashes(self)
        return base == "/" ? "/" + part : base + "/" + part
    }

    /// The last part without its extension: `id_rsa.pub` → `id_rsa`; `.ssh` has none (NSString's
    /// deletingPathExtension).
    public var removingPathExtension: String {
        let path = PathText.withoutTrailingSlashes(self), last = path.lastPathPart
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return path }
        return String(path.dropLast(last.distance(from: dot, to: last.endIndex)))
    }
}

public enum PathText {
    /// `path` with `~` expanded, `.` and `..` parts worked out and repeated slashes made one (NSString's
    /// standardizingPath, without its symbolic-link step).
    public static func standardized(_ path: String, home: String) -> String {
        var path = path
        if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", absolute || (parts.last.map { $0 != ".." } ?? false) {
                if !parts.isEmpty { parts.removeLast() }
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : joined
    }

    static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
