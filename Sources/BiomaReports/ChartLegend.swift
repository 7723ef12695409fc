// What the picture of the day shows beside BiomaCore's DayChart: the projects in legend
// order (the order reports use, `ProjectTotal.ranked`), their names and colours, and the
// colours of work without a project, unaccounted time and the current-time hand.

import BiomaCore

/// The legend of `report --chart` and `report --svg`, for one `DayChart`.
public struct ChartLegend: Sendable, Equatable {
    /// Projects with time in the range, in legend order.
    public var projects: [ProjectTotal]
    /// Work without a project over the range.
    public var noProject: Micros
    /// The range's length (the sum of the days' lengths) and what no work covers of it.
    public var length: Micros
    public var unaccounted: Micros
    private var index: [String: Int]

    public init(_ chart: DayChart, projects: [Project]) {
        self.projects = ProjectTotal.ranked(chart.totals, projects: projects)
        self.noProject = chart.totals.noProject
        self.length = chart.length
        self.unaccounted = chart.unaccounted
        self.index = Dictionary(uniqueKeysWithValues: self.projects.enumerated().map { ($0.element.id, $0.offset) })
    }

    /// Work without a project: a neutral grey, darker than unaccounted time.
    public static let noProjectColor = "#8E8E93"
    /// Unaccounted time, as in the original design.
    public static let unaccountedColor = "#E0E0E0"
    /// The current-time hand.
    public static let handColor = "#FF0000"

    /// The project's place in the legend; nil for a project the legend does not hold, which
    /// is drawn as work without a project.
    public func position(of kind: DayChart.Kind) -> Int? {
        if case .project(let id) = kind { return index[id] }
        return nil
    }

    public func color(of kind: DayChart.Kind) -> String {
        switch kind {
        case .project: return position(of: kind).map { projects[$0].color } ?? Self.noProjectColor
        case .noProject: return Self.noProjectColor
        case .unaccounted: return Self.unaccountedColor
        }
    }

    /// The kind as drawn: a project the legend does not hold is work without a project.
    public func shown(_ kind: DayChart.Kind) -> DayChart.Kind {
        if case .project = kind, position(of: kind) == nil { return .noProject }
        return kind
    }

    /// The legend's rows: every project, work without a project (when there was some), and
    /// unaccounted time, each with its share of the range's length (they add up to 100 %).
    public var rows: [(kind: DayChart.Kind, name: String, total: Micros, percent: Double)] {
        var rows = projects.map { (kind: DayChart.Kind.project($0.id), name: $0.name, total: $0.total) }
        if noProject > 0 { rows.append((.noProject, "no project", noProject)) }
        rows.append((.unaccounted, "unaccounted", unaccounted))
        let length = self.length
        return rows.map { ($0.kind, $0.name, $0.total, length > 0 ? Double($0.total) * 100 / Double(length) : 0) }
    }
}

extension DayChart.DayPart {
    /// `Mon 2026-01-05`.
    public var label: String {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return "\(names[(day.weekday - 1 + 7) % 7]) \(day)"
    }
}
