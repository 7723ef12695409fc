// `biomatimer report --chart`: each day as a strip of 48 half-hours, from midnight to
// midnight on the clock, under an hour ruler, then the legend.

import BiomaCore
import BiomaText

/// The terminal picture of the day (or of every day of a week, month or year).
public enum ChartText {
    /// Cells per day; each is half an hour of clock time.
    public static let cells = 48
    static let secondsPerCell = 86_400 / cells

    /// Glyphs for projects without colour, in legend order, so that the strip still reads;
    /// with colour every project is a full block in its own colour.
    static let plainGlyphs: [String] =
        ["█", "▓", "#", "=", "+", "%", "@", "*", "&", "$", "o", "x"]
        + (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }
    /// Work without a project, unaccounted time, and clock time not in the day (the hour
    /// skipped when clocks go forward).
    static let noProjectGlyph = "░"
    static let unaccountedGlyph = "·"
    static let outsideGlyph = " "

    public static func glyph(_ kind: DayChart.Kind, legend: ChartLegend, color: Bool) -> String {
        switch legend.shown(kind) {
        case .project: return color ? "█" : plainGlyphs[(legend.position(of: kind) ?? 0) % plainGlyphs.count]
        case .noProject: return noProjectGlyph
        case .unaccounted: return unaccountedGlyph
        }
    }

    /// What each half-hour cell of a day shows: the kind that filled most of it (the first
    /// one on a tie), nil where the clock time is not in the day.
    public static func cells(of day: DayChart.DayPart, legend: ChartLegend) -> [DayChart.Kind?] {
        var seconds = [[(kind: DayChart.Kind, seconds: Int)]](repeating: [], count: cells)
        for arc in day.arcs {
            var cell = max(0, arc.from / secondsPerCell)
            while cell < cells, cell * secondsPerCell < arc.to {
                let overlap = min(arc.to, (cell + 1) * secondsPerCell) - max(arc.from, cell * secondsPerCell)
                if overlap > 0 {
                    let kind = legend.shown(arc.kind)
                    if let index = seconds[cell].firstIndex(where: { $0.kind == kind }) {
                        seconds[cell][index].seconds += overlap
                    } else {
                        seconds[cell].append((kind, overlap))
                    }
                }
                cell += 1
            }
        }
        return seconds.map { counts in
            var best: (kind: DayChart.Kind, seconds: Int)?
            for entry in counts where entry.seconds > (best?.seconds ?? 0) { best = entry }
            return best?.kind
        }
    }

    public static func render(_ chart: DayChart, legend: ChartLegend, style: Terminal) -> String {
        let labelWidth = 16
        var out = chart.from == chart.to ? "\(chart.from)\n" : "\(chart.from) – \(chart.to)\n"
        // The ruler: an hour mark every three hours, over the cell where that hour begins.
        var ruler = String(repeating: " ", count: labelWidth)
        var column = 0
        for hour in stride(from: 0, to: 24, by: 3) {
            let target = hour * cells / 24
            if column < target { ruler += String(repeating: " ", count: target - column) }
            ruler += String(hour)
            column = target + String(hour).count
        }
        out += ruler + "\n"
        for day in chart.days {
            var line = Terminal.pad(day.label, labelWidth)
            var run: (color: String?, text: String) = (nil, "")
            func flush() {
                if let color = run.color { line += style.paint(run.text, color) } else { line += run.text }
                run = (nil, "")
            }
            for cell in cells(of: day, legend: legend) {
                let shown = cell.map { glyph($0, legend: legend, color: style.color) } ?? outsideGlyph
                let color = cell.map { legend.color(of: $0) }
                if color != run.color { flush() }
                run.color = color
                run.text += shown
            }
            flush()
            out += line + "  " + Terminal.padLeft(DurationFormat.hms(day.totals.work), 9) + "\n"
            if let now = day.now {
                let cell = min(cells - 1, now / secondsPerCell)
                let mark = "▲ " + clock(now)
                out += String(repeating: " ", count: labelWidth + cell) + style.paint(mark, ChartLegend.handColor) + "\n"
            }
        }
        out += "\n"
        for row in legend.rows {
            let name = Terminal.pad(String(TextEscaping.singleLine(row.name).prefix(24)), 24)
            let mark = style.paint(glyph(row.kind, legend: legend, color: style.color), legend.color(of: row.kind))
            out += "  \(mark) \(name) \(Terminal.padLeft(DurationFormat.hms(row.total), 10)) "
            out += Terminal.padLeft(oneDecimal(row.percent) + "%", 6) + "\n"
        }
        return out
    }

    /// `HH:MM` of a clock second.
    static func clock(_ second: Int) -> String {
        let hours = second / 3600
        let minutes = second / 60 % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }
}
