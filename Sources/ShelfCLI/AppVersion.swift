// AppVersion: the program's version, printed by --version and written into exports.
enum AppVersion {
    static let version = "0.1.0"
}
