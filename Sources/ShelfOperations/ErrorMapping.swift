// ErrorMapping: the one place every failure becomes the shape users see — ShelfError(kind, message, hint,
// detail). The CLI prints it (`sshelf: error: …`, exit code by kind; CLIErrorHints adds the flags it names); the
// TUI shows its message and hint in the title bar. Nothing else maps StoreError, VaultError, SSHError, SyncFailure,
// ValidationError or the file errors.
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfStore
import ShelfSync
import ShelfSystem
import ShelfVault

extension ShelfError {
    public init(from error: any Error) {
        switch error {
        case let error as ShelfError:
            self = error
        case let error as StoreError:
            self.init(.storage, error.message, hint: error.hint)
        case let error as ValidationError:
            self.init(.invalid, error.message)
        case let error as HostOperations.StillJumpedThrough:
            self.init(.usage, error.message, hint: error.hint)
        case let error as HostOperations.NameTaken:
            self.init(.invalid, error.message, hint: "choose another name")
        case let error as VaultError:
            let kind: ShelfError.Kind
            switch error.kind {
            case .notInitialized, .unavailable, .permissions: kind = .storage
            case .refusedClass, .invalid: kind = .invalid
            case .locked, .wrongPassphrase, .busy: kind = .failure
            }
            self.init(kind, error.message, hint: error.hint)
        case let error as SSHError:
            self.init(.connection, error.message, hint: error.hint)
            guidance = error.guidance
            detail = error.libraryMessage.map { "libssh2: \($0)" }
        case let error as SyncFailure:
            self.init(.failure, error.reason, hint: error.hint)
            guidance = error.guidance
        case let error as RegularFileError:
            self.init(error.kind == .missing ? .notFound : .invalid, error.description)
        case let error as FileSystemError:
            self.init(.failure, error.description, hint: "check that the folder exists and belongs to you")
        default:
            self.init(.failure, "\(error)")
        }
    }
}
