import BiomaCore
import BiomaReports
import BiomaStore
import BiomaText
import DBusKit

/// What a report needs that only the loop knows, read there when the call comes: the
/// instant, the targets that hold and the balance's first day.
struct ReportContext: Sendable {
    var now: Micros
    var targets: WorkTargets
    /// The balance's first day (when targets are set).
    var balanceSince: Day
}

/// `ReportText` and `Report` made from a tracker: the day's numbers, the table with its
/// extras (targets, rounding, earnings, notes), the chart, the SVG ring and the timesheets.
/// It reads only its `tracker`, so the same code runs on the loop's tracker for a day or a
/// week and on a worker's (`BulkWork.read`) for a month, a year or a timesheet, while the
/// loop answers others.
struct ReportMaker {
    let tracker: Tracker
    let context: ReportContext
    var now: Micros { context.now }

    static let tableKeys = ["Color", "Json", "Chart", "Svg"]
    static let extraKeys = ["Notes", "Round", "Rounding", "RoundPer"]

    /// Whether `ReportText` with these arguments is bulk work (a month or more of intervals,
    /// or a timesheet's drawing), made on a worker.
    static func isBulk(period: String, _ options: Options) -> Bool {
        period == ReportPeriod.month.rawValue || period == ReportPeriod.year.rawValue
            || ["Html", "PdfPages", "From", "To"].contains { options.values[$0] != nil }
    }

    /// `ReportText`'s text for `period` containing `day` (`""`: today).
    func text(period: String, day: String, _ options: Options) throws -> String {
        let json = try options.bool("Json") == true
        let color = try options.bool("Color") == true
        if let sheet = try timesheetText(period: period, day: day, options, extras: try ReportExtras(options)) {
            return sheet
        }
        switch (json, try options.bool("Chart") == true, try options.bool("Svg") == true) {
        case (_, false, false): break
        case (false, true, false): return try chartText(period: period, day: day, color: color)
        case (false, false, true): return try svgText(period: period, day: day)
        default: throw DaemonAPI.invalidArgument("Json, Chart and Svg are alternatives: set one at most.")
        }
        let extras = try ReportExtras(options)
        let report = try report(period: period, day: day, options)
        let targets = try targetReport(report)
        if !extras.isEmpty || billingConfigured() {
            return try reportWithExtras(report, extras, targets: targets, json: json, color: color)
        }
        return json ? ReportText.json(report, targets: targets) : ReportText.table(report, style: Terminal(color: color), targets: targets)
    }

    /// `From` and `To` of a report's options: nil when neither is given; both, each a day
    /// `YYYY-MM-DD`, in order and at most ten years apart, else `InvalidArgument`.
    static func range(_ options: Options) throws -> (from: Day, to: Day)? {
        let (fromText, toText) = (try options.string("From"), try options.string("To"))
        guard fromText != nil || toText != nil else { return nil }
        guard let first = fromText.flatMap(Day.init), let last = toText.flatMap(Day.init) else {
            throw DaemonAPI.invalidArgument("From and To go together, each a day YYYY-MM-DD.")
        }
        guard first <= last else { throw DaemonAPI.invalidArgument("The period ends (\(last)) before it starts (\(first)).") }
        guard last.ordinal - first.ordinal <= 3660 else { throw DaemonAPI.invalidArgument("A period is at most ten years.") }
        return (first, last)
    }

    /// The totals of the options' `From...To` when given, else of `period` containing `day`:
    /// laid out as a week's is.
    func report(period: String, day: String, _ options: Options) throws -> Report {
        guard let range = try Self.range(options) else { return try report(period: period, day: day) }
        do {
            return try tracker.history.report(from: range.from, to: range.to, at: now)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// The totals of `period` (day, week, month, year) containing `day` (`""`: today).
    func report(period: String, day: String) throws -> Report {
        let period = try WorkService.period(period)
        let day = try WorkService.optionalDay(day, "day")
        do {
            return try tracker.history.report(period, containing: day, at: now)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// The report's target rows up to today (days still to come owe nothing yet) and the
    /// balance at the end of the last of them; nil with no target set.
    func targetReport(_ report: Report) throws -> TargetReport? {
        let targets = context.targets
        guard targets.isSet else { return nil }
        let today = tracker.rules.day(containing: now)
        let since = context.balanceSince
        var counted = report
        counted.days = report.days.filter { $0.day <= today }
        do {
            // The balance at the start of the report's first day: the days from `since` before it.
            var carriedIn: Micros = 0
            if since < report.from {
                let work = try tracker.targets.workTotal(since: since, at: min(now, tracker.rules.start(of: report.from)))
                // Days to come owe nothing yet (a period after today carries today's balance).
                carriedIn = work - targets.total(from: since, to: min(report.from.adding(days: -1), today))
            }
            return TargetReport(report: counted, targets: targets, since: since, carriedIn: carriedIn)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// Whether any project has a client or a rate (then `report` shows earnings).
    func billingConfigured() -> Bool { Self.isConfigured((try? tracker.catalog.billing()) ?? [:]) }

    static func isConfigured(_ billing: [String: Billing]) -> Bool {
        billing.values.contains { $0.clientID != nil || $0.rate != nil }
    }

    /// The report's earnings when any project has a client or a rate: the report's rounding
    /// (or the exact time) per project, billed at its rate.
    func earnings(_ intervals: [Interval], report: Report, rounding: Rounding?) throws -> (Earnings, [Client])? {
        do {
            let billing = try tracker.catalog.billing()
            guard Self.isConfigured(billing) else { return nil }
            let clients = try tracker.catalog.clients()
            // Without --round the exact time per day and project is billed.
            let per = rounding ?? Rounding(minutes: 6, mode: .up, per: .day)
            let totals = RoundedTotals(intervals: intervals, from: report.from, to: report.to, rules: tracker.rules, rounding: per)
            let earnings = Earnings(totals, rounded: rounding != nil) { id in id.flatMap { billing[$0] } ?? Billing() }
            return (earnings, clients)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// `Notes` b and `Round` s (with `Rounding`, `RoundPer`) of `ReportText`.
    struct ReportExtras {
        var notes = false
        var rounding: Rounding?
        var isEmpty: Bool { !notes && rounding == nil }

        init(_ options: Options) throws {
            notes = try options.bool("Notes") == true
            let (mode, per) = (try options.string("Rounding"), try options.string("RoundPer"))
            if let round = try options.string("Round") {
                do {
                    rounding = try Rounding(round: round, rounding: mode, per: per)
                } catch {
                    throw DaemonAPI.dbusError(error)
                }
            } else if mode != nil || per != nil {
                throw DaemonAPI.invalidArgument("Rounding and RoundPer go with Round (6m, 15m or 30m).")
            }
        }
    }

    /// The report with its notes and/or rounded totals, as text or JSON.
    func reportWithExtras(
        _ report: Report, _ extras: ReportExtras, targets: TargetReport?, json: Bool, color: Bool
    ) throws -> String {
        let rows: [IntervalRow]
        do {
            rows = try tracker.edits.intervals(from: report.from, to: report.to)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
        let projects = tracker.projects
        let order = projects.map(\.id)
        let names = Dictionary(projects.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let digest = extras.notes ? NoteDigest(rows: rows, rules: tracker.rules, projectOrder: order) : nil
        let closed = rows.compactMap { row in
            let end = row.end ?? now
            return end > row.start ? Interval(start: row.start, end: end, projectID: row.projectID) : nil
        }
        let totals = extras.rounding.map { rounding in
            RoundedTotals(intervals: closed, from: report.from, to: report.to, rules: tracker.rules, rounding: rounding)
        }
        let earned = try earnings(closed, report: report, rounding: extras.rounding)
        if json {
            var more: [(String, JSON)] = []
            if let totals { more.append(ReportText.roundedJSON(totals)) }
            if let earned { more.append(ReportText.earningsJSON(earned.0, clients: earned.1)) }
            if let digest { more.append(ReportText.notesJSON(digest)) }
            return ReportText.json(report, targets: targets, adding: more)
        }
        var text = ReportText.table(report, style: Terminal(color: color), targets: targets)
        if let totals { text += ReportText.roundedTable(totals, projectOrder: order, name: { names[$0] }) }
        if let earned {
            text += ReportText.earningsTable(
                earned.0, rounding: extras.rounding, clients: earned.1, projectOrder: order, name: { names[$0] })
        }
        if let digest { text += ReportText.notesTable(digest, name: { names[$0] }) }
        return text
    }
}
