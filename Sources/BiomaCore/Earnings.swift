/// What a period earned: per project, its exact and billed time (the report's rounding applied
/// per interval or per day, as `RoundedTotals` does), its rate and amount; per currency, the
/// total. A project's amount is its billed time × its rate, rounded once to the minor unit; its
/// days' amounts share it out by largest remainder, so the days sum to the project, the
/// projects to their client and the clients to the total, exactly.
public struct Earnings: Sendable, Equatable {
    public struct Day: Sendable, Equatable {
        public var day: BiomaCore.Day
        public var exact: Micros
        public var billed: Micros
        public var amount: Int64
    }

    public struct Line: Sendable, Equatable {
        /// nil: work without a project.
        public var projectID: String?
        public var billing: Billing
        public var exact: Micros
        /// The rounded time (the exact time when the report does not round).
        public var billed: Micros
        /// Minor units of `billing.currency`; 0 without a rate or when not billable.
        public var amount: Int64
        public var days: [Day]
    }

    public var lines: [Line]
    public var exactTotal: Micros
    public var billedTotal: Micros
    /// Currency code → amount, for the currencies with an amount.
    public var totals: [String: Int64]

    /// `totals`' lines grouped by project; `rounded` false bills the exact time (the lines'
    /// `exact`); `billing` gives a project's billing (nil: no project).
    public init(_ totals: RoundedTotals, rounded: Bool, billing: (String?) -> Billing) {
        var order: [String?] = []
        var byProject: [String?: [RoundedTotals.Line]] = [:]
        for line in totals.lines {
            if byProject[line.projectID] == nil { order.append(line.projectID) }
            byProject[line.projectID, default: []].append(line)
        }
        var result: [Line] = []
        var sums: [String: Int64] = [:]
        for id in order {
            let days = byProject[id]!
            let bill = id == nil ? Billing(billable: false) : billing(id)
            let billedDays = days.map { rounded ? $0.rounded : $0.exact }
            let billed = billedDays.reduce(0, +)
            let charged = bill.billable && bill.rate != nil && bill.currency != nil
            let rate = charged ? bill.rate! : 0
            let amount = Currency.amount(billed, rate: rate)
            let shares = Self.share(amount, over: billedDays, rate: rate)
            result.append(
                Line(
                    projectID: id, billing: bill, exact: days.reduce(0) { $0 + $1.exact }, billed: billed, amount: amount,
                    days: zip(days, zip(billedDays, shares)).map { Day(day: $0.day, exact: $0.exact, billed: $1.0, amount: $1.1) }))
            if charged { sums[bill.currency!, default: 0] += amount }
        }
        lines = result
        exactTotal = result.reduce(0) { $0 + $1.exact }
        billedTotal = result.reduce(0) { $0 + $1.billed }
        self.totals = sums
    }

    /// `amount` shared over `parts` (µs) in proportion, each share the floor of its exact part
    /// plus one for the largest remainders until the shares sum to `amount`.
    static func share(_ amount: Int64, over parts: [Micros], rate: Int64) -> [Int64] {
        let hour: Int64 = 3_600_000_000
        guard rate > 0 else { return parts.map { _ in 0 } }
        // Each part's exact value in minor units is part × rate / hour: whole and remainder.
        var floors: [Int64] = []
        var remainders: [(Int64, Int)] = []
        for (index, part) in parts.enumerated() {
            let (hours, rest) = part.quotientAndRemainder(dividingBy: hour)
            let (whole, remainder) = (rest * rate).quotientAndRemainder(dividingBy: hour)
            floors.append(hours * rate + whole)
            remainders.append((remainder, index))
        }
        var left = amount - floors.reduce(0, +)
        remainders.sort { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        var index = 0
        while left > 0, !remainders.isEmpty {
            floors[remainders[index % remainders.count].1] += 1
            left -= 1
            index += 1
        }
        while left < 0, let last = floors.indices.last(where: { floors[$0] > 0 }) {
            floors[last] -= 1
            left += 1
        }
        return floors
    }
}
