// The report's earnings: per client and project, the hours, the rounded hours, the rate and
// the amount; per currency, the total. Rendered by the daemon like the rest of the report.

import BiomaCore
import BiomaText

extension ReportText {
    /// Lines grouped by client: clients in `clientOrder`, then projects without a client; in
    /// each, the projects in list order (`projectOrder`), work without a project last.
    static func byClient(_ earnings: Earnings, clientOrder: [String], projectOrder: [String]) -> [(String?, [Earnings.Line])] {
        let rank = Dictionary(projectOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let ordered = earnings.lines.sorted { (rank[$0.projectID ?? ""] ?? Int.max) < (rank[$1.projectID ?? ""] ?? Int.max) }
        var groups: [(String?, [Earnings.Line])] = []
        for id in clientOrder {
            let lines = ordered.filter { $0.billing.clientID == id }
            if !lines.isEmpty { groups.append((id, lines)) }
        }
        let rest = ordered.filter { line in line.billing.clientID.map { !clientOrder.contains($0) } ?? true }
        if !rest.isEmpty { groups.append((nil, rest)) }
        return groups
    }

    /// `Earnings (15m up, per interval)`: per client and project, the exact and billed time,
    /// the rate and the amount; then the total per currency.
    public static func earningsTable(
        _ earnings: Earnings, rounding: Rounding?, clients: [Client], projectOrder: [String], name: (String) -> String?
    ) -> String {
        var out = "\nEarnings"
        if let r = rounding { out += " (\(r.step / 60 / microsPerSecond)m \(r.mode.rawValue), per \(r.per.rawValue))" }
        out += "\n  \(Terminal.pad("", 28)) \(Terminal.padLeft("hours", 10)) \(Terminal.padLeft("rounded", 10))"
        out += " \(Terminal.padLeft("rate", 14)) \(Terminal.padLeft("amount", 16))\n"
        let clientNames = Dictionary(clients.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for (client, lines) in byClient(earnings, clientOrder: clients.map(\.id), projectOrder: projectOrder) {
            out += "  \(TextEscaping.singleLine(client.flatMap { clientNames[$0] } ?? "no client"))\n"
            for line in lines {
                let label = Terminal.pad(String(TextEscaping.singleLine(line.projectID.flatMap(name) ?? "no project").prefix(26)), 26)
                out += "    \(label) \(Terminal.padLeft(DurationFormat.hms(line.exact), 10)) "
                out += "\(Terminal.padLeft(DurationFormat.hms(line.billed), 10)) "
                out += "\(Terminal.padLeft(rateText(line.billing), 14)) \(Terminal.padLeft(amountText(line), 16))\n"
            }
        }
        out += "  \(Terminal.pad("total", 28)) \(Terminal.padLeft(DurationFormat.hms(earnings.exactTotal), 10)) "
        out += "\(Terminal.padLeft(DurationFormat.hms(earnings.billedTotal), 10))"
        if earnings.totals.isEmpty { return out + "\n" }
        let totals = earnings.totals.keys.sorted().map { "\(Currency.format(earnings.totals[$0]!, $0)) \($0)" }
        out += " \(Terminal.pad("", 14)) \(Terminal.padLeft(totals[0], 16))\n"
        for more in totals.dropFirst() { out += "  \(Terminal.pad("", 28 + 10 + 10 + 14 + 3)) \(Terminal.padLeft(more, 16))\n" }
        return out
    }

    /// `90.00 EUR/h`, `not billed`, or `-` without a rate.
    public static func rateText(_ billing: Billing) -> String {
        guard billing.billable else { return "not billed" }
        guard let rate = billing.rate, let currency = billing.currency else { return "-" }
        return "\(Currency.format(rate, currency)) \(currency)/h"
    }

    /// `315.00 EUR`, or `-` when nothing is charged.
    public static func amountText(_ line: Earnings.Line) -> String {
        guard line.billing.billable, line.billing.rate != nil, let currency = line.billing.currency else { return "-" }
        return "\(Currency.format(line.amount, currency)) \(currency)"
    }

    /// `"earnings": {"exact_total", "billed_total", "totals": {"EUR": 31500}, "lines": [...]}`,
    /// amounts in the currency's minor unit, times in µs.
    public static func earningsJSON(_ earnings: Earnings, clients: [Client]) -> (String, JSON) {
        let clientNames = Dictionary(clients.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        return (
            "earnings",
            .object([
                "exact_total": .int(earnings.exactTotal), "billed_total": .int(earnings.billedTotal),
                "totals": .object(earnings.totals.mapValues { JSON.int($0) }),
                "lines": .array(
                    earnings.lines.map { line in
                        .object([
                            "project": line.projectID.map(JSON.string) ?? .null,
                            "client": line.billing.clientID.map(JSON.string) ?? .null,
                            "client_name": line.billing.clientID.flatMap { clientNames[$0] }.map(JSON.string) ?? .null,
                            "exact": .int(line.exact), "billed": .int(line.billed),
                            "rate": line.billing.rate.map(JSON.int) ?? .null,
                            "currency": line.billing.currency.map(JSON.string) ?? .null,
                            "billable": .bool(line.billing.billable), "amount": .int(line.amount),
                        ])
                    }),
            ])
        )
    }
}
