import BiomaCore

/// A picture of the day drawn by hand for the chart renderers' tests: one day whose arcs are
/// given in hours of clock time, the totals those arcs make, and the projects (ids `p0`,
/// `p1`, … in list order).
public enum ChartFixture {
    public static let hour: Int64 = 3_600_000_000

    public enum Kind: Sendable {
        /// Index into the projects.
        case project(Int)
        case noProject
        case unaccounted
    }

    /// `length`: the day's hours (23 or 25 on a DST day); `now`: the hand's clock second.
    public static func chart(
        day text: String = "2026-01-05", hours length: Int64 = 24, arcs: [(Double, Double, Kind)],
        projects: [(name: String, color: String)], now: Int? = nil
    ) -> (chart: DayChart, projects: [Project]) {
        let day = Day(text)!
        let start = Int64(day.ordinal) * 24 * hour
        var totals = DayTotals()
        let placed = arcs.map { from, to, kind -> DayChart.Arc in
            let arc = DayChart.Arc(
                from: Int((from * 3600).rounded()), to: Int((to * 3600).rounded()), kind: chartKind(kind))
            let (low, high) = (start + Int64(arc.from) * 1_000_000, start + Int64(arc.to) * 1_000_000)
            switch kind {
            case .project(let index): totals.add(low, high, "p\(index)", within: low, high)
            case .noProject: totals.add(low, high, nil, within: low, high)
            case .unaccounted: break
            }
            return arc
        }
        let part = DayChart.DayPart(
            day: day, start: start, end: start + length * hour, segments: [], arcs: placed, totals: totals, now: now)
        let list = projects.enumerated().map {
            Project(id: "p\($0.offset)", name: $0.element.name, color: $0.element.color, position: $0.offset)
        }
        return (DayChart(from: day, to: day, days: [part]), list)
    }

    static func chartKind(_ kind: Kind) -> DayChart.Kind {
        switch kind {
        case .project(let index): return .project("p\(index)")
        case .noProject: return .noProject
        case .unaccounted: return .unaccounted
        }
    }
}
