// Project budgets as the command line writes them: `--budget 20h --per week`, `--budget none`.

/// The one reader of a budget's amount and period. The daemon receives what it returns
/// (`Budget` in µs, `BudgetPeriod` as a word) and checks the same periods (`periods`).
public enum BudgetText {
    /// The periods a budget counts over; the first is the default.
    public static let periods = ["week", "month", "total"]
    /// At most 100 000 hours.
    public static let maximum: Int64 = 100_000 * 3_600_000_000

    /// A period word (any case, spaces around it ignored), or nil when it is none of `periods`.
    public static func period(_ raw: String) -> String? {
        let word = String(raw.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()).lowercased()
        return periods.contains(word) ? word : nil
    }

    /// `amount` and `per` as `--budget` and `--per` give them: nil for `none` (the budget is
    /// removed), else the amount in µs (more than 0) and the period (a week by default).
    public static func parse(amount raw: String, per: String?) throws(DurationError) -> (amount: Int64, period: String)? {
        if raw.trimmingSpaces().lowercased() == "none" {
            guard per == nil else { throw DurationError(message: "--per needs a budget: --budget none removes it.") }
            return nil
        }
        let amount = try DurationText.read(raw, what: "--budget", max: maximum, allowZero: true)
        guard amount > 0 else { throw DurationError(message: "--budget \(raw) is zero: use --budget none to remove it.") }
        guard let period = period(per ?? periods[0]) else {
            throw DurationError(message: "--per \(per ?? "") is not a budget period: use week, month or total.")
        }
        return (amount, period)
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
