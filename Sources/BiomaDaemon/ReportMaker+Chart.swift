import BiomaCore
import BiomaReports
import BiomaStore
import BiomaText
import DBusCore

/// The picture of the day (`ReportText`'s `Chart` and `Svg` options): the period's intervals
/// from the store, DayChart's segments, drawn by BiomaReports' chart renderers.
extension ReportMaker {
    /// `report --chart`: every day of the period as a strip, with the legend.
    func chartText(period: String, day: String, color: Bool) throws -> String {
        let (chart, legend) = try picture(period: period, day: day)
        return ChartText.render(chart, legend: legend, style: Terminal(color: color))
    }

    /// `report --svg`: the day's ring, as an SVG document. One day only.
    func svgText(period: String, day: String) throws -> String {
        guard period == ReportPeriod.day.rawValue else {
            throw DaemonAPI.invalidArgument("Svg draws one day: use the period day, not \(quoted(period)).")
        }
        let (chart, legend) = try picture(period: period, day: day)
        return ChartSVG.render(chart, legend: legend)
    }

    private func picture(period: String, day: String) throws -> (DayChart, ChartLegend) {
        guard let period = ReportPeriod(rawValue: period) else {
            throw DaemonAPI.invalidArgument("Unknown period \(quoted(period)): use day, week, month or year.")
        }
        let rules = tracker.rules
        let range = rules.period(period, containing: try WorkService.optionalDay(day, "day") ?? rules.day(containing: now))
        let chart: DayChart
        do {
            let intervals = try tracker.history.intervals(from: range.from, to: range.to, at: now)
            chart = DayChart(from: range.from, to: range.to, intervals: intervals, rules: rules, now: now)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
        return (chart, ChartLegend(chart, projects: tracker.projects))
    }
}
