import Foundation
import BiomaContract

/// A caller's time zone for its command, from the `TZ` it sent: Foundation's zone database,
/// read as a value, so the daemon's own `TZ` (its days, deadlines and bars) never changes while
/// a command runs for someone elsewhere.
public struct CallerZone: LocalZone {
    let calendar: Calendar

    /// The zone `TZ` names: `Europe/Berlin`, `:Europe/Berlin`, `/usr/share/zoneinfo/Europe/Berlin`,
    /// `UTC`. Nil for what Foundation does not know (a POSIX rule such as `CET-1CEST,M3.5.0,M10.5.0/3`).
    public init?(_ tz: String) {
        var name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if name.hasPrefix("/") {
            guard let range = name.range(of: "/zoneinfo/") else { return nil }
            name = String(name[range.upperBound...])
        }
        guard !name.isEmpty, let zone = TimeZone(identifier: name) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
    }

    public func local(_ seconds: Int64) -> LocalTime {
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return LocalTime(
            year: Int32(parts.year ?? 1970), month: Int32(parts.month ?? 1), day: Int32(parts.day ?? 1),
            hour: Int32(parts.hour ?? 0), minute: Int32(parts.minute ?? 0))
    }

    public func instant(_ local: LocalTime) -> Int64 {
        // The first of the month, then the days past it: a day beyond the month's end (or
        // before its start) is carried over as mktime carries it.
        let first = DateComponents(year: Int(local.year), month: Int(local.month), day: 1, hour: Int(local.hour), minute: Int(local.minute))
        guard let start = calendar.date(from: first),
            let date = calendar.date(byAdding: .day, value: Int(local.day) - 1, to: start, wrappingComponents: false)
        else { return 0 }
        // Adding days keeps the clock; a clock the zone skips that day comes back moved.
        var parts = calendar.dateComponents([.year, .month, .day], from: date)
        (parts.hour, parts.minute) = (Int(local.hour), Int(local.minute))
        let found = calendar.date(from: parts) ?? date
        // A clock the zone shows twice (the hour the clocks go back) is read as its second
        // time, in standard time, as the C library's mktime reads it: the same answer as
        // `biomatimer-tool` gives in that zone.
        let shift = calendar.timeZone.daylightSavingTimeOffset(for: found)
        let later = found.addingTimeInterval(shift)
        if shift > 0, self.local(Int64(later.timeIntervalSince1970)) == self.local(Int64(found.timeIntervalSince1970)) {
            return Int64(later.timeIntervalSince1970.rounded(.down))
        }
        return Int64(found.timeIntervalSince1970.rounded(.down))
    }
}
