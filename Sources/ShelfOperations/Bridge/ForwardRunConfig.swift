// ForwardRunConfig: the ssh_config `sshelf forward start --openssh` hands OpenSSH's ssh — the bridge's text (the
// sshelf agent for vault keys, sshelf's pins as the only known hosts) with only the forwards asked for, so `ssh -N`
// runs those rules and no others (ssh adds up forwards from every file it reads: the config cannot drop one later).
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfSystem

extension SSHConfigBridge {
    /// Writes the bridge (pins and public keys current), then a private config at `path` where host `hostID` has the
    /// rules in `ruleIDs` as its forwards. With `onlyRules` (the user named rules) the forwards its patterns and its
    /// kept lines give (a socket forward kept as written) are left out too; else they run as `ssh HOST` would.
    public func writeForwardRun(
        from store: Store, hostID: UUID, ruleIDs: Set<UUID>, onlyRules: Bool,
        to path: String
    ) throws {
        try write(from: store)
        var input = try store.read { store in
            SSHConfigEmitter.Input(
                hosts: try store.hosts(), identities: try store.identities(),
                rules: try store.forwardRules(), groups: try store.groups(),
                defaults: try store.optionDefaults())
        }
        input.rules = input.rules.filter { ruleIDs.contains($0.id) && $0.hostID == hostID }
        if onlyRules {
            let forwardKeys: Set<String> = ["localforward", "remoteforward", "dynamicforward"]
            let isForward = { (line: String) in forwardKeys.contains(SSHOption(line: line)?.key ?? "") }
            for index in input.hosts.indices where input.hosts[index].id == hostID {
                input.hosts[index].options.removeAll(where: isForward)
            }
            for index in input.defaults.indices { input.defaults[index].options.removeAll(where: isForward) }
        }
        let bridge = SSHConfigEmitter.Bridge(
            agentSocket: locations.agentSocket, pinsFile: pinsPath,
            publicKeyFiles: try writePublicKeys(input.identities),
            refused: try checkedOptions(input), writesForwardRules: true, postQuantumKex: Self.postQuantumKex(input))
        let text = SSHConfigEmitter.emitBridge(input, bridge: bridge, generatedBy: "sshelf forward start --openssh")
        try PrivateFiles.atomicWrite(Data(text.utf8), to: path)
    }
}
