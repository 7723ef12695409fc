// `report --by client|project|tag|day` (and `report --client/--project/--tag` without --html
// or --pdf): the timesheet's totals grouped one way, as a terminal table or JSON.

import BiomaCore
import BiomaText

extension Timesheet {
    public enum Grouping: String, Sendable, CaseIterable {
        case client, project, tag, day
    }

    /// One group: its label, exact and billed time, and its amounts (`172.75 EUR`, `-`).
    public struct Group: Sendable, Equatable {
        public var key: String
        public var label: String
        public var exact: Micros
        public var billed: Micros
        /// Currency → minor units.
        public var amounts: [String: Int64]
    }

    public func groups(by grouping: Grouping) -> [Group] {
        func charged(_ line: Earnings.Line) -> String? {
            line.billing.billable && line.billing.rate != nil ? line.billing.currency : nil
        }
        switch grouping {
        case .project:
            return groups.flatMap(\.lines).map { line in
                Group(
                    key: line.projectID ?? "", label: name(line.projectID), exact: line.exact, billed: line.billed,
                    amounts: charged(line).map { [$0: line.amount] } ?? [:])
            }
        case .client:
            return groups.map { group in
                var amounts: [String: Int64] = [:]
                for line in group.lines { if let c = charged(line) { amounts[c, default: 0] += line.amount } }
                return Group(
                    key: group.client ?? "", label: clientName(group.client), exact: group.lines.reduce(0) { $0 + $1.exact },
                    billed: group.lines.reduce(0) { $0 + $1.billed }, amounts: amounts)
            }
        case .day:
            var byDay: [Day: Group] = [:]
            for line in earnings.lines {
                for day in line.days {
                    var group = byDay[day.day] ?? Group(key: "\(day.day)", label: "\(day.day)", exact: 0, billed: 0, amounts: [:])
                    group.exact += day.exact
                    group.billed += day.billed
                    if let c = charged(line) { group.amounts[c, default: 0] += day.amount }
                    byDay[day.day] = group
                }
            }
            return byDay.keys.sorted().map { byDay[$0]! }
        case .tag:
            return tagTotals.map { Group(key: $0.tag, label: "+" + $0.tag, exact: $0.exact, billed: $0.billed, amounts: [:]) }
        }
    }

    /// `Hours by client (2026-11-16 – 2026-11-22)`, a line per group, then the total.
    public func groupedText(by grouping: Grouping) -> String {
        var out = "Hours by \(grouping.rawValue), \(period)\(filter.isEmpty ? "" : " (\(filter))")"
        if let r = rounding { out += ", rounded to \(r.step / 60 / microsPerSecond)m \(r.mode.rawValue) per \(r.per.rawValue)" }
        out += "\n  \(Terminal.pad("", 32)) \(Terminal.padLeft("hours", 10)) \(Terminal.padLeft("rounded", 10)) \(Terminal.padLeft("amount", 16))\n"
        let rows = groups(by: grouping)
        for group in rows {
            let label = Terminal.pad(String(TextEscaping.singleLine(group.label).prefix(32)), 32)
            out += "  \(label) \(Terminal.padLeft(Self.hours(group.exact), 10)) \(Terminal.padLeft(Self.hours(group.billed), 10)) "
            out += "\(Terminal.padLeft(Self.amounts(group.amounts), 16))\n"
        }
        if rows.isEmpty { out += "  (no time)\n" }
        out += "  \(Terminal.pad("total", 32)) \(Terminal.padLeft(Self.hours(earnings.exactTotal), 10)) "
        out += "\(Terminal.padLeft(Self.hours(earnings.billedTotal), 10)) \(Terminal.padLeft(totalAmounts, 16))\n"
        if grouping == .tag { out += "  (an interval with several tags counts under each)\n" }
        return out
    }

    static func amounts(_ amounts: [String: Int64]) -> String {
        amounts.isEmpty ? "-" : amounts.keys.sorted().map { "\(Currency.format(amounts[$0]!, $0)) \($0)" }.joined(separator: ", ")
    }

    /// `{"from", "to", "by", "filter", "groups": [{"key", "label", "exact", "billed", "amounts"}], "exact_total", "billed_total", "totals"}`.
    public func groupedJSON(by grouping: Grouping) -> String {
        let rows = groups(by: grouping).map { group -> JSON in
            .object([
                "key": .string(group.key), "label": .string(group.label), "exact": .int(group.exact), "billed": .int(group.billed),
                "amounts": .object(group.amounts.mapValues { JSON.int($0) }),
            ])
        }
        return JSON.object([
            "from": .string("\(from)"), "to": .string("\(to)"), "by": .string(grouping.rawValue), "filter": .string(filter),
            "groups": .array(rows), "exact_total": .int(earnings.exactTotal), "billed_total": .int(earnings.billedTotal),
            "totals": .object(earnings.totals.mapValues { JSON.int($0) }),
        ]).text + "\n"
    }
}
