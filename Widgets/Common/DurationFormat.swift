// Durations as the product spec shows them: `H:MM:SS`, hours unbounded.

public enum DurationFormat {
    /// `0:05:30`, `26:01:00`: whole seconds, floored; negative durations show as `0:00:00`.
    public static func hms(_ microseconds: Int64) -> String {
        let totalSeconds = wholeSeconds(microseconds)
        let hours = totalSeconds / 3600
        let minutes = (totalSeconds / 60) % 60
        let seconds = totalSeconds % 60
        return "\(hours):\(twoDigits(minutes)):\(twoDigits(seconds))"
    }

    /// Whole seconds shown for a duration (floored, never negative).
    public static func wholeSeconds(_ microseconds: Int64) -> Int64 {
        microseconds <= 0 ? 0 : microseconds / 1_000_000
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
