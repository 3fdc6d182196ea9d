// SecretBytes: the vault's name for ShelfSystem's guarded secret buffer, so code that imports only the vault
// (sync, its tests) uses the one type by the same name.
import ShelfSystem

public typealias SecretBytes = ShelfSystem.SecretBytes
