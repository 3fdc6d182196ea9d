// NoticeLifetime: how long a title-bar message stays. A message goes when the next key acts (browsing), and
// otherwise after a while — an error after `errorSeconds`, any other after `seconds` — aged by the run loop's
// clock ticks (`Action.tick`), so "session to web1 failed: …" does not stand in the title bar for minutes.
import FoundationEssentials

enum NoticeLifetime {
    /// Seconds a message other than an error stays.
    static let seconds: TimeInterval = 10
    /// Seconds an error stays: long enough to read a long one, not so long that it reads as the present state.
    static let errorSeconds: TimeInterval = 30

    /// The notice on screen and the tick that first saw it.
    struct Shown: Sendable, Equatable {
        var notice: Notice
        var since: Date
    }

    /// On each tick: a new message starts its time, one whose time is up goes.
    static func age(_ state: inout UIState, now: Date) {
        guard let notice = state.notice else {
            state.noticeShown = nil
            return
        }
        guard let shown = state.noticeShown, shown.notice == notice else {
            state.noticeShown = Shown(notice: notice, since: now)
            return
        }
        if now.timeIntervalSince(shown.since) >= (notice.isError ? errorSeconds : seconds) {
            state.notice = nil
            state.noticeShown = nil
        }
    }
}
