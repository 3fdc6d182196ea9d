// VaultDialogText: the words of the vault dialog when V creates a vault (the app asks them; the dialog's title
// follows them: "Create the vault" instead of "Unlock the vault").
public enum VaultDialogText {
    public static let create =
        "No vault on this device yet. A passphrase for a new one (it locks your keys and passwords; Esc: none made):"
    public static let createAgain = "The same passphrase again:"
    private static let differ = "The two passphrases differ"

    /// Asked again after two answers that differed (the dialog shows two lines: this fits them).
    public static func createRetry(_ attempt: Int, of tries: Int) -> String {
        "\(differ) (try \(attempt) of \(tries)). A passphrase for the new vault:"
    }

    public static func isCreate(_ text: String) -> Bool {
        text == create || text == createAgain || text.hasPrefix(differ)
    }
}
