// LibSSH2: library initialisation and version; sessions, host-key checks and auth arrive with the SSH issue.
import CLibSSH2
import CShims

public enum LibSSH2 {
    /// The libssh2 version this process runs against (not the one it was built with).
    public static var version: String {
        guard let text = libssh2_version(0) else { return "unknown" }
        return String(cString: text)
    }

    /// Whether a session object can be created (the library and its crypto backend initialise).
    public static func selfTest() -> Bool {
        guard libssh2_init(0) == 0, let session = cshims_libssh2_session_init() else { return false }
        libssh2_session_free(session)
        return true
    }
}
