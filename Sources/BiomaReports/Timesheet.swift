// A timesheet to hand over: what `report --html` and `report --pdf` draw, made by the daemon
// from the store and drawn here without it. The HTML page and the PDF's pages share the charts
// (`TimesheetSVG`), so the browser, the printer and the PDF show one drawing.

import BiomaCore
import BiomaText

public struct Timesheet: Sendable {
    public struct Project: Sendable, Equatable {
        public var id: String
        public var name: String
        /// `#RRGGBB`.
        public var color: String
        public init(id: String, name: String, color: String) { (self.id, self.name, self.color) = (id, name, color) }
    }

    /// A stretch of work on the week's calendar: its day's column (0 the first) and its clock
    /// times in seconds from that day's start.
    public struct Block: Sendable, Equatable {
        public var column: Int
        public var start: Int
        public var end: Int
        public var projectID: String?
        public init(column: Int, start: Int, end: Int, projectID: String?) {
            (self.column, self.start, self.end, self.projectID) = (column, start, end, projectID)
        }
    }

    public var from: Day
    public var to: Day
    /// What the timesheet was filtered by, in words (`client ACME, tag meeting`), `""` for all.
    public var filter: String
    /// Every project in list order.
    public var projects: [Project]
    public var clients: [Client]
    public var earnings: Earnings
    public var rounding: Rounding?
    public var notes: NoteDigest
    /// The calendar's days (at most 7, from `from`), and its blocks; none for longer periods.
    public var calendarDays: [Day]
    public var blocks: [Block]
    /// When it was made, as the caller reads it (`2026-11-20 18:00`).
    public var made: String
    /// Per tag, the time of the intervals that have it (exact, and each interval rounded).
    public var tagTotals: [TagTotal] = []

    public struct TagTotal: Sendable, Equatable {
        public var tag: String
        public var exact: Micros
        public var billed: Micros
        public init(tag: String, exact: Micros, billed: Micros) { (self.tag, self.exact, self.billed) = (tag, exact, billed) }
    }

    public init(
        from: Day, to: Day, filter: String, projects: [Project], clients: [Client], earnings: Earnings, rounding: Rounding?,
        notes: NoteDigest, calendarDays: [Day], blocks: [Block], made: String
    ) {
        (self.from, self.to, self.filter, self.projects, self.clients) = (from, to, filter, projects, clients)
        (self.earnings, self.rounding, self.notes) = (earnings, rounding, notes)
        (self.calendarDays, self.blocks, self.made) = (calendarDays, blocks, made)
    }

    public static let noProjectColor = "#9E9E9E"

    public func name(_ id: String?) -> String {
        guard let id else { return "no project" }
        return projects.first { $0.id == id }?.name ?? id
    }

    public func color(_ id: String?) -> String {
        id.flatMap { id in projects.first { $0.id == id }?.color } ?? Self.noProjectColor
    }

    public func clientName(_ id: String?) -> String {
        guard let id else { return "no client" }
        return clients.first { $0.id == id }?.name ?? id
    }

    /// `2026-11-20` or `2026-11-16 – 2026-11-22`.
    public var period: String { from == to ? "\(from)" : "\(from) – \(to)" }

    /// The projects with time, in list order, no project last.
    public var shown: [String?] {
        let present = Set(earnings.lines.map(\.projectID))
        return projects.map(\.id).filter { present.contains($0) } + (present.contains(nil) ? [nil] : [])
    }

    /// The earnings' lines grouped by client (clients in order, then none).
    public var groups: [(client: String?, lines: [Earnings.Line])] {
        ReportText.byClient(earnings, clientOrder: clients.map(\.id), projectOrder: projects.map(\.id)).map {
            (client: $0.0, lines: $0.1)
        }
    }

    /// `1:15:00` for µs.
    public static func hours(_ micros: Micros) -> String { DurationFormat.hms(micros) }

    /// The amounts per currency, `172.75 EUR` (`-` when nothing is charged).
    public var totalAmounts: String {
        earnings.totals.isEmpty
            ? "-" : earnings.totals.keys.sorted().map { "\(Currency.format(earnings.totals[$0]!, $0)) \($0)" }.joined(separator: ", ")
    }

    /// Each day of the period with time: its per-project lines (project, exact, billed, amount, currency).
    public var dayRows: [(day: Day, rows: [(projectID: String?, exact: Micros, billed: Micros, amount: String)])] {
        var byDay: [Day: [(projectID: String?, exact: Micros, billed: Micros, amount: String)]] = [:]
        for line in earnings.lines {
            for day in line.days {
                let charged = line.billing.billable && line.billing.rate != nil && line.billing.currency != nil
                let amount = charged ? "\(Currency.format(day.amount, line.billing.currency!)) \(line.billing.currency!)" : "-"
                byDay[day.day, default: []].append((line.projectID, day.exact, day.billed, amount))
            }
        }
        let order = shown
        return byDay.keys.sorted().map { day in
            (day, byDay[day]!.sorted { a, b in (order.firstIndex(of: a.projectID) ?? 0) < (order.firstIndex(of: b.projectID) ?? 0) })
        }
    }
}
