// LibSSH2: library initialisation (once per process) and version.
import CLibSSH2
import Foundation

public enum LibSSH2 {
    /// The libssh2 version this process runs against (not the one it was built with).
    public static var version: String {
        guard let text = libssh2_version(0) else { return "unknown" }
        return String(cString: text)
    }

    private static let initialised: Bool = libssh2_init(0) == 0

    /// libssh2_init is not thread-safe; a Swift static is initialised exactly once.
    static func initialiseOnce() { _ = initialised }

    /// Whether a session object can be created (the library and its crypto backend initialise).
    public static func selfTest() -> Bool {
        guard initialised, let session = libssh2_session_init_ex(nil, nil, nil, nil) else { return false }
        libssh2_session_free(session)
        return true
    }
}
