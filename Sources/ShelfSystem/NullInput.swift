// NullInput: whether a descriptor is /dev/null — stdin that can only ever say end-of-file, so there is nothing to
// forward (a warm keeper would start a relay thread and a pipe per call for it; `exec … </dev/null` in scripts and
// cron jobs is common). Compared by device number, so any path to it counts.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public enum NullInput {
    public static func isNull(_ fd: Int32) -> Bool {
        var info = stat(), null = stat()
        guard fstat(fd, &info) == 0, stat("/dev/null", &null) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFCHR && info.st_rdev == null.st_rdev
    }
}
