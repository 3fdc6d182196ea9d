// Effect: what the reducer asks the app to do (store reads and writes, connecting, quitting). The app runs
// them off the input path and reports back with an `Action`.
import FoundationEssentials
import ShelfCore

public enum Effect: Sendable, Equatable {
    case load
    /// Save a host; its password, typed in the form, goes to the vault (never the store) after it.
    case saveHost(ShelfCore.Host, groupPath: String, password: PasswordChange = .keep)
    case saveGroup(HostGroup, parentPath: String)
    case saveForward(PortForwardRule)
    case saveIdentity(Identity)
    case deleteHost(UUID)
    case deleteGroup(UUID)
    case deleteForward(UUID)
    /// Delete an identity; the hosts using it have their identity cleared in the same transaction.
    case deleteIdentity(UUID)
    /// Log in to the host in the background, curses still up; questions come back as `Action.prompt`.
    case connect(UUID)
    /// Stop the connect attempt under way, whatever it is doing (its socket is shut down).
    case cancelConnect
    /// Inside tmux: the hosts in a new tmux window (several: tiled, a pane each), each running `sshelf connect`.
    case openInTmux([UUID])
    /// The login finished: leave curses, run the interactive shell on that connection, come back.
    case launchSession(UUID)
    /// The user's answer to a connect-time question (see `ConnectPrompt`).
    case answerPrompt(PromptAnswer)
    /// Run a forward rule in the background while the TUI is open (`allowPublicBind` after the user agreed).
    case startForward(UUID, allowPublicBind: Bool)
    /// Stop a forward rule the TUI runs.
    case stopForward(UUID)
    /// Ask for the vault passphrase (in a dialog) and unlock the vault in this process.
    case unlockVault
    /// Forget every unlocked class key, as `sshelf vault lock` does.
    case lockVault
    /// Run a sync now instead of waiting for the next trigger.
    case syncNow
    /// Log in to the host in the background and install an identity's public key (`sshelf copy-id`): `identity`, or
    /// the host's own when nil.
    case copyID(UUID, identity: UUID?)
    /// The user's answer to the sshelf agent's question.
    case answerAgent(UUID, allow: Bool)
    /// Run one command on these hosts as `sshelf run` does; `confirmed` once the typed confirmation was given.
    case runFleet([UUID], command: String, confirmed: Bool)
    /// Esc in the run pane: the first starts no more hosts, the second stops the running ones.
    case stopFleet
    /// Move these vault items to the class `forward up` reads unattended (the user agreed; asks the vault
    /// passphrase when the session is locked).
    case moveCredentials([ReferenceKey], to: String)
    /// Read the merge conflicts for the conflict list (`Action.conflicts` answers).
    case loadConflicts
    /// Settle a merge conflict: take the other value, or keep the kept one (an edit that syncs).
    case settleConflict(Int, takeOther: Bool)
    /// Plan the import of ~/.ssh/config and roll it back (`import ssh-config --dry-run`): `Action.importPreviewed`.
    case previewImport
    /// Import ~/.ssh/config (`import ssh-config`): `Action.imported`.
    case runImport
    /// Open the file pane's sides: list this machine's folder (`localPath`, else the current one) and log in to the
    /// host as Enter does, then list its folder (`remotePath`, else the login's home): `Action.filesConnected`,
    /// `Action.filesListed`.
    case openFiles(UUID, remotePath: [UInt8]?, localPath: [UInt8]?)
    /// List a folder on one side of the file pane (`Action.filesListed`, tagged with `generation`).
    case listFiles(FilesPane.Side, path: [UInt8], generation: Int)
    /// The file pane closed: its host's connection ends.
    case closeFiles
    /// Queue a copy on the file pane's host connection (`Action.filesTransfer` reports it).
    case copyFiles(FilesTransfer.Request)
    /// Make a folder, rename, delete or change a mode on one side of the file pane (`Action.filesChanged`).
    case changeFiles(FilesPane.Side, FilesChange)
    /// Stop a queued or running copy (its temporary file is removed, as `cp` does on Ctrl-C).
    case cancelCopy(Int)
    /// Enter on a host's file: download it to a private copy (`Action.filesEditReady`), for the editor.
    case editFile([UInt8])
    /// Step out of curses and run the editor on the downloaded copy `id`, then save it if it changed.
    case runEditor(Int)
    /// The answer to "changed on the host meanwhile" for the edit `id`.
    case resolveEdit(Int, FilesEditChoice)
    case quit
}

/// What the host form does with the host's password in the vault.
public enum PasswordChange: Sendable, Equatable {
    case keep
    /// Store this one (in the class the vault's policy names, as `sshelf vault set-password` does).
    case set(String)
    /// Remove the stored one.
    case remove
}

public enum Action: Sendable {
    case key(Key)
    case resize(rows: Int, columns: Int)
    case tick(Date)
    case loaded(Catalog)
    /// Another process (or another connection of this one) changed the store or the vault: read it again.
    case storeChanged
    /// The store could not be read: its error and, where the user can act, a hint.
    case loadFailed(String, hint: String?)
    /// The vault cannot be opened (browsing can go on without it).
    case vaultFailed(String, hint: String?)
    /// Run one chunk of the search filter (sent by the run loop when no key is waiting).
    case filterStep
    /// A save or delete finished: a line to show, or the error that stopped it.
    case operationFinished(Result<String, OperationFailure>)
    case connectFinished(Notice)
    /// A line for the title bar from background work (the vault unlocked, or why not).
    case notify(Notice)
    case status(StatusModel)
    /// The vault's state changed here (unlocked or locked with its key): the status line follows at once.
    case vaultStatus(VaultIndicator)
    /// The SSH engine needs an answer before the session can go on.
    case prompt(ConnectPrompt)
    /// The background login to this host succeeded: the session can start.
    case loggedIn(hostID: UUID)
    /// The forward rules running right now (refreshed in the background about once a second).
    case forwardStates([UUID: ForwardLive])
    /// The sshelf agent asks whether a signature may be made; it stopped waiting for the answer.
    case agentQuestion(AgentQuestion)
    case agentQuestionEnded(UUID)
    /// The run needs a typed confirmation first (`reason`; the user types `answer`).
    case fleetConfirm(reason: String, answer: String)
    /// The hosts' states of the run under way (or how it ended).
    case fleetProgress(FleetPane.Update)
    /// What the reachability probes found for the hosts in the probed window (the whole window each time).
    case reachability([UUID: HostReachability])
    /// Kept option lines the installed ssh refuses, with its words (more of them as more hosts are selected).
    case optionsRefused([String: String])
    /// A rule just marked autostart logs in with credentials that lock with the vault session: ask to move them.
    case askAutostartMove(AutostartMove)
    /// The merge conflicts, worded for the conflict list.
    case conflicts([ConflictItem])
    /// ~/.ssh/config as the app finds it now (there or not, changed since its import or not).
    case userConfig(UserConfigState)
    /// What importing ~/.ssh/config would do (the dry run's lines), or why it cannot be imported.
    case importPreviewed(Result<[String], OperationFailure>)
    /// What the import did (the summary `import ssh-config` prints), or why it failed.
    case imported(Result<[String], OperationFailure>)
    /// Open the file pane on a host at start (`sshelf files HOST [PATH]`).
    case showFiles(hostID: UUID, name: String, remotePath: [UInt8]?, localPath: [UInt8]?)
    /// The file pane's host side logged in (failure nil) or could not (why).
    case filesConnected(hostID: UUID, failure: String?)
    /// What was read of a folder of the file pane so far.
    case filesListed(FilesPane.Listing)
    /// A change on one side of the file pane was made (its line) or refused (why).
    case filesChanged(FilesPane.Side, Result<String, OperationFailure>)
    /// How a copy of the file pane goes (`id`, its state, bytes, rate) or how it ended.
    case filesTransfer(id: Int, state: FilesTransfer.State, bytes: UInt64, rate: Double, detail: String)
    /// A host's file was downloaded to the private copy `id`: the editor can run.
    case filesEditReady(id: Int)
    /// The file of the edit `id` changed on the host while it was edited (or the name to save it as exists: why).
    case filesEditConflict(FilesEdit, problem: String?)
}

public struct OperationFailure: Error, Sendable, Equatable {
    public var message: String
    /// The form field the failure is about (e.g. "name" for a name another host has), shown under it.
    public var field: String?
    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }
}
