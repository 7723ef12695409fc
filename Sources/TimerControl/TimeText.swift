import BiomaText

#if canImport(Glibc)
import Glibc
#endif

/// Durations as people write them: `25m`, `1h30m`, `90s`, `2h`, `1:30:00`, `5:00` (minutes
/// and seconds). Parsed on the client side, so a bad one is a usage error before any call.
public enum DurationText {
    /// Microseconds, or nil when `text` is not a duration (or is zero).
    public static func parse(_ text: String) -> Int64? {
        let text = text.lowercased()
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
                let numbers = Optional(parts.compactMap { Int64($0) }), numbers.count == parts.count,
                numbers.dropFirst().allSatisfy({ $0 < 60 }), numbers.allSatisfy({ $0 >= 0 && $0 < 1_000_000 })
            else { return nil }
            let seconds = numbers.reduce(0) { $0 * 60 + $1 }
            return seconds > 0 ? seconds * 1_000_000 : nil
        }
        var total: Int64 = 0
        var number: Int64?
        var seenUnits: Set<Character> = []
        for c in text {
            if let digit = c.wholeNumberValue, c.isASCII {
                number = (number ?? 0) * 10 + Int64(digit)
                if number! > 10_000_000 { return nil }
            } else if let n = number, ["h", "m", "s"].contains(c), seenUnits.insert(c).inserted {
                total += n * (c == "h" ? 3600 : c == "m" ? 60 : 1)
                number = nil
            } else {
                return nil
            }
        }
        guard number == nil, total > 0 else { return nil }
        return total * 1_000_000
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

        public var description: String {
            switch self {
            case .notATime(let text):
                return "'\(text)' is not a time: use 15:00, tomorrow 09:00, 2026-11-23 09:00 or +2h."
            case .doesNotExist(let text):
                return "'\(text)' does not exist in this time zone (the clocks skip it that day)."
            case .notARange(let text):
                return "'\(text)' is not a time range: use START-END, e.g. 09:00-12:30 or yesterday 17:30-18:15."
            }
        }
    }

    /// Microseconds since the epoch for `text`, relative to `now`; a bare clock (`09:00`) is
    /// on `day` (`YYYY-MM-DD`) when one is given, else today.
    public static func parse(_ text: String, now: Int64, day: String?) throws(Failure) -> Int64 {
        guard let day else { return try parse(text, now: now) }
        let trimmed = text.filter { $0 != " " }
        guard let date = parseDate(day), let (hour, minute) = parseClock(trimmed) else { return try parse(text, now: now) }
        return try instant(date, hour: hour, minute: minute, text: "\(day) \(trimmed)")
    }

    /// `09:00-12:30`, `yesterday 17:30-18:15`, `2026-11-20T22:00-01:00`: two instants split
    /// at a `-` where both sides are times. An end given as a bare clock is on the start's day,
    /// or the next day when it is not after the start (`22:00-01:00`).
    public static func parseRange(_ text: String, now: Int64, day: String?) throws(Failure) -> (start: Int64, end: Int64) {
        let characters = Array(text)
        var skipped: Failure?
        for index in characters.indices where characters[index] == "-" && index > 0 {
            let left = String(characters[..<index])
            let right = String(characters[(index + 1)...])
            let clock = right.filter { $0 != " " }
            do {
                let start = try parse(left, now: now, day: day)
                guard let (hour, minute) = parseClock(clock) else { return (start, try parse(right, now: now, day: day)) }
                let date = localDate(start)
                let end = try instant(date, hour: hour, minute: minute, text: "\(text)")
                if end > start { return (start, end) }
                return (start, try instant(shifted(date, days: 1), hour: hour, minute: minute, text: text))
            } catch {
                // A side that names a time the clocks skip says so, unless another split works.
                if case .doesNotExist = error { skipped = error }
            }
        }
        throw skipped ?? .notARange(text)
    }

    /// Microseconds since the epoch for `text`, relative to `now`.
    public static func parse(_ text: String, now: Int64) throws(Failure) -> Int64 {
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
        let today = localDate(now)
        var date = today
        let timeWord: String
        switch words.count {
        case 1:
            timeWord = words[0]
        case 2:
            switch words[0] {
            case "today": date = today
            case "tomorrow": date = shifted(today, days: 1)
            case "yesterday": date = shifted(today, days: -1)
            default:
                guard let parsed = parseDate(words[0]) else { throw .notATime(text) }
                date = parsed
            }
            timeWord = words[1]
        default:
            throw .notATime(text)
        }
        guard let (hour, minute) = parseClock(timeWord) else { throw .notATime(text) }
        return try instant(date, hour: hour, minute: minute, text: text)
    }

    struct LocalDate: Equatable {
        var year: Int32
        var month: Int32
        var day: Int32
    }

    static func localDate(_ instant: Int64) -> LocalDate {
        var seconds = time_t(instant / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return LocalDate(year: parts.tm_year + 1900, month: parts.tm_mon + 1, day: parts.tm_mday)
    }

    static func shifted(_ date: LocalDate, days: Int32) -> LocalDate {
        // Noon of the day, moved by whole days through the C library, which knows the calendar.
        var parts = tm()
        parts.tm_year = date.year - 1900
        parts.tm_mon = date.month - 1
        parts.tm_mday = date.day + days
        parts.tm_hour = 12
        parts.tm_isdst = -1
        var seconds = mktime(&parts)
        var back = tm()
        localtime_r(&seconds, &back)
        return LocalDate(year: back.tm_year + 1900, month: back.tm_mon + 1, day: back.tm_mday)
    }

    static func parseDate(_ text: String) -> LocalDate? {
        guard DayText.isValid(text) else { return nil }
        let parts = text.split(separator: "-").compactMap { Int32($0) }
        return LocalDate(year: parts[0], month: parts[1], day: parts[2])
    }

    /// `HH:MM` or `H:MM`, 00:00 – 23:59.
    static func parseClock(_ text: String) -> (Int32, Int32)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int32(parts[0]), let minute = Int32(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return (hour, minute)
    }

    static func instant(_ date: LocalDate, hour: Int32, minute: Int32, text: String) throws(Failure) -> Int64 {
        var parts = tm()
        parts.tm_year = date.year - 1900
        parts.tm_mon = date.month - 1
        parts.tm_mday = date.day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_isdst = -1
        var seconds = mktime(&parts)
        // A local time in a spring-forward gap comes back normalised to another time.
        var back = tm()
        localtime_r(&seconds, &back)
        guard back.tm_hour == hour, back.tm_min == minute, back.tm_mday == date.day else { throw .doesNotExist(text) }
        return Int64(seconds) * 1_000_000
    }

    /// `15:00` today, `tomorrow 09:00`, else `2026-11-25 09:00`: local time, for listings.
    public static func describe(_ instant: Int64, now: Int64) -> String {
        var seconds = time_t(instant / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let date = LocalDate(year: parts.tm_year + 1900, month: parts.tm_mon + 1, day: parts.tm_mday)
        let clock = twoDigits(parts.tm_hour) + ":" + twoDigits(parts.tm_min)
        let today = localDate(now)
        if date == today { return clock }
        if date == shifted(today, days: 1) { return "tomorrow " + clock }
        if date == shifted(today, days: -1) { return "yesterday " + clock }
        return "\(date.year)-\(twoDigits(date.month))-\(twoDigits(date.day)) \(clock)"
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
