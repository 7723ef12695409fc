import BiomaCore
import BiomaSystem
import BiomaStore
import DBusKit

/// `export_ics = PATH`: the daemon keeps an iCalendar file of recorded time fresh for calendar
/// programs. It covers the last `calendarWeeks` weeks before the current one and the current
/// week (weeks as `week_start` says). It is written at start-up and, debounced, `calendarDelay`
/// after the last change (each change moves the deadline; while nothing changes nothing is
/// written), atomically: a temporary file in the same directory renamed over the old one.
/// A file that cannot be written is logged once (until a write succeeds again); timing goes on.
struct CalendarFileState {
    var due: Deadlines.Handle?
    /// A write is waiting for its deadline.
    var pending = false
    /// The last write failed and was logged.
    var failureLogged = false
}

extension WorkService {
    /// Weeks before the current one the calendar file covers.
    static let calendarWeeks = 8
    /// How long after the last change the file is rewritten.
    static let calendarDelay: Micros = 2 * microsPerSecond

    func attachCalendar(_ deadlines: Deadlines) {
        guard calendarPath != nil else { return }
        calendar.due = deadlines.add { [self] reason in
            if reason == .due {
                calendar.pending = false
                writeCalendar()
            } else if calendar.pending, let due = calendar.due {
                // The clock was set or the machine resumed: the wait starts again from now.
                deadlines.schedule(due, at: clock.now() + Self.calendarDelay)
            }
        }
        // Fresh from the start: written on the loop's first turn.
        calendar.pending = true
        if let due = calendar.due { deadlines.schedule(due, at: clock.now()) }
    }

    /// After a change: the rewrite moves to `calendarDelay` from now.
    func calendarChanged(at now: Micros) {
        guard calendarPath != nil, let deadlines, let due = calendar.due else { return }
        calendar.pending = true
        deadlines.schedule(due, at: now + Self.calendarDelay)
    }

    /// The days the file covers at `now`.
    func calendarWindow(at now: Micros) -> (from: Day, to: Day) {
        let today = tracker.rules.day(containing: now)
        let from = tracker.rules.period(.week, containing: today.adding(days: -7 * Self.calendarWeeks)).from
        return (from, tracker.rules.period(.week, containing: today).to)
    }

    func writeCalendar() {
        guard let path = calendarPath else { return }
        let now = clock.now()
        let window = calendarWindow(at: now)
        do {
            let text = try tracker.history.exportICS(from: window.from, to: window.to, at: now)
            try AtomicFile.write(Array(text.utf8), to: path)
            if calendar.failureLogged { log("export_ics: \(path) is written again") }
            calendar.failureLogged = false
        } catch {
            if !calendar.failureLogged { log("export_ics: cannot keep \(path) fresh (\(error)); timing goes on") }
            calendar.failureLogged = true
        }
    }
}
