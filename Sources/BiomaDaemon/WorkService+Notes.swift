import BiomaCore
import BiomaStore
import CContract
import BiomaReports
import BiomaText
import DBusKit

/// `SetNote` (the running interval's note), `ExportICS` (recorded time as a calendar) and
/// `ExportCSVRounded`.
extension WorkService {
    func noteMethods() -> [DBusMethod] {
        [
            DBusMethod(BIOMATIMER_TIMER1_SET_NOTE, in: [.init("note", "s")], out: [.init("id", "s")]) { [self] call in
                let text = call.arguments[0].string!
                return [.string(try change { try tracker.edits.setRunningNote(text, at: $0) })]
            },
            DBusMethod.deferred(BIOMATIMER_TIMER1_EXPORT_ICS, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("ics", "s")]) {
                [self] call, reply in try export(call, reply) { try $0.history.exportICS(from: $1, to: $2, at: $3) }
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
                try export(call, reply) { try $0.history.exportCSV(from: $1, to: $2, rounding: rounding, at: $3) }
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
}
