// ShellObserver: what an interactive session shows and is sent, handed to whoever watches it (a session
// recording): output bytes as they reach the terminal, input bytes as they go to the server (after the ~
// escapes were taken out), and the terminal's size at the start and at each change. Called on the pump's thread;
// an observer must not block it.
public protocol ShellObserver: AnyObject, Sendable {
    func started(size: TerminalSize)
    func output(_ bytes: UnsafeRawBufferPointer)
    func input(_ bytes: [UInt8])
    func resized(_ size: TerminalSize)
}
