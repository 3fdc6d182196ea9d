// HostCertificateNote: what vouched for a host's key at its last session from this device when a host certificate
// did (no pin stands behind such a key): the certificate's serial, principal, end and CA, for `show` and the details.
import FoundationEssentials

public enum HostCertificateNote {
    /// The store setting that keeps it (device-local, like the last key exchange: a fact about this device's sessions).
    public static func settingKey(_ host: UUID) -> String { "hostcert.last.\(host.uuidString.lowercased())" }
}
