/// Days as the contract writes them, `YYYY-MM-DD`: the one parser behind BiomaCore's `Day`
/// and the clients' check that a bad `--date` is a usage error before any call.
public enum DayText {
    /// The year, month and day of `text` when it is a real calendar day in `YYYY-MM-DD` form
    /// (years 0001–9999), else nil.
    public static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1,
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return (year, month, day)
    }

    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// `2026-12-02` in words, as a person says it: `Wednesday 2 December 2026`; nil when it is
    /// not a day.
    public static func words(_ text: String) -> String? {
        guard let (year, month, day) = parse(text) else { return nil }
        return "\(weekdayNames[weekday(year: year, month: month, day: day)]) \(day) \(monthNames[month - 1]) \(year)"
    }

    /// The weekday of a calendar day, 0 Sunday … 6 Saturday (Sakamoto's rule).
    public static func weekday(year: Int, month: Int, day: Int) -> Int {
        let offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let y = month < 3 ? year - 1 : year
        return (y + y / 4 - y / 100 + y / 400 + offsets[month - 1] + day) % 7
    }

    /// `monday` or `mon` (any case) as 0 Sunday … 6 Saturday; nil for anything else.
    public static func weekday(named text: String) -> Int? {
        let key = text.lowercased()
        guard key.count >= 3 else { return nil }
        return weekdayNames.firstIndex { $0.lowercased() == key || $0.lowercased().prefix(3) == key }
    }

    /// Whether `text` is a real calendar day in `YYYY-MM-DD` form.
    public static func isValid(_ text: String) -> Bool { parse(text) != nil }

    /// 28 to 31.
    public static func daysIn(month: Int, year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }
}
