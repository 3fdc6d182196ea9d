// Eventually: the one way a test waits — poll a condition until a generous deadline, and on timeout fail with what
// was last observed (a screen, a log tail). Deadlines cost nothing when the condition comes true early, so they are
// long enough for a loaded machine; SSHELF_TEST_DEADLINE_SCALE stretches every one of them at once.
import Foundation
import XCTest

public enum Deadline {
    /// Multiplies every deadline (SSHELF_TEST_DEADLINE_SCALE, e.g. 3 on a slow CI machine); 1 when unset or invalid.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["SSHELF_TEST_DEADLINE_SCALE"], let value = Double(text),
            value > 0
        else { return 1 }
        return value
    }()

    /// For anything that should happen "soon": a process starting, a screen redrawing, a log line appearing.
    public static let standard: TimeInterval = 45
    /// For what crosses several processes and network round trips (a supervisor's retry after a server restart).
    public static let long: TimeInterval = 90

    /// `seconds`, stretched by the scale: for deadlines handed to other programs (`timeout N`, a child's own wait).
    public static func scaled(_ seconds: TimeInterval) -> TimeInterval { seconds * scale }
}

/// Thrown after a wait timed out (the failure itself is already recorded where the wait was written), so the test
/// stops instead of piling up follow-on failures.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "gave up waiting for \(what) (see the failure recorded at the wait)" }
}

/// Polls until `condition` holds: the building block for waits that must not record a test failure (the harness
/// starting sshd throws its own error). Polls quickly at first, then every `poll` seconds; false at the deadline.
/// The condition is always checked once more after the deadline, so a slow poll cannot lose a late success.
public func waitUntil(
    deadline seconds: TimeInterval = Deadline.standard, poll: TimeInterval = 0.1,
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let end = ContinuousClock.now + .milliseconds(Int64(Deadline.scaled(seconds) * 1000))
    var pause: TimeInterval = 0.005
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= end { return try condition() }
        Thread.sleep(forTimeInterval: pause)
        pause = min(pause * 2, poll)
    }
}

/// Waits until `observe()` returns a value `accept` takes, and returns it. On timeout records a failure at the
/// caller's line naming `what`, with the last observation and `context()` (e.g. a log tail), then throws.
@discardableResult
public func eventually<T>(
    _ what: @autoclosure () -> String, deadline: TimeInterval = Deadline.standard,
    poll interval: TimeInterval = 0.1, file: StaticString = #filePath, line: UInt = #line,
    observe: () throws -> T, until accept: (T) throws -> Bool,
    context: () -> String = { "" }
) throws -> T {
    var last: T?
    let met = try waitUntil(deadline: deadline, poll: interval) {
        let value = try observe()
        last = value
        return try accept(value)
    }
    if met, let last { return last }
    let observed = "last observed:\n" + (last.map { "\($0)" } ?? "(nothing)")
    throw timedOut(what(), deadline, [observed, context()], file, line)
}

/// Waits until `condition` holds. On timeout records a failure at the caller's line naming `what`, with
/// `context()` (what the test could see: a screen, a log tail, a process's stderr), then throws.
public func eventually(
    _ what: @autoclosure () -> String, deadline: TimeInterval = Deadline.standard,
    poll interval: TimeInterval = 0.1, file: StaticString = #filePath, line: UInt = #line,
    context: () -> String = { "" }, _ condition: () throws -> Bool
) throws {
    guard try !waitUntil(deadline: deadline, poll: interval, condition) else { return }
    throw timedOut(what(), deadline, [context()], file, line)
}

private func timedOut(
    _ what: String, _ deadline: TimeInterval, _ details: [String], _ file: StaticString,
    _ line: UInt
) -> WaitTimedOut {
    let shown = details.filter { !$0.isEmpty }.joined(separator: "\n")
    XCTFail(
        "timed out after \(Int(Deadline.scaled(deadline))) s waiting for \(what)"
            + (shown.isEmpty ? "" : ":\n" + shown),
        file: file, line: line)
    return WaitTimedOut(what: what)
}

/// The last `lines` lines of a text (a log, a process's stderr), for failure messages.
public func tail(_ text: String, lines: Int = 40) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
}
