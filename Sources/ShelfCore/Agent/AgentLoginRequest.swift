// AgentLoginRequest: the data ssh asks the agent to sign when it logs in with a key (RFC 4252 section 7, and
// OpenSSH's publickey-hostbound-v00@openssh.com, which adds the server's host key) — read so a host-bound key is
// used only for a login of the session the connection is bound to, as the user the host names. Pure.
public struct AgentLoginRequest: Sendable, Equatable {
    public var sessionID: [UInt8]
    public var user: String
    public var keyBlob: [UInt8]
    /// The server's host key, sent by OpenSSH ≥ 8.9 in the host-bound method; nil in plain `publickey`.
    public var hostKey: [UInt8]?

    static let userAuthRequest: UInt8 = 50
    static let hostBoundMethod = "publickey-hostbound-v00@openssh.com"

    /// The request in `data`, or nil when it is anything else (OpenSSH's parse_userauth_request).
    public static func decode(_ data: [UInt8]) -> AgentLoginRequest? {
        data.withUnsafeBytes { bytes -> AgentLoginRequest? in
            var reader = SSHWireReader(bytes)
            guard let sessionID = reader.bytesString(limit: AgentLimits.sessionID),
                reader.byte() == userAuthRequest,
                let user = reader.text(limit: AgentLimits.name),
                reader.text(limit: AgentLimits.name) == "ssh-connection",
                let method = reader.text(limit: AgentLimits.name),
                method == "publickey" || method == hostBoundMethod,
                reader.bool() == true,
                reader.text(limit: AgentLimits.name) != nil,
                let keyBlob = reader.bytesString(limit: AgentLimits.keyBlob)
            else { return nil }
            var hostKey: [UInt8]? = nil
            if method == hostBoundMethod {
                guard let key = reader.bytesString(limit: AgentLimits.keyBlob) else { return nil }
                hostKey = key
            }
            guard reader.isAtEnd else { return nil }
            return AgentLoginRequest(sessionID: sessionID, user: user, keyBlob: keyBlob, hostKey: hostKey)
        }
    }
}
