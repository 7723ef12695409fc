import BiomaCore
import GRDB

/// Recorded time as an iCalendar file (`ICalendar`): `export --format ics`, `ExportICS` and the
/// file `export_ics` keeps fresh.
extension Tracker {
    /// The intervals overlapping the days `from...to` (nil: unbounded) as RFC 5545 text, one
    /// VEVENT each (the running one left out until it stops); `now` is the DTSTAMP.
    public func exportICS(from: Day?, to: Day?, at now: Micros) throws -> String {
        if let from, let to, from > to {
            throw TrackerError.invalidArgument("The export range starts (\(from)) after it ends (\(to)).")
        }
        let low = from.map(rules.start(of:)) ?? .min
        let high = to.map { rules.start(of: $0.adding(days: 1)) } ?? .max
        // The running interval is left out until it stops, as in the CSV export: one rule for
        // every export, so that an export imported again is exact.
        let rows = try readOrThrow { try Tracker.rows($0, overlapping: low, high) }.filter { $0.end != nil }
        let names = Dictionary(model.projects.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let events = ICalendar.events(rows: rows, projectName: { names[$0] }, now: now)
        return ICalendar.encode(events, stamp: now, name: "biomatimer")
    }
}
