// Commands: the command table — every command sshelf has, in the order --help lists them.
enum Commands {
    static let table: [CommandSpec] =
        HostCommands.commands + SSHCommands.commands + GroupCommands.commands + ForwardCommands.commands + ForwardRunCommands.commands
        + MiscCommands.commands.prefix(1) + IdentityVaultCommands.commands + ImportExportCommands.commands
        + VaultCommands.commands + SyncCommands.commands + MiscCommands.commands.dropFirst()
}
