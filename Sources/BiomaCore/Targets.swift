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

/// One weekday's target over time: each entry holds from its day (nil: from always) until
/// the next entry's day. A day before the first entry has none: a target counts from the day
/// it was set, never for the days before it.
public struct TargetHistory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The first day it holds; nil: every day before the next entry (a setting read from a
        /// file with nothing recorded about when it was written, as in tests).
        public var from: Day?
        public var target: Micros

        public init(from: Day?, target: Micros) { (self.from, self.target) = (from, target) }
    }

    /// In the order of their days, each day later than the one before.
    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// The same target always.
    public init(always target: Micros) { entries = [Entry(from: nil, target: target)] }

    /// Entries in any order; of two on one day the later given wins.
    public init(_ entries: [Entry]) {
        self.entries = []
        for entry in entries.sorted(by: { ($0.from?.ordinal ?? .min) < ($1.from?.ordinal ?? .min) }) {
            if let last = self.entries.last, last.from == entry.from { self.entries.removeLast() }
            self.entries.append(entry)
        }
    }

    /// The target on `day`; nil before the first entry.
    public func target(on day: Day) -> Micros? {
        entries.last { $0.from.map { $0 <= day } ?? true }?.target
    }

    /// The value that holds now and from here on (the last entry's), 0 with none.
    public var current: Micros { entries.last?.target ?? 0 }

    /// The same history with its last entry's value `target` (always, with no entry).
    public func holding(_ target: Micros) -> TargetHistory {
        guard var last = entries.last else { return TargetHistory(always: target) }
        last.target = target
        return TargetHistory(entries.dropLast() + [last])
    }

    /// `target` from `day` on: entries from that day on are replaced; nothing is added when
    /// it is already the value that holds then.
    public mutating func set(_ target: Micros, from day: Day) {
        entries.removeAll { $0.from.map { $0 >= day } ?? false }
        if self.target(on: day) == target { return }
        entries.append(Entry(from: day, target: target))
    }

    /// The same history with its first entry holding always (from `balance_since`, when the
    /// setting says where the balance starts whatever day the target was set).
    public var fromAlways: TargetHistory {
        guard var first = entries.first else { return self }
        first.from = nil
        return TargetHistory([first] + entries.dropFirst())
    }

    /// `self` beating `base` from its first entry on (the store's `target set` over the
    /// settings file's): `base`'s entries before that day, then `self`'s.
    public func overlaid(on base: TargetHistory) -> TargetHistory {
        guard let first = entries.first else { return base }
        guard let from = first.from else { return self }
        var merged = base.entries.filter { $0.from.map { $0 < from } ?? true }
        merged += entries
        return TargetHistory(merged)
    }

    /// The first day a positive target holds: `.some(nil)` when one holds always, nil when none
    /// ever does.
    public var firstTargetDay: Day?? {
        guard let entry = entries.first(where: { $0.target > 0 }) else { return nil }
        return .some(entry.from)
    }

    /// As the store keeps it: `2026-12-02=28800000000;2027-02-01=21600000000` (the value in
    /// µs; an entry from always has no day: `=28800000000`).
    public var text: String {
        entries.map { "\($0.from?.description ?? "")=\($0.target)" }.joined(separator: ";")
    }

    /// `text` read back; nil when any part of it is not an entry (a value outside 0 … 24 h,
    /// a day that is not `YYYY-MM-DD`). An empty text is no entry.
    public init?(text: String) {
        var read: [Entry] = []
        for part in text.split(separator: ";") {
            let fields = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2, let target = Micros(fields[1]), (0...WorkTargets.maximum).contains(target) else {
                return nil
            }
            if fields[0].isEmpty {
                read.append(Entry(from: nil, target: target))
            } else {
                guard let day = Day(String(fields[0])) else { return nil }
                read.append(Entry(from: day, target: target))
            }
        }
        self.init(read)
    }

    /// The sum of the targets of the days `from...to` whose weekday is `weekday` (1 Sunday …
    /// 7 Saturday), in constant time per entry.
    func total(weekday: Int, from: Day, to: Day) -> Micros {
        guard from <= to else { return 0 }
        var sum: Micros = 0
        for (index, entry) in entries.enumerated() where entry.target > 0 {
            let low = max(from, entry.from ?? from)
            let high = index + 1 < entries.count ? min(to, entries[index + 1].from!.adding(days: -1)) : to
            sum += Micros(Self.count(weekday: weekday, from: low, to: high)) * entry.target
        }
        return sum
    }

    /// How many days of `from...to` fall on `weekday`.
    static func count(weekday: Int, from: Day, to: Day) -> Int {
        guard from <= to else { return 0 }
        let first = from.adding(days: ((weekday - from.weekday) % 7 + 7) % 7)
        return first > to ? 0 : (to.ordinal - first.ordinal) / 7 + 1
    }
}

/// A work target for each weekday, each with its history (`TargetHistory`): no entry, or all
/// zero, means no target is set.
public struct WorkTargets: Sendable, Equatable {
    /// The config keys, Monday first; `target` sets the working days, Monday to Friday.
    public static let weekdayKeys = ["target_mon", "target_tue", "target_wed", "target_thu", "target_fri", "target_sat", "target_sun"]
    /// A day's target is at most 24 hours.
    public static let maximum: Micros = 24 * 3600 * microsPerSecond
    /// The working days `target` (and `target set LENGTH`) means: Monday to Friday, as
    /// weekdays (1 Sunday … 7 Saturday).
    public static let workingDays: Set<Int> = [2, 3, 4, 5, 6]

    /// Indexed by `Day.weekday − 1`: Sunday first.
    public private(set) var histories: [TargetHistory]

    public init() { histories = Array(repeating: TargetHistory(), count: 7) }

    /// The same target every day, always (`WorkTargets(everyDay: 8 * hour)`).
    public init(everyDay: Micros) { histories = Array(repeating: TargetHistory(always: everyDay), count: 7) }

    /// Monday first, seven values, each always.
    public init(mondayFirst values: [Micros]) {
        precondition(values.count == 7)
        histories = ([values[6]] + values[0..<6]).map { TargetHistory(always: $0) }
    }

    /// Sunday first, seven histories.
    public init(histories: [TargetHistory]) {
        precondition(histories.count == 7)
        self.histories = histories
    }

    /// The value of each weekday that holds now and from here on, Sunday first.
    public var byWeekday: [Micros] { histories.map(\.current) }

    /// Whether a target is set on any day, past or present.
    public var isSet: Bool { histories.contains { $0.entries.contains { $0.target > 0 } } }

    public func target(for day: Day) -> Micros { histories[day.weekday - 1].target(on: day) ?? 0 }

    /// The first day a target counts: `.some(nil)` when one holds always (a setting with no
    /// day recorded), nil when none is set.
    public var firstTargetDay: Day?? {
        let firsts = histories.compactMap(\.firstTargetDay)
        if firsts.isEmpty { return nil }
        if firsts.contains(where: { $0 == nil }) { return .some(nil) }
        return .some(firsts.compactMap { $0 }.min())
    }

    /// Applies one setting: `target` (the working days, Monday to Friday; Saturday and Sunday
    /// none) or `target_mon` … `target_sun`. Returns false for other keys (not a target
    /// setting); a bad value is an `invalidArgument` naming the key and the value, and changes
    /// nothing. Later lines override earlier ones, so `target = 8h` followed by `target_fri =
    /// 6h` gives 6 hours on Fridays, and `target_sat = 4h` adds Saturdays. Values hold always:
    /// the daemon records from which day it first read each (`configSeen`).
    public mutating func apply(key: String, value: String) throws(TrackerError) -> Bool {
        if key == "target" {
            let length = try GoalDuration.parse(value, what: "target", max: Self.maximum)
            histories = (1...7).map { TargetHistory(always: Self.workingDays.contains($0) ? length : 0) }
            return true
        }
        guard let index = Self.weekdayKeys.firstIndex(of: key) else { return false }
        histories[(index + 1) % 7] = TargetHistory(always: try GoalDuration.parse(value, what: key, max: Self.maximum))
        return true
    }

    /// The lines that give these targets' current values back (`target = 8:00` when the
    /// working days have it and the weekend none).
    public var settingLines: [String] {
        let values = byWeekday
        let working = Set(Self.workingDays.map { values[$0 - 1] })
        if working.count == 1, values[0] == 0, values[6] == 0, let length = working.first, length > 0 {
            return ["target = \(DurationClock.hoursMinutes(length))"]
        }
        return Self.weekdayKeys.enumerated().map { index, key in
            "\(key) = \(DurationClock.hoursMinutes(values[(index + 1) % 7]))"
        }
    }

    /// The sum of the targets of the days `from...to` (0 when `to < from`), each day's as it
    /// held that day, in constant time per weekday and entry.
    public func total(from: Day, to: Day) -> Micros {
        guard from <= to else { return 0 }
        return (1...7).reduce(0) { $0 + histories[$1 - 1].total(weekday: $1, from: from, to: to) }
    }

    /// Each weekday's first value holding always (`TargetHistory.fromAlways`).
    public var fromAlways: WorkTargets { WorkTargets(histories: histories.map(\.fromAlways)) }

    /// `stored`'s weekdays (1 Sunday … 7 Saturday) beating these from their first day.
    public func overlaid(with stored: [Int: TargetHistory]) -> WorkTargets {
        WorkTargets(histories: (1...7).map { stored[$0]?.overlaid(on: histories[$0 - 1]) ?? histories[$0 - 1] })
    }

    /// `self`'s weekdays beating `base`'s from the first day each of them holds.
    public func overlaid(on base: WorkTargets) -> WorkTargets {
        WorkTargets(histories: (0..<7).map { histories[$0].overlaid(on: base.histories[$0]) })
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
    /// Only the days from `since` are rows: the days before it count for neither side.
    public init(report: Report, targets: WorkTargets, since: Day, carriedIn: Micros) {
        rows = report.days.filter { $0.day >= since }.map {
            Row(day: $0.day, target: targets.target(for: $0.day), work: $0.workTotal)
        }
        targetTotal = rows.reduce(0) { $0 + $1.target }
        workTotal = rows.reduce(0) { $0 + $1.work }
        balance = carriedIn + rows.reduce(0) { $0 + $1.difference }
    }
}
