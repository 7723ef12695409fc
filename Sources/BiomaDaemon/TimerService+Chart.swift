import BiomaCore
import BiomaStore
import BiomaWidgets
import DBusCore

/// The picture of the day (`ReportText`'s `Chart` and `Svg` options): the period's intervals
/// from the store, DayChart's segments, drawn by the chart renderers.
extension TimerService {
    /// `report --chart`: every day of the period as a strip, with the legend.
    func chartText(period: String, day: String, color: Bool) throws -> String {
        ChartText.render(try picture(period: period, day: day), style: Terminal(color: color))
    }

    /// `report --svg`: the day's ring, as an SVG document. One day only.
    func svgText(period: String, day: String) throws -> String {
        guard period == ReportPeriod.day.rawValue else {
            throw TimerAPI.invalidArgument("Svg draws one day: use the period day, not \(quoted(period)).")
        }
        return ChartSVG.render(try picture(period: period, day: day))
    }

    private func picture(period: String, day: String) throws -> DayPicture {
        guard let period = ReportPeriod(rawValue: period) else {
            throw TimerAPI.invalidArgument("Unknown period \(quoted(period)): use day, week, month or year.")
        }
        let now = clock.now()
        let rules = tracker.rules
        let range = rules.period(period, containing: try Self.optionalDay(day, "day") ?? rules.day(containing: now))
        let chart: DayChart
        do {
            let intervals = try tracker.intervals(from: range.from, to: range.to, at: now)
            chart = DayChart(from: range.from, to: range.to, intervals: intervals, rules: rules, now: now)
        } catch {
            throw TimerAPI.dbusError(error)
        }
        return Self.picture(chart, projects: tracker.projects)
    }

    /// The chart as its renderers take it: projects in legend order (largest total first,
    /// ties in list order), with their names and colours.
    static func picture(_ chart: DayChart, projects: [Project]) -> DayPicture {
        let byID = Dictionary(projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ordered = chart.totals.byProject.sorted {
            if $0.value != $1.value { return $0.value > $1.value }
            return (byID[$0.key]?.position ?? .max, $0.key) < (byID[$1.key]?.position ?? .max, $1.key)
        }
        let index = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($0.element.key, $0.offset) })
        func kind(_ kind: DayChart.Kind) -> DayPicture.Kind {
            switch kind {
            case .project(let id): return index[id].map(DayPicture.Kind.project) ?? .noProject
            case .noProject: return .noProject
            case .unaccounted: return .unaccounted
            }
        }
        return DayPicture(
            from: chart.from.description, to: chart.to.description,
            projects: ordered.map { id, total in
                DayPicture.Entry(
                    name: byID[id]?.name ?? id, color: byID[id]?.color ?? Project.defaultColor, total: total)
            },
            noProject: chart.totals.noProject,
            days: chart.days.map { day in
                DayPicture.Day(
                    day: day.day.description, weekday: day.day.weekday, length: day.length, work: day.totals.work,
                    arcs: day.arcs.map { DayPicture.Arc(from: $0.from, to: $0.to, kind: kind($0.kind)) }, now: day.now)
            })
    }
}
