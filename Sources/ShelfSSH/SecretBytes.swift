// SecretBytes: ShelfSSH's name for ShelfSystem's guarded secret buffer (the same type the vault hands out), so
// a credential goes from the vault to libssh2 without a copy.
import ShelfSystem

public typealias SecretBytes = ShelfSystem.SecretBytes
