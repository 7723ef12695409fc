// `biomatimer report --svg FILE`: the day as a 24-hour ring (midnight at the top, clockwise,
// like a clock face over a whole day), each stretch in its colour at the hours it happened,
// the current-time hand in red for today, and the legend. Only basic SVG (paths with arcs,
// lines, circles, rects, text in a generic font family), so that browsers and rsvg-convert
// draw it alike.

import BiomaCore
import BiomaText

#if canImport(Glibc)
import Glibc
#endif

/// The picture of one day as an SVG document.
public enum ChartSVG {
    public static let width = 840
    static let center = (x: 230.0, y: 240.0)
    /// The ring's outer and inner radius.
    public static let outerRadius = 170.0
    public static let innerRadius = 105.0
    static let legendX = 470.0
    static let legendTop = 70.0
    static let legendRow = 26.0

    public static func height(rows: Int) -> Int { max(480, Int(legendTop + Double(rows) * legendRow + 30)) }

    /// Where a clock second lies on the face at `radius`: midnight at the top, clockwise.
    public static func point(second: Double, radius: Double) -> (x: Double, y: Double) {
        let angle = second / 86_400 * 2 * Double.pi
        return (center.x + radius * sine(angle), center.y - radius * cosine(angle))
    }

    /// The first day of `chart` (the ring draws one day), with the legend.
    public static func render(_ chart: DayChart, legend: ChartLegend) -> String {
        let rows = legend.rows
        let height = height(rows: rows.count)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(width)\" height=\"\(height)\" "
        out += "viewBox=\"0 0 \(width) \(height)\" font-family=\"sans-serif\">\n"
        let day = chart.days.first
        out += "<title>biomatimer \(TextEscaping.xml(day?.label ?? chart.from.description))</title>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#FFFFFF\"/>\n"
        // The face under the day: what no arc covers is not in the day (a DST gap).
        out += "<circle cx=\"\(number(center.x))\" cy=\"\(number(center.y))\" r=\"\(number((outerRadius + innerRadius) / 2))\" "
        out += "fill=\"none\" stroke=\"#F7F7F7\" stroke-width=\"\(number(outerRadius - innerRadius))\"/>\n"
        for arc in merged(day?.arcs ?? [], legend: legend) {
            out += sector(from: arc.from, to: arc.to, color: legend.color(of: arc.kind))
        }
        // Hour ticks, and the hour every three hours.
        for hour in 0..<24 {
            let long = hour % 3 == 0
            let a = point(second: Double(hour * 3600), radius: outerRadius + 2)
            let b = point(second: Double(hour * 3600), radius: outerRadius + (long ? 10 : 6))
            out += "<line x1=\"\(number(a.x))\" y1=\"\(number(a.y))\" x2=\"\(number(b.x))\" y2=\"\(number(b.y))\" "
            out += "stroke=\"#555555\" stroke-width=\"\(long ? 2 : 1)\"/>\n"
            if long {
                let p = point(second: Double(hour * 3600), radius: outerRadius + 24)
                out += "<text x=\"\(number(p.x))\" y=\"\(number(p.y + 5))\" font-size=\"15\" text-anchor=\"middle\" "
                out += "fill=\"#333333\">\(hour)</text>\n"
            }
        }
        if let day {
            out += "<text x=\"\(number(center.x))\" y=\"\(number(center.y - 4))\" font-size=\"17\" text-anchor=\"middle\" "
            out += "fill=\"#222222\">\(TextEscaping.xml(day.label))</text>\n"
            out += "<text x=\"\(number(center.x))\" y=\"\(number(center.y + 20))\" font-size=\"14\" text-anchor=\"middle\" "
            out += "fill=\"#555555\">\(DurationFormat.hms(day.totals.work)) work</text>\n"
            if let now = day.now {
                let a = point(second: Double(now), radius: innerRadius - 14)
                let b = point(second: Double(now), radius: outerRadius + 8)
                out += "<line x1=\"\(number(a.x))\" y1=\"\(number(a.y))\" x2=\"\(number(b.x))\" y2=\"\(number(b.y))\" "
                out += "stroke=\"\(ChartLegend.handColor)\" stroke-width=\"3\" stroke-linecap=\"round\"/>\n"
                out += "<circle cx=\"\(number(b.x))\" cy=\"\(number(b.y))\" r=\"4\" fill=\"\(ChartLegend.handColor)\"/>\n"
            }
        }
        // The legend: colour, name, time, share of the day.
        for (index, row) in rows.enumerated() {
            let y = legendTop + Double(index) * legendRow
            out += "<rect x=\"\(number(legendX))\" y=\"\(number(y - 13))\" width=\"16\" height=\"16\" "
            out += "fill=\"\(legend.color(of: row.kind))\" stroke=\"#999999\" stroke-width=\"0.5\"/>\n"
            let name = String(TextEscaping.singleLine(row.name).prefix(28))
            out += "<text x=\"\(number(legendX + 26))\" y=\"\(number(y))\" font-size=\"15\" fill=\"#222222\">"
            out += "\(TextEscaping.xml(name))</text>\n"
            out += "<text x=\"\(number(legendX + 290))\" y=\"\(number(y))\" font-size=\"15\" text-anchor=\"end\" "
            out += "fill=\"#222222\">\(DurationFormat.hms(row.total))</text>\n"
            out += "<text x=\"\(number(legendX + 345))\" y=\"\(number(y))\" font-size=\"15\" text-anchor=\"end\" "
            out += "fill=\"#555555\">\(oneDecimal(row.percent))%</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// Adjacent arcs of one kind joined, so that no seam shows between them.
    static func merged(_ arcs: [DayChart.Arc], legend: ChartLegend) -> [DayChart.Arc] {
        var result: [DayChart.Arc] = []
        for var arc in arcs where arc.to > arc.from {
            arc.kind = legend.shown(arc.kind)
            if let last = result.last, last.kind == arc.kind, last.to == arc.from {
                result[result.count - 1].to = arc.to
            } else {
                result.append(arc)
            }
        }
        return result
    }

    /// A ring sector between two clock seconds; halved when wider than half the face (one
    /// SVG arc cannot draw a whole circle).
    static func sector(from: Int, to: Int, color: String) -> String {
        if to - from > 43_200 {
            let middle = from + (to - from) / 2
            return sector(from: from, to: middle, color: color) + sector(from: middle, to: to, color: color)
        }
        let a = point(second: Double(from), radius: outerRadius)
        let b = point(second: Double(to), radius: outerRadius)
        let c = point(second: Double(to), radius: innerRadius)
        let d = point(second: Double(from), radius: innerRadius)
        let large = to - from > 43_200 ? 1 : 0
        var path = "M \(number(a.x)) \(number(a.y)) "
        path += "A \(number(outerRadius)) \(number(outerRadius)) 0 \(large) 1 \(number(b.x)) \(number(b.y)) "
        path += "L \(number(c.x)) \(number(c.y)) "
        path += "A \(number(innerRadius)) \(number(innerRadius)) 0 \(large) 0 \(number(d.x)) \(number(d.y)) Z"
        return "<path d=\"\(path)\" fill=\"\(color)\" stroke=\"\(color)\" stroke-width=\"0.5\"/>\n"
    }

    /// Two decimals at most, no exponent: `12`, `12.5`, `-3.25`.
    static func number(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        let whole = magnitude / 100
        let fraction = magnitude % 100
        if fraction == 0 { return sign + "\(whole)" }
        let digits = fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)")
        return sign + "\(whole).\(digits)"
    }
}

// Without Foundation: sine and cosine from the C library.
@inline(__always) func sine(_ x: Double) -> Double { sin(x) }
@inline(__always) func cosine(_ x: Double) -> Double { cos(x) }

extension TextEscaping {
    /// Text for XML content or attribute values: one line (control characters, which XML 1.0
    /// forbids, become spaces), the non-characters U+FFFE and U+FFFF replaced, then `& < > " '`
    /// escaped.
    public static func xml(_ text: String) -> String {
        let line = String(
            String.UnicodeScalarView(
                singleLine(text).unicodeScalars.map { $0.value == 0xFFFE || $0.value == 0xFFFF ? "\u{FFFD}" : $0 }))
        return pango(line)
    }
}
