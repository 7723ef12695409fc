import BiomaText

#if canImport(Glibc)
import Glibc
#endif

/// A local calendar date and clock time.
public struct LocalTime: Equatable, Sendable {
    public var year: Int32
    public var month: Int32
    public var day: Int32
    public var hour: Int32
    public var minute: Int32
    public init(year: Int32, month: Int32, day: Int32, hour: Int32 = 0, minute: Int32 = 0) {
        (self.year, self.month, self.day, self.hour, self.minute) = (year, month, day, hour, minute)
    }
}

/// The time zone a command reads and writes local times in, as a value: a command run for a
/// caller gets the caller's zone without the process's `TZ` changing under anything else the
/// daemon does meanwhile (its own days, deadlines and bars stay in its own zone).
public protocol LocalZone: Sendable {
    /// The local date and clock at `seconds` since the epoch.
    func local(_ seconds: Int64) -> LocalTime
    /// The instant (seconds since the epoch) of a local date and clock, as `mktime` gives it:
    /// a day or month past its end is carried into the next, and a clock the zone skips that
    /// day comes back as another clock (which `WhenText` then refuses).
    func instant(_ local: LocalTime) -> Int64
}

/// The C library's zone: this process's `TZ` (what `biomatimer-tool` and the daemon's own
/// commands use).
public struct ProcessZone: LocalZone {
    public init() {}

    public func local(_ seconds: Int64) -> LocalTime {
        var value = time_t(seconds)
        var parts = tm()
        localtime_r(&value, &parts)
        return LocalTime(
            year: parts.tm_year + 1900, month: parts.tm_mon + 1, day: parts.tm_mday, hour: parts.tm_hour, minute: parts.tm_min)
    }

    public func instant(_ local: LocalTime) -> Int64 {
        var parts = tm()
        parts.tm_year = local.year - 1900
        parts.tm_mon = local.month - 1
        parts.tm_mday = local.day
        parts.tm_hour = local.hour
        parts.tm_min = local.minute
        parts.tm_isdst = -1
        return Int64(mktime(&parts))
    }
}

/// Instants as people write them, in the local time zone: `15:00` (today), `tomorrow 09:00`,
/// `today 9:30`, `yesterday 17:30`, `2026-11-23 09:00` (or `2026-11-23T09:00`), `+2h`
/// (from now), `-600s` (before now), `now`.
public enum WhenText {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notATime(String)
        /// A local time the clocks skip (a daylight-saving change).
        case doesNotExist(String)
        /// Not two times joined by `-`.
        case notARange(String)
        /// A range whose end comes before its start (and not a night across midnight).
        case endsBeforeStart(String)

        public var description: String {
            switch self {
            case .notATime(let text):
                return "'\(text)' is not a time: use 15:00, tomorrow 09:00, friday 09:00, 2026-11-23 09:00 or +2h."
            case .doesNotExist(let text):
                return "'\(text)' does not exist in this time zone (the clocks skip it that day)."
            case .notARange(let text):
                return "'\(text)' is not a time range: use START-END, e.g. 09:00-12:30 or yesterday 17:30-18:15."
            case .endsBeforeStart(let text):
                return "'\(text)' ends before it starts. Across midnight, an end clock before the start is the next day "
                    + "for up to 12 hours (22:00-01:00); for longer, give both days (2026-11-20T12:00-2026-11-21T11:00)."
            }
        }
    }

    /// The days every option that takes one reads, in words: a bad one's message says them.
    public static let dayForms = "today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD"

    /// A day as people write it, as `YYYY-MM-DD`: `today`, `yesterday`, `tomorrow`, a weekday
    /// (`monday`, `mon`: the last such day, today included; with `ahead`, the next, today
    /// included) or `YYYY-MM-DD`, any case, relative to `now` in `zone`; nil when it is none.
    /// The one reader of every option that takes a day and of the day word of a time.
    public static func day(_ text: String, now: Int64, zone: any LocalZone = ProcessZone(), ahead: Bool = false) -> String? {
        let word = String(text.filter { $0 != " " }).lowercased()
        guard let date = localDay(word, now: now, zone: zone, ahead: ahead) else { return nil }
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))"
    }

    /// `day`'s reading as a local date.
    static func localDay(_ word: String, now: Int64, zone: any LocalZone, ahead: Bool) -> LocalDate? {
        let today = localDate(now, zone)
        switch word {
        case "today": return today
        case "tomorrow": return shifted(today, days: 1, zone)
        case "yesterday": return shifted(today, days: -1, zone)
        default:
            if let date = parseDate(word) { return date }
            guard let wanted = DayText.weekday(named: word) else { return nil }
            let current = DayText.weekday(year: Int(today.year), month: Int(today.month), day: Int(today.day))
            let days = ahead ? (wanted - current + 7) % 7 : -((current - wanted + 7) % 7)
            return shifted(today, days: Int32(days), zone)
        }
    }

    /// Microseconds since the epoch for `text`, relative to `now`; a bare clock (`09:00`) is
    /// on `day` (`YYYY-MM-DD`) when one is given, else today.
    public static func parse(_ text: String, now: Int64, day: String?, zone: any LocalZone = ProcessZone()) throws(Failure) -> Int64 {
        guard let day else { return try parse(text, now: now, zone: zone) }
        let trimmed = text.filter { $0 != " " }
        guard let date = localDay(String(day.filter { $0 != " " }).lowercased(), now: now, zone: zone, ahead: false),
            let (hour, minute) = parseClock(trimmed)
        else {
            return try parse(text, now: now, zone: zone)
        }
        return try instant(date, hour: hour, minute: minute, text: "\(day) \(trimmed)", zone: zone)
    }

    /// The longest interval a bare end clock before its start reads as (on the next day):
    /// `22:00-01:00` is a night's three hours; `12:00-11:00` ends before it starts.
    public static let longestAcrossMidnight: Int64 = 12 * 3_600_000_000

    /// `09:00-12:30`, `yesterday 17:30-18:15`, `2026-11-20T22:00-01:00`: two instants split
    /// at a `-` where both sides are times. An end given as a bare clock is on the start's day,
    /// or the next day when it is not after the start and that makes at most 12 hours
    /// (`22:00-01:00`); else the range ends before it starts (`12:00-11:00`).
    public static func parseRange(
        _ text: String, now: Int64, day: String?, zone: any LocalZone = ProcessZone()
    ) throws(Failure) -> (start: Int64, end: Int64) {
        let characters = Array(text)
        var skipped: Failure?
        for index in characters.indices where characters[index] == "-" && index > 0 {
            let left = String(characters[..<index])
            let right = String(characters[(index + 1)...])
            let clock = right.filter { $0 != " " }
            do throws(Failure) {
                let start = try parse(left, now: now, day: day, zone: zone)
                guard let (hour, minute) = parseClock(clock) else { return (start, try parse(right, now: now, day: day, zone: zone)) }
                let date = localDate(start, zone)
                let end = try instant(date, hour: hour, minute: minute, text: "\(text)", zone: zone)
                if end > start { return (start, end) }
                let next = try instant(shifted(date, days: 1, zone), hour: hour, minute: minute, text: text, zone: zone)
                guard next - start <= longestAcrossMidnight else { throw Failure.endsBeforeStart(text) }
                return (start, next)
            } catch {
                // A side that names a time the clocks skip, or an end before the start, says
                // so, unless another split works.
                if case .doesNotExist = error { skipped = error }
                if case .endsBeforeStart = error { skipped = error }
            }
        }
        throw skipped ?? .notARange(text)
    }

    /// Microseconds since the epoch for `text`, relative to `now`. A weekday names the last
    /// such day (today included), or with `ahead` (a due time) the next.
    public static func parse(_ text: String, now: Int64, zone: any LocalZone = ProcessZone(), ahead: Bool = false) throws(Failure) -> Int64 {
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        let lower = trimmed.lowercased()
        if lower == "now" { return now }
        if lower.hasPrefix("+") || lower.hasPrefix("-") {
            guard let duration = DurationText.parse(String(lower.dropFirst())) else { throw .notATime(text) }
            return lower.hasPrefix("+") ? now + duration : now - duration
        }
        var words = lower.split(separator: " ").map(String.init)
        // `2026-11-23T09:00`: the ISO 8601 form, one word.
        if words.count == 1, words[0].count > 11, Array(words[0])[10] == "t" {
            words = [String(words[0].prefix(10)), String(words[0].dropFirst(11))]
        }
        let today = localDate(now, zone)
        var date = today
        let timeWord: String
        switch words.count {
        case 1:
            timeWord = words[0]
        case 2:
            guard let named = localDay(words[0], now: now, zone: zone, ahead: ahead) else { throw .notATime(text) }
            date = named
            timeWord = words[1]
        default:
            throw .notATime(text)
        }
        guard let (hour, minute) = parseClock(timeWord) else { throw .notATime(text) }
        return try instant(date, hour: hour, minute: minute, text: text, zone: zone)
    }

    struct LocalDate: Equatable {
        var year: Int32
        var month: Int32
        var day: Int32
    }

    static func localDate(_ instant: Int64, _ zone: any LocalZone) -> LocalDate {
        let local = zone.local(instant / 1_000_000)
        return LocalDate(year: local.year, month: local.month, day: local.day)
    }

    static func shifted(_ date: LocalDate, days: Int32, _ zone: any LocalZone) -> LocalDate {
        // Noon of the day, moved by whole days through the zone, which knows the calendar.
        let seconds = zone.instant(LocalTime(year: date.year, month: date.month, day: date.day + days, hour: 12))
        return localDate(seconds * 1_000_000, zone)
    }

    static func parseDate(_ text: String) -> LocalDate? {
        guard DayText.isValid(text) else { return nil }
        let parts = text.split(separator: "-").compactMap { Int32($0) }
        return LocalDate(year: parts[0], month: parts[1], day: parts[2])
    }

    /// `HH:MM` or `H:MM` (`ClockText`, the one reader of a clock time).
    static func parseClock(_ text: String) -> (Int32, Int32)? {
        ClockText.parse(text).map { (Int32($0.hour), Int32($0.minute)) }
    }

    static func instant(
        _ date: LocalDate, hour: Int32, minute: Int32, text: String, zone: any LocalZone
    ) throws(Failure) -> Int64 {
        let seconds = zone.instant(LocalTime(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute))
        // A local time in a spring-forward gap comes back normalised to another time.
        let back = zone.local(seconds)
        guard back.hour == hour, back.minute == minute, back.day == date.day else { throw .doesNotExist(text) }
        return seconds * 1_000_000
    }

    /// `15:00` today, `tomorrow 09:00`, else `2026-11-25 09:00`: local time, for listings.
    public static func describe(_ instant: Int64, now: Int64, zone: any LocalZone = ProcessZone()) -> String {
        Describer(now: now, zone: zone).describe(instant)
    }

    /// `describe` for many instants against one `now`: today, tomorrow and yesterday are found
    /// once, and each instant costs one local-time conversion (a listing of a week's hundreds
    /// of intervals made three zone conversions an instant, and the C library's `mktime` reads
    /// /etc/localtime's status at each).
    public struct Describer {
        let zone: any LocalZone
        let today: LocalDate
        let tomorrow: LocalDate
        let yesterday: LocalDate

        public init(now: Int64, zone: any LocalZone = ProcessZone()) {
            self.zone = zone
            today = localDate(now, zone)
            tomorrow = shifted(today, days: 1, zone)
            yesterday = shifted(today, days: -1, zone)
        }

        public func describe(_ instant: Int64) -> String {
            let local = zone.local(instant / 1_000_000)
            let date = LocalDate(year: local.year, month: local.month, day: local.day)
            let clock = twoDigits(local.hour) + ":" + twoDigits(local.minute)
            if date == today { return clock }
            if date == tomorrow { return "tomorrow " + clock }
            if date == yesterday { return "yesterday " + clock }
            return "\(date.year)-\(twoDigits(date.month))-\(twoDigits(date.day)) \(clock)"
        }
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
