// Lengths of work targets and budgets as people write and read them: `8h`, `7h30m`, `7:30`.

private let second: Int64 = 1_000_000

/// Why a length could not be read: the message names what and the value.
public struct GoalLengthError: Error, Sendable, Equatable {
    public var message: String
}

/// Lengths as the settings and the command line write them: `8h`, `7h30m`, `90m`, `45s`,
/// `7:30` (hours and minutes), and `0`.
public enum GoalLength {
    /// Microseconds, or an error naming `what` and the value. Zero is allowed
    /// (`0`, `0h`); a sign is refused (a negative length means nothing here).
    public static func parse(_ raw: String, what: String, max: Int64) throws(GoalLengthError) -> Int64 {
        let text = String(raw.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()).lowercased()
        func bad(_ why: String) -> GoalLengthError {
            GoalLengthError(message: "\(what) `\(raw)` \(why).")
        }
        if text.hasPrefix("-") { throw bad("is negative: use a length of 0 or more, e.g. 8h, 7h30m, 7:30") }
        guard !text.isEmpty else { throw bad("is empty: use a length such as 8h, 7h30m, 7:30 or 0") }
        var value: Int64 = 0
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let hours = Int64(parts[0]), let minutes = Int64(parts[1]),
                parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }), minutes < 60,
                hours < 1_000_000
            else { throw bad("is not a length: use H:MM such as 7:30, or 8h, 7h30m, 0") }
            value = (hours * 3600 + minutes * 60) * second
        } else {
            var number: Int64?
            var seen: Set<Character> = []
            var order = 0
            for c in text {
                if c.isASCII, let digit = c.wholeNumberValue {
                    number = (number ?? 0) * 10 + Int64(digit)
                    guard number! < 100_000_000 else { throw bad("is too long") }
                } else if let n = number, let rank = ["h": 1, "m": 2, "s": 3][c], rank > order,
                    seen.insert(c).inserted
                {
                    value += n * (c == "h" ? 3600 : c == "m" ? 60 : 1) * second
                    number = nil
                    order = rank
                } else {
                    throw bad("is not a length: use e.g. 8h, 7h30m, 90m, 7:30 or 0")
                }
            }
            if let number {
                // A bare number is allowed only as 0 ("no target").
                guard number == 0, value == 0 else { throw bad("needs a unit: write e.g. \(number)h or \(number)m") }
            }
        }
        guard value <= max else { throw bad("is longer than \(DurationClock.hoursMinutes(max))") }
        return value
    }
}

/// Lengths as bars and reports show them.
public enum DurationClock {
    /// `8:00`, `123:05`: whole hours and minutes, rounded down (negative as its magnitude).
    public static func hoursMinutes(_ micros: Int64) -> String {
        let minutes = abs(micros) / (60 * second)
        let m = minutes % 60
        return "\(minutes / 60):\(m < 10 ? "0" : "")\(m)"
    }

    /// `+3:20`, `-0:45`, `+0:00`: a signed length in hours and minutes, its magnitude rounded down.
    public static func signed(_ micros: Int64) -> String {
        (micros < 0 && abs(micros) >= 60 * second ? "-" : "+") + hoursMinutes(micros)
    }

    /// `0:05:30`, `12:00:07`: hours, minutes and seconds, rounded down.
    public static func hoursMinutesSeconds(_ micros: Int64) -> String {
        let seconds = max(0, micros) / second
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }
}

