import BiomaCore
import Foundation
import TimerControl

// Instants and clocks for tests: every test passes its own time, never the wall clock's.

/// An instant from an ISO 8601 time with its offset: `t("2024-03-31T01:59:00+01:00")`.
public func t(_ text: String) -> Micros {
    guard let instant = IntervalCSV.parseInstant(text) else { fatalError("bad time \(text)") }
    return instant
}

/// A day from `YYYY-MM-DD`.
public func day(_ text: String) -> Day {
    guard let day = Day(text) else { fatalError("bad day \(text)") }
    return day
}

public let hour: Micros = 3600 * microsPerSecond
public let minute: Micros = 60 * microsPerSecond

public func zone(_ id: String) -> TimeZone {
    guard let zone = TimeZone(identifier: id) else { fatalError("no time zone \(id)") }
    return zone
}

public let utc = DayRules(timeZone: zone("UTC"))
public let berlin = DayRules(timeZone: zone("Europe/Berlin"))

/// A clock the test moves by hand.
public final class ManualClock: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var value: Micros
    public init(_ start: Micros) { value = start }
    public func now() -> Micros { lock.withLock { value } }
    public func set(_ new: Micros) { lock.withLock { value = new } }
}

/// libfaketime, preloaded into a program whose clock a test sets.
public let libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

/// `environment` with libfaketime preloaded and the clock starting at `instant`
/// (`2026-11-22 23:59:58`, in the environment's `TZ`) and running on from there. The library
/// is preloaded directly: the `faketime` wrapper now and then fails to start a program
/// ("sem_open: File exists") when several start at once.
public func fakeTime(_ environment: [String: String], at instant: String) -> [String: String] {
    var environment = environment
    environment["LD_PRELOAD"] = libfaketime
    environment["FAKETIME"] = "@\(instant)"
    return environment
}
