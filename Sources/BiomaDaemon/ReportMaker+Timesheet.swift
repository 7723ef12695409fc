import BiomaCore
import BiomaReports
import BiomaStore
import BiomaText
import DBusKit

/// `ReportText`'s `Html` and `PdfPages`: the timesheet made here from the store (filtered by
/// `Client`, `Project`, `Tag`; the period or `From`/`To`), drawn by BiomaReports. The PDF's
/// pages come back as SVG documents for `rsvg-convert`, run by the command in a child process:
/// the daemon keeps nothing of the drawing.
extension ReportMaker {
    static let timesheetKeys = ["Html", "PdfPages", "Paper", "Client", "Project", "Tag", "From", "To", "By"]

    /// The page (`Html`) or the pages joined by form feeds (`PdfPages`); nil for other reports.
    func timesheetText(period: String, day: String, _ options: Options, extras: ReportExtras) throws -> String? {
        let html = try options.bool("Html") == true
        let pdf = try options.bool("PdfPages") == true
        var by: Timesheet.Grouping?
        if let text = try options.string("By") {
            guard let grouping = Timesheet.Grouping(rawValue: text) else {
                throw DaemonAPI.invalidArgument("By \(quoted(text)) is not a grouping: use client, project, tag or day.")
            }
            by = grouping
        }
        let filtered = ["Client", "Project", "Tag"].contains { options.values[$0] != nil }
        guard html || pdf else {
            if options.values["Paper"] != nil { throw DaemonAPI.invalidArgument("Paper goes with PdfPages.") }
            // `From`/`To` alone is a period like a week's: the report's own table (`text`).
            guard by != nil || filtered else { return nil }
            if try options.bool("Chart") == true || options.bool("Svg") == true {
                throw DaemonAPI.invalidArgument("By, Client, Project, Tag, From and To go with the table, Json, Html or PdfPages.")
            }
            // The table of the filtered time, grouped (by project unless By says otherwise).
            let sheet = try timesheet(period: period, day: day, options, rounding: extras.rounding)
            let grouping = by ?? .project
            return try options.bool("Json") == true ? sheet.groupedJSON(by: grouping) : sheet.groupedText(by: grouping)
        }
        guard !(html && pdf), try options.bool("Json") != true, try options.bool("Chart") != true, try options.bool("Svg") != true else {
            throw DaemonAPI.invalidArgument("Html, PdfPages, Json, Chart and Svg are alternatives: set one at most.")
        }
        var paper = Timesheet.Paper.a4
        if let name = try options.string("Paper") {
            guard let chosen = Timesheet.Paper(rawValue: name.lowercased()) else {
                throw DaemonAPI.invalidArgument("Paper \(quoted(name)) is not a paper size: use a4 or letter.")
            }
            paper = chosen
        }
        let sheet = try timesheet(period: period, day: day, options, rounding: extras.rounding)
        return html ? sheet.html() : sheet.pages(paper: paper).joined(separator: "\u{0C}")
    }

    func timesheet(period: String, day: String, _ options: Options, rounding: Rounding?) throws -> Timesheet {
        let rules = tracker.rules
        do {
            var (from, to): (Day, Day)
            if let range = try Self.range(options) {
                (from, to) = range
            } else {
                guard let kind = ReportPeriod(rawValue: period) else {
                    throw DaemonAPI.invalidArgument("Unknown period \(quoted(period)): use day, week, month or year.")
                }
                let report = try tracker.history.report(kind, containing: try WorkService.optionalDay(day, "day"), at: now)
                (from, to) = (report.from, report.to)
            }
            let billing = try tracker.catalog.billing()
            let clients = try tracker.catalog.clients()
            var words: [String] = []
            var rows = try tracker.edits.intervals(from: from, to: to)
            if let ref = try options.string("Client") {
                let client = try clients.resolve(ref)
                rows = rows.filter { row in row.projectID.flatMap { billing[$0]?.clientID } == client.id }
                words.append("client \(client.name)")
            }
            if let ref = try options.string("Project") {
                let project = try tracker.projects.resolve(ref)
                rows = rows.filter { $0.projectID == project.id }
                words.append("project \(project.name)")
            }
            if let raw = try options.string("Tag") {
                let tag = try Tags.validated(raw)
                rows = rows.filter { Tags.parse($0.tags).contains { $0.lowercased() == tag.lowercased() } }
                words.append("tag \(tag)")
            }
            // The running interval counts up to now, as in every report and export.
            let closed = rows.compactMap { row -> Interval? in
                let end = row.end ?? now
                return end > row.start ? Interval(start: row.start, end: end, projectID: row.projectID) : nil
            }
            let per = rounding ?? Rounding(minutes: 6, mode: .up, per: .day)
            let totals = RoundedTotals(intervals: closed, from: from, to: to, rules: rules, rounding: per)
            let earnings = Earnings(totals, rounded: rounding != nil) { id in id.flatMap { billing[$0] } ?? Billing() }
            let order = tracker.projects.map(\.id)
            var days: [Day] = []
            var blocks: [Timesheet.Block] = []
            if to.ordinal - from.ordinal < 7 {
                var d = from
                while d <= to {
                    days.append(d)
                    d = d.adding(days: 1)
                }
                for interval in closed {
                    for (column, d) in days.enumerated() {
                        let (low, high) = (rules.start(of: d), rules.start(of: d.adding(days: 1)))
                        let (start, end) = (max(interval.start, low), min(interval.end, high))
                        guard end > start else { continue }
                        blocks.append(
                            Timesheet.Block(
                                column: column, start: Int((start - low) / 1_000_000), end: Int((end - low) / 1_000_000),
                                projectID: interval.projectID))
                    }
                }
            }
            var sheet = Timesheet(
                from: from, to: to, filter: words.joined(separator: ", "),
                projects: tracker.projects.map { Timesheet.Project(id: $0.id, name: $0.name, color: $0.color) }, clients: clients,
                earnings: earnings, rounding: rounding, notes: NoteDigest(rows: rows, rules: rules, projectOrder: order),
                calendarDays: days, blocks: blocks, made: "\(rules.day(containing: now))")
            sheet.tagTotals = Self.tagTotals(rows, from: rules.start(of: from), to: rules.start(of: to.adding(days: 1)), now: now, rounding: rounding)
            return sheet
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// Per tag (first seen first), the time of the rows that have it within [low, high), the
    /// running one up to now; rounded per interval when a rounding is given.
    static func tagTotals(_ rows: [IntervalRow], from low: Micros, to high: Micros, now: Micros, rounding: Rounding?) -> [Timesheet.TagTotal] {
        var totals: [Timesheet.TagTotal] = []
        var index: [String: Int] = [:]
        for row in rows {
            let (start, end) = (max(row.start, low), min(row.end ?? now, high))
            guard end > start else { continue }
            for tag in Tags.parse(row.tags) {
                let key = tag.lowercased()
                if index[key] == nil {
                    index[key] = totals.count
                    totals.append(Timesheet.TagTotal(tag: tag, exact: 0, billed: 0))
                }
                totals[index[key]!].exact += end - start
                totals[index[key]!].billed += rounding?.rounded(end - start) ?? (end - start)
            }
        }
        return totals
    }
}
