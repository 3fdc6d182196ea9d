// Commands: the command table — every command sshelf has, in the order --help lists them.
enum Commands {
    static let table: [CommandSpec] =
        HostCommands.commands + GroupCommands.commands + ForwardCommands.commands + MiscCommands.commands.prefix(1)
        + ImportExportCommands.commands + UICommands.commands + MiscCommands.commands.dropFirst()
}
