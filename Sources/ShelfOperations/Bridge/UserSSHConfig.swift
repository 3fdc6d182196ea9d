// UserSSHConfig: the user's own ssh_config as sshelf reads it — the file system seen by the reader (sshelf's own
// output, the bridge and the files beside it, never read back in) for `import ssh-config`, and ~/.ssh/config as the
// bridge sees it when that file includes the bridge (what it already says for each host, the transparency rule).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public enum UserSSHConfig {
    /// The file system as the reader sees it; files under sshelf's config folder (the bridge, its pins and keys)
    /// are never read back in.
    public static func fileSource(home: String, own configDirectory: String) -> SSHConfigSource {
        SSHConfigSource(
            read: { path in
                let data: [UInt8]
                do { data = try RegularFile.read(path, limit: SSHConfigReader.maxFileSize) } catch let error
                    as RegularFileError
                {
                    switch error.kind {
                    case .missing:
                        throw ShelfError(.notFound, "cannot read \(path): \(String(cString: strerror(ENOENT)))")
                    case .tooLarge:
                        throw ShelfError(
                            .invalid, "\(path) \(SSHConfigReader.sizeProblem)", hint: SSHConfigReader.sizeHint)
                    case .notRegular, .unreadable: throw ShelfError(.invalid, error.description)
                    }
                }
                guard let text = String(validating: data, as: UTF8.self) else {
                    throw ShelfError(.invalid, "\(path) is not UTF-8 text (a binary file?)")
                }
                return text
            },
            glob: { pattern in
                var result = glob_t()
                defer { globfree(&result) }
                guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
                return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
            },
            homeDirectory: home,
            skip: { path in
                let own = realPath(configDirectory)
                let file = realPath(path)
                guard file == own || file.hasPrefix(own + "/") else { return nil }
                return
                    "it is sshelf's own output (the ssh_config bridge or a file beside it, written from this store); "
                    + "importing it would bring sshelf's hosts and its agent and pin settings back in as copies"
            })
    }

    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// What ~/.ssh/config (and what it Includes, sshelf's own files left out) says for each host name, read as ssh
    /// reads it; nil when it cannot be read (then ssh cannot read it either, and the bridge is written whole).
    public static func hostLines(home: String, own configDirectory: String) -> SSHConfigHostLines? {
        let path = home + "/.ssh/config"
        guard access(path, F_OK) == 0,
            let document = try? SSHConfigReader.read(
                path: path, source: fileSource(home: home, own: configDirectory),
                includeBase: home + "/.ssh")
        else { return nil }
        return SSHConfigHostLines(document)
    }
}
