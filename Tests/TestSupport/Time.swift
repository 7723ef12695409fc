import BiomaCore
import Foundation
import BiomaContract

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

/// A libfaketime clock a test moves (`FAKETIME_TIMESTAMP_FILE` with `FAKETIME_NO_CACHE=1`): it
/// starts at noon today, local time, and runs on from there, so moving it by hours never crosses
/// midnight, whenever the suite runs. `now` is what the clock reads; `set(ahead:)` moves it.
public final class MovableClock: Sendable {
    /// The file the preloaded library reads at every look at the clock.
    public let file: URL
    /// Seconds from the real time to the clock at its start.
    public let base: Int

    public init(file: URL, start: Date = Date()) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let noon = calendar.date(bySettingHour: 12, minute: 0, second: 0, of: start) ?? start
        (self.file, self.base) = (file, Int(noon.timeIntervalSince(start).rounded()))
        try set(ahead: 0)
    }

    /// Moves the clock to `seconds` after where it started (plus the real time gone since).
    public func set(ahead seconds: Int) throws {
        let offset = base + seconds
        try "\(offset >= 0 ? "+" : "")\(offset)\n".write(to: file, atomically: true, encoding: .utf8)
    }

    /// What the clock reads now, µs since the epoch.
    public var now: Micros {
        let text = (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return Int64(Date().timeIntervalSince1970 * 1_000_000) + Int64(text.flatMap { Int($0) } ?? base) * 1_000_000
    }

    /// `environment` for a program that runs on this clock.
    public func environment(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        environment["LD_PRELOAD"] = libfaketime
        environment["FAKETIME_TIMESTAMP_FILE"] = file.path
        environment["FAKETIME_NO_CACHE"] = "1"
        environment["DONT_FAKE_MONOTONIC"] = "1"
        return environment
    }
}

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
