// VaultDialogText: the words of the vault dialog when V creates a vault (the app asks them; the dialog's title
// follows them: "Create the vault" instead of "Unlock the vault").
public enum VaultDialogText {
    public static let create =
        "No vault on this device yet. A passphrase for a new one (it locks your keys and passwords; Esc: none made):"
    public static let createAgain = "The same passphrase again:"

    public static func isCreate(_ text: String) -> Bool { text.hasSuffix(create) || text == createAgain }
}
