import BiomaCore
import BiomaStore
import CContract
import DBusKit

/// `SetNote` (the running interval's note) and `ExportICS` (recorded time as a calendar).
extension WorkService {
    func noteMethods() -> [DBusMethod] {
        [
            DBusMethod(BIOMATIMER_TIMER1_SET_NOTE, in: [.init("note", "s")], out: [.init("id", "s")]) { [self] call in
                let text = call.arguments[0].string!
                return [.string(try change { try tracker.setRunningNote(text, at: $0) })]
            },
            DBusMethod(BIOMATIMER_TIMER1_EXPORT_ICS, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("ics", "s")]) {
                [self] call in
                let from = try Self.optionalDay(call.arguments[0].string!, "from_day")
                let to = try Self.optionalDay(call.arguments[1].string!, "to_day")
                if let from, let to, from > to {
                    throw DaemonAPI.invalidArgument("from_day \(from) is after to_day \(to).")
                }
                defer { releaseMemoryAfterBulkWork() }
                do {
                    return [.string(try tracker.exportICS(from: from, to: to, at: clock.now()))]
                } catch {
                    throw DaemonAPI.dbusError(error)
                }
            },
        ]
    }
}
