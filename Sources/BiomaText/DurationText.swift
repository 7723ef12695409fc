// Lengths of time as people write them, read one way by every command, option and setting:
// `25m`, `1h30m`, `90s`, `8h`, `7:30`, `1:30:00`, and `0` where nothing is a length.

private let second: Int64 = 1_000_000

/// Why a length could not be read: the message names what and the value.
public struct DurationError: Error, Sendable, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
}

/// The one reader of lengths: `focus countdown`, `target set`, `--budget`, `task snooze`, the
/// settings and `+2h` in a time all read them here, so `7:30` means the same everywhere.
///
/// - `8h`, `7h30m`, `90m`, `45s`, `1h5s`: numbers with units, hours then minutes then seconds,
///   each at most once (upper case allowed).
/// - `7:30` is hours and minutes (7 h 30 min), as the settings write targets and reports print
///   lengths; `1:30:00` is hours, minutes and seconds. Minutes and seconds are below 60.
/// - `0` (and `0h`, `0:00`) only where a length of nothing is allowed.
public enum DurationText {
    /// What `--help` says about the colon forms.
    public static let colonForms = "H:MM is hours and minutes (7:30 is 7 h 30 min), H:MM:SS adds seconds"

    /// Microseconds, or an error naming `what` and the value. A sign is refused (a negative
    /// length means nothing here); zero only with `allowZero`; more than `max` is refused, and a
    /// two-part clock (`25:00`) that is too long is shown as the hours it means.
    public static func read(_ raw: String, what: String, max: Int64, allowZero: Bool = false) throws(DurationError) -> Int64 {
        let text = String(raw.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()).lowercased()
        func bad(_ why: String) -> DurationError {
            DurationError(message: "\(what) `\(raw)` \(why).")
        }
        let examples = allowZero ? "e.g. 8h, 7h30m, 90s, 7:30 or 0" : "e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00"
        if text.hasPrefix("-") { throw bad("is negative: use a length of \(allowZero ? "0" : "1 s") or more, \(examples)") }
        guard !text.isEmpty else { throw bad("is empty: use a length such as \(examples)") }
        var value: Int64 = 0
        var clock = false
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                let hours = Int64(parts[0]), hours < 1_000_000
            else { throw bad("is not a length: \(colonForms); or \(examples)") }
            let rest = parts.dropFirst().compactMap { Int64($0) }
            guard rest.count == parts.count - 1, rest.allSatisfy({ $0 < 60 }) else {
                throw bad("is not a length: \(colonForms), minutes and seconds below 60")
            }
            value = (hours * 3600 + rest[0] * 60 + (rest.count > 1 ? rest[1] : 0)) * second
            clock = parts.count == 2
        } else {
            var number: Int64?
            var order = 0
            for c in text {
                if c.isASCII, let digit = c.wholeNumberValue {
                    number = (number ?? 0) * 10 + Int64(digit)
                    guard number! < 100_000_000 else { throw bad("is too long") }
                } else if let n = number, let rank = ["h": 1, "m": 2, "s": 3][c], rank > order {
                    value += n * (c == "h" ? 3600 : c == "m" ? 60 : 1) * second
                    number = nil
                    order = rank
                } else {
                    throw bad("is not a length: use \(examples)")
                }
            }
            if let number {
                // A bare number is allowed only as 0 ("nothing").
                guard number == 0, value == 0, allowZero else { throw bad("needs a unit: write e.g. \(number)h or \(number)m") }
            }
        }
        guard value > 0 || allowZero else { throw bad("is zero: use a length of 1 s or more, \(examples)") }
        guard value <= max else {
            if clock {
                // `25:00` read as a countdown's minutes and seconds is the likely slip.
                throw bad(
                    "is \(value / (3600 * second)) h \(value / (60 * second) % 60) min (H:MM), longer than "
                        + "\(DurationClock.hoursMinutes(max)): for minutes and seconds write 0:\(text) or e.g. 25m")
            }
            throw bad("is longer than \(DurationClock.hoursMinutes(max))")
        }
        return value
    }

    /// Microseconds for a positive length, or nil (settings and `+2h` say why themselves).
    public static func parse(_ text: String) -> Int64? {
        try? read(text, what: "", max: .max)
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

