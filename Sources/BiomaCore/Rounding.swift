/// Rounding for invoices: durations rounded to 6, 15 or 30 minutes, up or to the nearest step,
/// per interval or per day and project. Only what is shown or exported is rounded; the history
/// never changes.
public struct Rounding: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Any started step counts whole.
        case up
        /// To the nearest step; exactly half a step rounds up.
        case nearest
    }

    public enum Per: String, Sendable, CaseIterable {
        /// Each interval's duration is rounded.
        case interval
        /// Each day's total per project (and of work without a project) is rounded.
        case day
    }

    /// The allowed steps, in minutes.
    public static let steps = [6, 15, 30]

    /// 6, 15 or 30 minutes, in microseconds.
    public let step: Micros
    public let mode: Mode
    public let per: Per

    /// `--round 6m|15m|30m [--rounding up|nearest] [--round-per interval|day]`; the defaults
    /// are `up` and `interval`. Anything else is an `invalidArgument` listing what is allowed
    /// (a usage error for the command line).
    public init(round: String, rounding: String? = nil, per: String? = nil) throws(TrackerError) {
        let text = round.trimmingCharacters(in: .whitespaces).lowercased()
        let minutes = text.hasSuffix("m") ? Int(text.dropLast()) : text.hasSuffix("min") ? Int(text.dropLast(3)) : nil
        guard let minutes, Self.steps.contains(minutes) else {
            throw .invalidArgument("--round `\(round)` is not a rounding step: use 6m, 15m or 30m.")
        }
        var mode = Mode.up
        if let rounding {
            guard let parsed = Mode(rawValue: rounding.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw .invalidArgument("--rounding `\(rounding)` is not a rounding: use up or nearest.")
            }
            mode = parsed
        }
        var unit = Per.interval
        if let per {
            guard let parsed = Per(rawValue: per.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw .invalidArgument("--round-per `\(per)` is not what to round: use interval or day.")
            }
            unit = parsed
        }
        self.init(minutes: minutes, mode: mode, per: unit)
    }

    public init(minutes: Int, mode: Mode, per: Per) {
        precondition(Self.steps.contains(minutes))
        step = Micros(minutes) * 60 * microsPerSecond
        self.mode = mode
        self.per = per
    }

    /// A duration rounded. Nothing stays nothing: what is shown as `0:00:00` (less than a
    /// second: a switch, a stop and start in one click) rounds to 0 whatever the mode, so no
    /// empty interval is billed a step; negative durations do not occur and count as 0.
    public func rounded(_ duration: Micros) -> Micros {
        guard duration >= microsPerSecond else { return 0 }
        let whole = duration / step * step
        let rest = duration - whole
        switch mode {
        case .up: return rest > 0 ? whole + step : whole
        case .nearest: return rest * 2 >= step ? whole + step : whole
        }
    }
}

/// Exact and rounded totals over a range of days, per project and per day.
public struct RoundedTotals: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        public var day: Day
        /// nil: work without a project.
        public var projectID: String?
        public var exact: Micros
        public var rounded: Micros
    }

    public var rounding: Rounding
    /// Per day and project that has time: days in order, projects by id, no project first.
    public var lines: [Line]
    public var exactTotal: Micros
    public var roundedTotal: Micros

    /// The exact and rounded time of one project (nil: no project) over the range.
    public func total(of projectID: String?) -> (exact: Micros, rounded: Micros) {
        lines.filter { $0.projectID == projectID }.reduce((0, 0)) { ($0.0 + $1.exact, $0.1 + $1.rounded) }
    }

    /// `intervals` (closed; the running one closed at now) over the days `from...to` of `rules`,
    /// parts outside the range cut away. Per interval, an interval's clipped duration is rounded
    /// and counted on the day it starts in the range (an interval over midnight stays one
    /// invoice line); per day, intervals are split at the day boundaries and each day's sum
    /// per project is rounded.
    public init(intervals: [Interval], from: Day, to: Day, rules: DayRules, rounding: Rounding) {
        self.rounding = rounding
        struct Key: Hashable {
            var day: Day
            var project: String?
        }
        var exact: [Key: Micros] = [:]
        var rounded: [Key: Micros] = [:]
        if from <= to {
            let low = rules.start(of: from)
            let high = rules.start(of: to.adding(days: 1))
            for interval in intervals {
                let start = max(interval.start, low)
                let end = min(interval.end, high)
                guard end > start else { continue }
                switch rounding.per {
                case .interval:
                    let key = Key(day: rules.day(containing: start), project: interval.projectID)
                    exact[key, default: 0] += end - start
                    rounded[key, default: 0] += rounding.rounded(end - start)
                case .day:
                    var cursor = start
                    while cursor < end {
                        let day = rules.day(containing: cursor)
                        let cut = min(end, rules.start(of: day.adding(days: 1)))
                        exact[Key(day: day, project: interval.projectID), default: 0] += cut - cursor
                        cursor = cut
                    }
                }
            }
            if rounding.per == .day {
                for (key, value) in exact { rounded[key] = rounding.rounded(value) }
            }
        }
        lines = exact.keys.sorted { a, b in
            if a.day != b.day { return a.day < b.day }
            return (a.project == nil ? 0 : 1, a.project ?? "") < (b.project == nil ? 0 : 1, b.project ?? "")
        }
        .map { Line(day: $0.day, projectID: $0.project, exact: exact[$0]!, rounded: rounded[$0]!) }
        exactTotal = lines.reduce(0) { $0 + $1.exact }
        roundedTotal = lines.reduce(0) { $0 + $1.rounded }
    }
}
