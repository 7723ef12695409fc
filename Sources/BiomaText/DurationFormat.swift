// Durations as the product shows them, one definition for the bars, the reports, the CSV
// export and the notifications: `H:MM:SS` (hours unbounded) and the clock of a countdown.

public enum DurationFormat {
    /// `0:05:30`, `26:01:00`: whole seconds, floored; negative durations show as `0:00:00`.
    public static func hms(_ microseconds: Int64) -> String {
        let totalSeconds = wholeSeconds(microseconds)
        return "\(totalSeconds / 3600):\(twoDigits(totalSeconds / 60 % 60)):\(twoDigits(totalSeconds % 60))"
    }

    /// A length as a clock reads: `25:00`, `1:30:00`, `0:05` (whole seconds, rounded down).
    public static func clock(_ microseconds: Int64) -> String { clock(seconds: wholeSeconds(microseconds)) }

    /// Whole seconds as a clock reads: `12:34` under an hour, `1:02:03` from an hour.
    public static func clock(seconds: Int64) -> String {
        let seconds = max(0, seconds)
        guard seconds >= 3600 else { return "\(seconds / 60):\(twoDigits(seconds % 60))" }
        return hms(seconds * 1_000_000)
    }

    /// Whole seconds shown for a duration (floored, never negative).
    public static func wholeSeconds(_ microseconds: Int64) -> Int64 {
        microseconds <= 0 ? 0 : microseconds / 1_000_000
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
