import BiomaCore
import BiomaSystem
import BiomaStore
import DBusKit

/// `export_ics = PATH`: the daemon keeps an iCalendar file of recorded time fresh for calendar
/// programs. It covers the last `weeks` weeks before the current one and the current
/// week (weeks as `week_start` says). It is written at start-up and, debounced, `delay`
/// after the last change (each change moves the deadline; while nothing changes nothing is
/// written), atomically: a temporary file in the same directory renamed over the old one.
/// A file that cannot be written is logged once (until a write succeeds again); timing goes on.
/// Owned by `WorkService`, which tells it of every publication; on the loop thread only.
final class CalendarFile: @unchecked Sendable {
    let path: String
    let tracker: Tracker
    let clock: any TimeSource
    let log: @Sendable (String) -> Void
    var deadlines: Deadlines?
    var due: Deadlines.Handle?
    /// A write is waiting for its deadline.
    var pending = false
    /// The last write failed and was logged.
    var failureLogged = false

    init(path: String, tracker: Tracker, clock: any TimeSource, log: @escaping @Sendable (String) -> Void) {
        (self.path, self.tracker, self.clock, self.log) = (path, tracker, clock, log)
    }

    /// Weeks before the current one the calendar file covers.
    static let weeks = 8
    /// How long after the last change the file is rewritten.
    static let delay: Micros = 2 * microsPerSecond

    func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        due = deadlines.add { [self] reason in
            if reason == .due {
                pending = false
                write()
            } else if pending, let due {
                // The clock was set or the machine resumed: the wait starts again from now.
                deadlines.schedule(due, at: clock.now() + Self.delay)
            }
        }
        // Fresh from the start: written on the loop's first turn.
        pending = true
        if let due { deadlines.schedule(due, at: clock.now()) }
    }

    /// After a change: the rewrite moves to `delay` from now.
    func changed(at now: Micros) {
        guard let deadlines, let due else { return }
        pending = true
        deadlines.schedule(due, at: now + Self.delay)
    }

    /// The days the file covers at `now`.
    func window(at now: Micros) -> (from: Day, to: Day) {
        let today = tracker.rules.day(containing: now)
        let from = tracker.rules.period(.week, containing: today.adding(days: -7 * Self.weeks)).from
        return (from, tracker.rules.period(.week, containing: today).to)
    }

    func write() {
        let now = clock.now()
        let days = window(at: now)
        do {
            let text = try tracker.history.exportICS(from: days.from, to: days.to, at: now)
            try AtomicFile.write(Array(text.utf8), to: path)
            if failureLogged { log("export_ics: \(path) is written again") }
            failureLogged = false
        } catch {
            if !failureLogged { log("export_ics: cannot keep \(path) fresh (\(error)); timing goes on") }
            failureLogged = true
        }
    }
}
