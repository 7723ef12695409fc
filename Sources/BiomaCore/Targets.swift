// BiomaText re-exported: its lengths (`DurationText`, `DurationClock`) are part of these rules.
@_exported import BiomaText

/// Work targets per weekday, the day's progress towards its target, the instant it will be
/// reached, and the balance (overtime) since a day. Pure: the instants, the day rules and the
/// work done are handed in; nothing here ticks. Values that move while the timer runs are
/// given with the instant they hold at (`at`) and move at one second per second from there.

/// Lengths as the settings and the command line write them (`DurationText` in BiomaText, which
/// the command line also reads; 0 allowed), as a `TrackerError`.
public enum GoalDuration {
    /// Microseconds, or an `invalidArgument` naming `what` and the value.
    public static func parse(_ raw: String, what: String, max: Micros) throws(TrackerError) -> Micros {
        do {
            return try DurationText.read(raw, what: what, max: max, allowZero: true)
        } catch {
            throw .invalidArgument(error.message)
        }
    }
}

/// A work target for each weekday. All zero means no target is set.
public struct WorkTargets: Sendable, Equatable {
    /// The config keys, Monday first; `target` sets every day.
    public static let weekdayKeys = ["target_mon", "target_tue", "target_wed", "target_thu", "target_fri", "target_sat", "target_sun"]
    /// A day's target is at most 24 hours.
    public static let maximum: Micros = 24 * 3600 * microsPerSecond

    /// Indexed by `Day.weekday − 1`: Sunday first.
    public private(set) var byWeekday: [Micros]

    public init() { byWeekday = Array(repeating: 0, count: 7) }

    /// The same target every day (`target = 8h`).
    public init(everyDay: Micros) { byWeekday = Array(repeating: everyDay, count: 7) }

    /// Monday first, seven values.
    public init(mondayFirst values: [Micros]) {
        precondition(values.count == 7)
        byWeekday = [values[6]] + values[0..<6]
    }

    public var isSet: Bool { byWeekday.contains { $0 > 0 } }

    public func target(for day: Day) -> Micros { byWeekday[day.weekday - 1] }

    /// Applies one setting: `target` (every day) or `target_mon` … `target_sun`. Returns false
    /// for other keys (not a target setting); a bad value is an `invalidArgument` naming the key
    /// and the value, and changes nothing. Later lines override earlier ones, so `target = 8h`
    /// followed by `target_fri = 6h` gives 6 hours on Fridays.
    public mutating func apply(key: String, value: String) throws(TrackerError) -> Bool {
        if key == "target" {
            let length = try GoalDuration.parse(value, what: "target", max: Self.maximum)
            byWeekday = Array(repeating: length, count: 7)
            return true
        }
        guard let index = Self.weekdayKeys.firstIndex(of: key) else { return false }
        byWeekday[(index + 1) % 7] = try GoalDuration.parse(value, what: key, max: Self.maximum)
        return true
    }

    /// The lines that give these targets back (`target = 8:00` when every day is the same).
    public var settingLines: [String] {
        if Set(byWeekday).count == 1 { return ["target = \(DurationClock.hoursMinutes(byWeekday[0]))"] }
        return Self.weekdayKeys.enumerated().map { index, key in
            "\(key) = \(DurationClock.hoursMinutes(byWeekday[(index + 1) % 7]))"
        }
    }

    /// The sum of the targets of the days `from...to` (0 when `to < from`), in constant time:
    /// whole weeks, then the remaining days.
    public func total(from: Day, to: Day) -> Micros {
        guard from <= to else { return 0 }
        let days = to.ordinal - from.ordinal + 1
        let weeks = Int64(days / 7)
        var sum = weeks * byWeekday.reduce(0, +)
        var day = from.adding(days: days / 7 * 7)
        while day <= to {
            sum += target(for: day)
            day = day.adding(days: 1)
        }
        return sum
    }
}

/// Parses `balance_since = YYYY-MM-DD`.
public func parseBalanceSince(_ raw: String) throws(TrackerError) -> Day {
    guard let day = Day(raw.trimmingCharacters(in: .whitespaces)) else {
        throw .invalidArgument("balance_since `\(raw)` is not a date: use YYYY-MM-DD, e.g. 2026-01-01.")
    }
    return day
}

/// The day's target and the work done towards it, at an instant.
public struct TargetProgress: Sendable, Equatable {
    public var day: Day
    /// The day's target; 0: none that day (no progress, no notice).
    public var target: Micros
    /// Work done that day up to `at`.
    public var worked: Micros
    /// The instant the values hold at.
    public var at: Micros
    /// Whether the timer runs (work grows with the clock).
    public var running: Bool
    /// The end of the day (its next boundary).
    public var dayEnd: Micros

    /// `worked` is the day's work at `at` (the snapshot's `dailyTotal`), `dayEnd` the next
    /// day boundary (the snapshot's `nextDayBoundary`).
    public init(day: Day, targets: WorkTargets, worked: Micros, running: Bool, at: Micros, dayEnd: Micros) {
        self.day = day
        self.target = targets.target(for: day)
        (self.worked, self.running, self.at, self.dayEnd) = (worked, running, at, dayEnd)
    }

    public init(snapshot: TrackerSnapshot, targets: WorkTargets) {
        self.init(
            day: snapshot.day, targets: targets, worked: snapshot.dailyTotal, running: snapshot.running,
            at: snapshot.updatedAt, dayEnd: snapshot.nextDayBoundary)
    }

    /// Work over target at `at`: 0 with no target, may exceed 1.
    public var fraction: Double { target > 0 ? Double(worked) / Double(target) : 0 }

    /// Whether the target is met at `at`.
    public var reached: Bool { target > 0 && worked >= target }

    /// Work at a later instant of the same day (the timer unchanged since `at`).
    public func worked(at instant: Micros) -> Micros {
        running ? worked + max(0, min(instant, dayEnd) - at) : worked
    }

    /// The instant the target will be reached if the timer runs on: nil with no target, when
    /// it is already reached, while stopped, or when the day ends first (or at that instant:
    /// then the next day has begun). The daemon's deadline for the notice; every change gives
    /// a new one.
    public var reachedAt: Micros? {
        guard target > 0, worked < target, running else { return nil }
        let instant = at + (target - worked)
        return instant < dayEnd ? instant : nil
    }

    /// Whether to notify now that the day's target is reached, given the last day it was
    /// announced (nil: never): once per day, when it is reached.
    public func shouldAnnounce(lastAnnounced: Day?) -> Bool { reached && lastAnnounced != day }

    /// The bars' class once the day's target is met (waybar's `class`), nil before.
    public var barClass: String? { reached ? "target-reached" : nil }

    /// `{target}`: `8:00` (empty with no target today).
    public var targetText: String { target > 0 ? DurationClock.hoursMinutes(target) : "" }

    /// `{target_progress}` and waybar's `percentage`: whole percent, rounded down, may exceed
    /// 100 (empty with no target today).
    public var percentText: String { target > 0 ? String(percent) : "" }

    public var percent: Int64 { target > 0 ? worked * 100 / target : 0 }

    /// The island: `0:05:30 (6:12/8:00)` (session, then work today over the target), or the
    /// session alone with no target today.
    public func islandText(session: Micros) -> String {
        let clock = DurationClock.hoursMinutesSeconds(session)
        guard target > 0 else { return clock }
        return "\(clock) (\(DurationClock.hoursMinutes(worked))/\(DurationClock.hoursMinutes(target)))"
    }
}

/// Overtime: work minus target over every day from `since` to today, today's work counted up
/// to `at` and today's whole target counted.
public struct Balance: Sendable, Equatable {
    /// The balance at `at`, in microseconds (negative: hours owed).
    public var value: Micros
    /// The balance at the start of today (the days before today only).
    public var carried: Micros
    public var at: Micros
    public var running: Bool

    /// `workSince` is the work from the start of `since` to `at` (one sum over the history,
    /// the running interval counted up to `at`), `workToday` today's part of it. Days before
    /// `since` count nothing; when `since` is after today the balance is 0.
    public init(
        since: Day, today: Day, targets: WorkTargets, workSince: Micros, workToday: Micros, running: Bool, at: Micros
    ) {
        self.at = at
        self.running = running
        guard since <= today else {
            value = 0
            carried = 0
            return
        }
        let before = targets.total(from: since, to: today.adding(days: -1))
        carried = (workSince - workToday) - before
        value = workSince - before - targets.target(for: today)
    }

    /// From per-day work totals (a `Report` of `since...today`, today's closed at `at`).
    public init(report: Report, targets: WorkTargets, running: Bool, at: Micros) {
        self.init(
            since: report.from, today: report.to, targets: targets, workSince: report.workTotal,
            workToday: report.days.last?.workTotal ?? 0, running: running, at: at)
    }

    /// The balance at a later instant of the same day (the timer unchanged since `at`).
    public func value(at instant: Micros) -> Micros { running ? value + max(0, instant - at) : value }

    /// `{balance}`: `+3:20`, `-0:45`.
    public var text: String { DurationClock.signed(value) }
}

/// A report's days with their targets: target, work and the difference per day, and the
/// balance at the end of the report's period.
public struct TargetReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var day: Day
        public var target: Micros
        public var work: Micros
        /// Work minus target.
        public var difference: Micros { work - target }
    }

    public var rows: [Row]
    public var targetTotal: Micros
    public var workTotal: Micros
    /// The balance at the end of the report's last day (or at `at`, when the report reaches
    /// today): `carriedIn` plus every row's difference.
    public var balance: Micros

    /// `carriedIn`: the balance at the start of `report.from` (0 when the balance starts then;
    /// a `Balance`'s `carried` for a report starting today). Days before `since` carry no target.
    public init(report: Report, targets: WorkTargets, since: Day, carriedIn: Micros) {
        rows = report.days.map {
            Row(day: $0.day, target: $0.day < since ? 0 : targets.target(for: $0.day), work: $0.workTotal)
        }
        targetTotal = rows.reduce(0) { $0 + $1.target }
        workTotal = report.days.reduce(0) { $0 + $1.workTotal }
        let counted = rows.filter { $0.day >= since }.reduce(0) { $0 + $1.difference }
        balance = carriedIn + counted
    }
}
