import BiomaText
import Foundation

/// Microseconds: instants since the Unix epoch, and durations.
public typealias Micros = Int64

/// One microsecond-based second.
public let microsPerSecond: Micros = 1_000_000

/// A deadline handled this long after its instant was missed: the daemon was not running, or
/// the machine slept (the loop's deadline fires within milliseconds). A phase end or reminder
/// seen that late is announced as late (overdue); one rule for every deadline.
public let lateAfter: Micros = 10 * microsPerSecond

/// A calendar day `YYYY-MM-DD` (proleptic Gregorian), stored as its number of days since
/// 1970-01-01 so that comparisons and arithmetic are integer operations.
public struct Day: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let ordinal: Int

    public init(ordinal: Int) { self.ordinal = ordinal }

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= Day.daysIn(month: month, year: year)
        else { return nil }
        self.ordinal = Day.daysFromCivil(year, month, day)
    }

    /// Parses exactly `YYYY-MM-DD` (through `DayText`, the one parser of days).
    public init?(_ text: String) {
        guard let (year, month, day) = DayText.parse(text) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var year: Int { Day.civilFromDays(ordinal).year }
    public var month: Int { Day.civilFromDays(ordinal).month }
    public var day: Int { Day.civilFromDays(ordinal).day }

    /// Calendar convention: 1 = Sunday … 7 = Saturday.
    public var weekday: Int { ((ordinal + 4) % 7 + 7) % 7 + 1 }

    public func adding(days: Int) -> Day { Day(ordinal: ordinal + days) }

    public var description: String {
        let (year, month, day) = Day.civilFromDays(ordinal)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (lhs: Day, rhs: Day) -> Bool { lhs.ordinal < rhs.ordinal }


    static func daysIn(month: Int, year: Int) -> Int { DayText.daysIn(month: month, year: year) }

    // Howard Hinnant's civil-date algorithms.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// Floor division for possibly negative instants.
@inline(__always)
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// How instants map to days and weeks: a time zone, the local time at which a day starts, and
/// the first day of the week.
///
/// A day `D` starts at the earliest instant whose local wall-clock time on date `D` is at or
/// after the day start. So when the day-start time falls in a DST gap the day starts at the
/// end of the gap, and when it occurs twice the day starts at the first occurrence. Days are
/// therefore 23, 24 or 25 hours long (23.5/24.5 in Australia/Lord_Howe).
public struct DayRules: Sendable, Equatable {
    public var timeZone: TimeZone
    /// Minutes after local midnight, 0..<1440.
    public var dayStartMinutes: Int
    /// 1 = Sunday, 2 = Monday (Calendar convention).
    public var firstWeekday: Int

    public init(timeZone: TimeZone = .current, dayStartMinutes: Int = 0, firstWeekday: Int = 2) {
        self.timeZone = timeZone
        self.dayStartMinutes = min(max(dayStartMinutes, 0), 1439)
        self.firstWeekday = min(max(firstWeekday, 1), 7)
    }

    /// UTC offset in seconds at an instant given in whole seconds.
    @inline(__always)
    func offsetSeconds(atSecond second: Int64) -> Int64 {
        Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(second))))
    }

    /// The instant at which `day` starts.
    public func start(of day: Day) -> Micros {
        let wall = (Int64(day.ordinal) * 1440 + Int64(dayStartMinutes)) * 60
        // Instants with this local time lie within [wall − 14 h, wall + 12 h]; the offsets at
        // both ends of that window are the only candidates (at most one transition inside).
        let candidates = Set([
            offsetSeconds(atSecond: wall - 14 * 3600), offsetSeconds(atSecond: wall + 12 * 3600),
            offsetSeconds(atSecond: wall),
        ])
        var best: Int64?
        for offset in candidates {
            let instant = wall - offset
            if offsetSeconds(atSecond: instant) == offset, best.map({ instant < $0 }) ?? true {
                best = instant
            }
        }
        if let best { return best * microsPerSecond }
        // The wall time is in a gap: the day starts at the transition that skips it.
        let ordered = candidates.sorted()
        var low = wall - ordered.last!  // before the transition
        var high = wall - ordered.first!  // after it
        let before = offsetSeconds(atSecond: low)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offsetSeconds(atSecond: middle) == before { low = middle } else { high = middle }
        }
        return high * microsPerSecond
    }

    /// Start (inclusive) and end (exclusive) of a day.
    public func bounds(of day: Day) -> (start: Micros, end: Micros) {
        (start(of: day), start(of: day.adding(days: 1)))
    }

    /// The day an instant belongs to.
    public func day(containing instant: Micros) -> Day {
        let second = floorDiv(instant, microsPerSecond)
        let local = second + offsetSeconds(atSecond: second) - Int64(dayStartMinutes) * 60
        var day = Day(ordinal: Int(floorDiv(local, 86_400)))
        if instant < start(of: day) {
            day = day.adding(days: -1)
        } else if instant >= start(of: day.adding(days: 1)) {
            day = day.adding(days: 1)
        }
        return day
    }

    /// The starts of `from`, `from + 1`, …, `to + 1`: `to − from + 2` boundaries.
    public func boundaries(from: Day, to: Day) -> [Micros] {
        guard from <= to else { return [] }
        return (from.ordinal...(to.ordinal + 1)).map { start(of: Day(ordinal: $0)) }
    }

    /// The first day of the week containing `day`.
    public func weekStart(of day: Day) -> Day {
        day.adding(days: -((day.weekday - firstWeekday + 7) % 7))
    }

    /// First and last day of the period containing `day`.
    public func period(_ period: ReportPeriod, containing day: Day) -> (from: Day, to: Day) {
        switch period {
        case .day:
            return (day, day)
        case .week:
            let first = weekStart(of: day)
            return (first, first.adding(days: 6))
        case .month:
            let first = Day(year: day.year, month: day.month, day: 1)!
            return (first, first.adding(days: Day.daysIn(month: day.month, year: day.year) - 1))
        case .year:
            return (Day(year: day.year, month: 1, day: 1)!, Day(year: day.year, month: 12, day: 31)!)
        }
    }
}

/// The span a report covers: the day, week, month or year containing a day, whose days
/// `DayRules.period(_:containing:)` gives.
public enum ReportPeriod: String, Sendable, CaseIterable {
    case day, week, month, year
}
