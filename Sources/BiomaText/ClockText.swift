/// A time of day as people type and read it: `9:05` or `09:05` read, `09:05` or `09:05:30`
/// written. The one reader of a clock time (the settings' `day_start`, a time on the command
/// line) and the one writer of one.
public enum ClockText {
    /// `H:MM` or `HH:MM`, 00:00 – 23:59, digits only (no sign, no spaces).
    public static func parse(_ text: some StringProtocol) -> (hour: Int, minute: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return (hour, minute)
    }

    /// `09:05`, or `09:05:30` when the second is not 0, for a second of the day.
    public static func format(secondOfDay second: Int64) -> String {
        func pad(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let clock = "\(pad(second / 3600)):\(pad(second / 60 % 60))"
        return second % 60 == 0 ? clock : clock + ":\(pad(second % 60))"
    }
}
