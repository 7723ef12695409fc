/// Project budgets: an amount of time per week, per month or in total; the time used in the
/// current period; and the notices at 80 % and 100 %, each once per period. Pure: intervals,
/// instants and day rules are handed in.

public enum BudgetPeriod: String, Sendable, CaseIterable {
    case week, month, total

    /// Parses `week`, `month` or `total` (any case); anything else is an `invalidArgument`.
    public static func parse(_ raw: String) throws(TrackerError) -> BudgetPeriod {
        guard let period = BudgetText.period(raw).flatMap(BudgetPeriod.init(rawValue:)) else {
            throw .invalidArgument("A budget period `\(raw)` does not exist: use week, month or total.")
        }
        return period
    }
}

public struct Budget: Sendable, Equatable {
    /// More than 0.
    public var amount: Micros
    public var period: BudgetPeriod

    /// At most 100 000 hours.
    public static let maximum: Micros = BudgetText.maximum

    public init(amount: Micros, period: BudgetPeriod) {
        self.amount = amount
        self.period = period
    }

    /// The current period's days and instants: nil bounds for `total` (all of the history).
    public func window(at now: Micros, rules: DayRules) -> BudgetWindow {
        let today = rules.day(containing: now)
        switch period {
        case .total:
            return BudgetWindow(key: "total", start: nil, end: nil)
        case .week, .month:
            let (from, to) = rules.period(period == .week ? .week : .month, containing: today)
            return BudgetWindow(
                key: "\(period.rawValue):\(from)", start: rules.start(of: from), end: rules.start(of: to.adding(days: 1)))
        }
    }

    /// `{project_budget}` and the tray: `12:30/20:00` (used, then the budget, hours and minutes).
    public func text(used: Micros) -> String {
        "\(DurationClock.hoursMinutes(used))/\(DurationClock.hoursMinutes(amount))"
    }
}

/// The span a budget counts: `[start, end)`, unbounded where nil; `key` names the period
/// (`week:2026-11-23`, `month:2026-11-01`, `total`) so that what was announced can be kept
/// per period.
public struct BudgetWindow: Sendable, Equatable, Hashable {
    public var key: String
    public var start: Micros?
    public var end: Micros?

    public init(key: String, start: Micros? = nil, end: Micros? = nil) {
        (self.key, self.start, self.end) = (key, start, end)
    }

    /// The project's time inside the window from `intervals` (any order, closed; the running
    /// one passed as closed at `now`); intervals of other projects are ignored.
    public func used(of projectID: String, intervals: [Interval]) -> Micros {
        var sum: Micros = 0
        let low = start ?? .min
        let high = end ?? .max
        for interval in intervals where interval.projectID == projectID {
            let length = min(interval.end, high) - max(interval.start, low)
            if length > 0 { sum += length }
        }
        return sum
    }
}

/// The two notices of a budget.
public enum BudgetThreshold: Int, Sendable, CaseIterable, Comparable {
    case eighty = 80
    case full = 100

    public static func < (a: BudgetThreshold, b: BudgetThreshold) -> Bool { a.rawValue < b.rawValue }

    /// The time used at which it is crossed.
    public func amount(of budget: Budget) -> Micros { budget.amount * Micros(rawValue) / 100 }
}

/// What a budget's notices decide at an instant.
public struct BudgetNotice: Sendable, Equatable {
    /// The notice to show now, if any: the highest threshold newly crossed (crossing both at
    /// once, by an edit or an import, shows only the 100 % one).
    public var announce: BudgetThreshold?
    /// What counts as announced in this period from now on (store it with `period`).
    public var announced: Set<BudgetThreshold>
    public var period: String
    /// The instant the next threshold will be crossed if the project runs on: nil while it
    /// does not run, when both are crossed, or when the period ends first.
    public var deadline: Micros?

    /// `used` is the project's time in `window` at `now`; `announcedBefore` what was announced
    /// in the period `announcedPeriod` (a different period than the current one counts as
    /// nothing announced: each notice comes once per period).
    public init(
        budget: Budget, window: BudgetWindow, used: Micros, running: Bool, now: Micros,
        announcedBefore: Set<BudgetThreshold>, announcedPeriod: String?
    ) {
        var announced = announcedPeriod == window.key ? announcedBefore : []
        let crossed = BudgetThreshold.allCases.filter { used >= $0.amount(of: budget) }
        let fresh = crossed.filter { !announced.contains($0) }
        announce = fresh.max()
        announced.formUnion(crossed)
        self.announced = announced
        period = window.key
        deadline = nil
        if running, let next = BudgetThreshold.allCases.first(where: { used < $0.amount(of: budget) }) {
            let instant = now + (next.amount(of: budget) - used)
            if window.end.map({ instant < $0 }) ?? true { deadline = instant }
        }
    }

    /// The notice's text: `Client A: 80 % of the week's budget used (16:00/20:00)`.
    public static func text(project: String, threshold: BudgetThreshold, budget: Budget, used: Micros) -> String {
        let of: String
        switch budget.period {
        case .week: of = "of the week's budget"
        case .month: of = "of the month's budget"
        case .total: of = "of the budget"
        }
        let what = threshold == .full ? "100 % \(of) used" : "80 % \(of) used"
        return "\(project): \(what) (\(budget.text(used: used)))"
    }
}
