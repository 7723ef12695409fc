import BiomaCore
import Foundation
import PropertyBased
import Testing

/// Rates and earnings: rates read exactly in the currency's minor unit, amounts in integers,
/// and a period's amounts adding up to the total exactly under every rounding.
@Suite struct EarningsTests {
    @Test func ratesAreReadExactlyInMinorUnits() throws {
        #expect(try Currency.parseRate("90", currency: "EUR") == 9000)
        #expect(try Currency.parseRate("87.5", currency: "EUR") == 8750)
        #expect(try Currency.parseRate("0.01", currency: "USD") == 1)
        #expect(try Currency.parseRate("12000", currency: "JPY") == 12000)
        #expect(try Currency.parseRate("1.234", currency: "KWD") == 1234)
        #expect(try Currency.parseRate("1000000", currency: "EUR") == 100_000_000)
        #expect(try Currency.validated(" chf ") == "CHF")
        for (rate, currency, words) in [
            ("-5", "EUR", "cannot be negative"), ("1e3", "EUR", "not an amount"), ("9.999", "EUR", "more decimals"),
            ("1.5", "JPY", "more decimals"), ("1000000.01", "EUR", "not a rate"), ("0", "EUR", "more than 0"), ("", "EUR", "not an amount"),
            ("1.", "EUR", "not an amount"), ("٣", "EUR", "not an amount"),
        ] {
            do {
                _ = try Currency.parseRate(rate, currency: currency)
                Issue.record("\(rate) \(currency) was accepted")
            } catch {
                #expect(error.message.contains(words), "\(rate): \(error.message)")
            }
        }
        for code in ["EURO", "XYZ", "", "eu"] {
            #expect(throws: TrackerError.self) { try Currency.validated(code) }
        }
        #expect(Currency.format(17275, "EUR") == "172.75" && Currency.format(5, "EUR") == "0.05")
        #expect(Currency.format(1200, "JPY") == "1200" && Currency.format(1234, "KWD") == "1.234")
        // A half minor unit rounds up; ten years at the highest rate does not overflow.
        #expect(Currency.amount(20 * minute, rate: 12050) == 4017)
        #expect(Currency.amount(30 * minute, rate: 1) == 1 && Currency.amount(29 * minute, rate: 1) == 0)
        #expect(Currency.amount(87_600 * hour, rate: 100_000_000) == 8_760_000_000_000)
    }

    @Test func theProjectsRateBeatsItsClients() {
        let acme = Client(id: "c1", name: "ACME", rate: 9000, currency: "EUR")
        #expect(Billing.resolve(client: acme, rate: nil, currency: nil, billable: true) == Billing(clientID: "c1", rate: 9000, currency: "EUR"))
        #expect(Billing.resolve(client: acme, rate: 12050, currency: nil, billable: true).rate == 12050)
        #expect(Billing.resolve(client: acme, rate: 100, currency: "USD", billable: false)
            == Billing(clientID: "c1", rate: 100, currency: "USD", billable: false))
        #expect(Billing.resolve(client: nil, rate: nil, currency: nil, billable: true).rate == nil)
    }

    /// Random intervals over a week under every rounding: each project's amount is its billed
    /// time × its rate rounded once; its days' amounts sum to it exactly, each within one minor
    /// unit of its exact share; the currencies' totals are the sums of the projects'.
    static let roundings: [Rounding?] =
        [nil] + Rounding.steps.flatMap { step in
            Rounding.Mode.allCases.flatMap { mode in Rounding.Per.allCases.map { Rounding(minutes: step, mode: mode, per: $0) } }
        }

    @Test func rowsSumToTheTotalExactly() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...(Self.roundings.count - 1)),
            Gen.int(in: 0...(7 * 24 * 60 - 1)).array(of: 1...40), Gen.int(in: 1...600).array(of: 40...40),
            Gen.int(in: 0...4).array(of: 40...40)
        ) { which, starts, lengths, projects in
            Self.check(rounding: Self.roundings[which], starts: starts, lengths: lengths, projects: projects)
        }
    }

    static func check(rounding: Rounding?, starts: [Int], lengths: [Int], projects: [Int]) {
        let rules = DayRules(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let from = Day("2026-11-16")!
        let billing: [String: Billing] = [
            "p1": Billing(clientID: "c1", rate: 9000, currency: "EUR"), "p2": Billing(clientID: "c1", rate: 12_050, currency: "EUR"),
            "p3": Billing(rate: 1, currency: "JPY"), "p4": Billing(rate: 99_999, currency: "KWD", billable: false),
        ]
        // Non-overlapping intervals: sorted starts, each cut before the next.
        let sorted = Array(Set(starts)).sorted()
        var intervals: [Interval] = []
        for (index, start) in sorted.enumerated() {
            let begin = rules.start(of: from) + Micros(start) * minute + 17 * microsPerSecond
            var end = begin + Micros(lengths[index]) * minute + Micros(index) * 1_234_567
            if index + 1 < sorted.count { end = min(end, rules.start(of: from) + Micros(sorted[index + 1]) * minute) }
            guard end > begin else { continue }
            intervals.append(Interval(start: begin, end: end, projectID: projects[index] == 0 ? nil : "p\(projects[index])"))
        }
        let totals = RoundedTotals(
            intervals: intervals, from: from, to: from.adding(days: 6), rules: rules,
            rounding: rounding ?? Rounding(minutes: 6, mode: .up, per: .day))
        let earnings = Earnings(totals, rounded: rounding != nil) { id in id.flatMap { billing[$0] } ?? Billing() }
        var sums: [String: Int64] = [:]
        for line in earnings.lines {
            let charged = line.billing.billable && line.billing.rate != nil
            #expect(line.amount == (charged ? Currency.amount(line.billed, rate: line.billing.rate!) : 0))
            #expect(line.days.reduce(0) { $0 + $1.amount } == line.amount)
            #expect(line.days.reduce(0) { $0 + $1.billed } == line.billed)
            for day in line.days where charged {
                let exact = Double(day.billed) * Double(line.billing.rate!) / 3_600_000_000
                #expect(abs(Double(day.amount) - exact) < 1.0 + 1e-6)
            }
            if charged { sums[line.billing.currency!, default: 0] += line.amount }
        }
        #expect(sums == earnings.totals)
        #expect(earnings.billedTotal == (rounding == nil ? totals.exactTotal : totals.roundedTotal))
        #expect(earnings.exactTotal == totals.exactTotal)
    }
}
