// ProcessHardening: settings applied at start so secrets cannot leak through the process: no core dumps.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public enum ProcessHardening {
    /// Sets RLIMIT_CORE to 0: a crash must not write memory holding credentials to disk.
    public static func apply() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    }
}
