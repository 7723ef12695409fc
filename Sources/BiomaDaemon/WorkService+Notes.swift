import BiomaCore
import BiomaStore
import CContract
import BiomaReports
import BiomaText
import DBusKit

/// `SetNote` (the running interval's note), `ExportICS` (recorded time as a calendar),
/// `ExportCSVRounded`, and the report's `Notes` and `Round` options.
extension WorkService {
    func noteMethods() -> [DBusMethod] {
        [
            DBusMethod(BIOMATIMER_TIMER1_SET_NOTE, in: [.init("note", "s")], out: [.init("id", "s")]) { [self] call in
                let text = call.arguments[0].string!
                return [.string(try change { try tracker.setRunningNote(text, at: $0) })]
            },
            DBusMethod.deferred(BIOMATIMER_TIMER1_EXPORT_ICS, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("ics", "s")]) {
                [self] call, reply in try export(call, reply) { try $0.exportICS(from: $1, to: $2, at: $3) }
            }.reading(),
            DBusMethod.deferred(BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED,
                in: [.init("from_day", "s"), .init("to_day", "s"), .init("options", "a{sv}")], out: [.init("csv", "s")]
            ) { [self] call, reply in
                let options = try Options(call.arguments[2].vardict ?? [:], allowed: ["Round", "Rounding"])
                guard let round = try options.string("Round") else {
                    throw DaemonAPI.invalidArgument("Round is required: 6m, 15m or 30m.")
                }
                let mode = try options.string("Rounding")
                let rounding: Rounding
                do {
                    rounding = try Rounding(round: round, rounding: mode)
                } catch {
                    throw DaemonAPI.dbusError(error)
                }
                try export(call, reply) { try $0.exportCSV(from: $1, to: $2, rounding: rounding, at: $3) }
            }.reading(),
        ]
    }

    /// An export method: its first two arguments the days (`""`: unbounded), `make` the text,
    /// made from a worker tracker on its own thread (`BulkWork.read`); the memory of the bulk
    /// work given back after the reply.
    func export(
        _ call: MethodCall, _ reply: PendingReply, _ make: @escaping @Sendable (Tracker, Day?, Day?, Micros) throws -> String
    ) throws {
        let from = try Self.optionalDay(call.arguments[0].string!, "from_day")
        let to = try Self.optionalDay(call.arguments[1].string!, "to_day")
        if let from, let to, from > to {
            throw DaemonAPI.invalidArgument("from_day \(from) is after to_day \(to).")
        }
        let now = clock.now()
        bulk.read({ try make($0, from, to, now) }) { [self] result in
            releaseMemoryAfterBulkWork(bytes: (try? result.get())?.utf8.count ?? 0)
            reply.finish(result.map { [.string($0)] }.mapError { DaemonAPI.dbusError($0) })
        }
    }

    static let reportExtraKeys = ["Notes", "Round", "Rounding", "RoundPer"]

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
        let now = clock.now()
        let rows: [IntervalRow]
        do {
            rows = try tracker.intervals(from: report.from, to: report.to)
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
