// The timesheet's charts as SVG, one drawing for the HTML page and the PDF's pages: hours per
// day (per month for longer periods) stacked by project, each project's share, and the week
// as a calendar of blocks by time of day. Names are escaped (`TextEscaping.xml`) and cut.

import BiomaCore
import BiomaText

extension Timesheet {
    /// A name for a chart's label: one line, at most `limit` characters.
    static func label(_ text: String, _ limit: Int = 32) -> String {
        let line = TextEscaping.singleLine(text)
        return TextEscaping.xml(line.count > limit ? String(line.prefix(limit - 1)) + "…" : line)
    }

    static func n(_ value: Double) -> String { ChartSVG.number(value) }

    /// The buckets of the bars chart: days, or months past two months of days.
    var buckets: [(label: String, first: Day, last: Day)] {
        var result: [(String, Day, Day)] = []
        if to.ordinal - from.ordinal < 62 {
            var day = from
            while day <= to {
                result.append((String(day.description.suffix(5)), day, day))
                day = day.adding(days: 1)
            }
        } else {
            var day = from
            while day <= to {
                let first = day
                while day <= to, day.month == first.month { day = day.adding(days: 1) }
                result.append((String(first.description.prefix(7)), first, day.adding(days: -1)))
            }
        }
        return result
    }

    /// Hours per day (or month) stacked by project, in `width` × `height`.
    public func barsSVG(width: Double, height: Double) -> String {
        let buckets = buckets
        let order = shown
        var totals: [[Micros]] = buckets.map { _ in order.map { _ in 0 } }
        for line in earnings.lines {
            guard let p = order.firstIndex(of: line.projectID) else { continue }
            for day in line.days {
                guard let b = buckets.firstIndex(where: { day.day >= $0.first && day.day <= $0.last }) else { continue }
                totals[b][p] += day.exact
            }
        }
        let most = max(totals.map { $0.reduce(0, +) }.max() ?? 0, 3_600_000_000)
        let hour = 3_600_000_000.0
        let step = most > 200 * 3_600_000_000 ? 50.0 : most > 40 * 3_600_000_000 ? 10.0 : most > 12 * 3_600_000_000 ? 2.0 : 1.0
        let top = (Double(most) / hour / step).rounded(.up) * step
        let (left, bottom, upper) = (36.0, 22.0, 8.0)
        let plotHeight = height - bottom - upper
        let slot = (width - left - 4) / Double(max(buckets.count, 1))
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart bars\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" "
        svg += "viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"9\">\n"
        svg += "<title>Hours per \(to.ordinal - from.ordinal < 62 ? "day" : "month") by project</title>\n"
        var mark = 0.0
        while mark <= top {
            let y = upper + plotHeight - mark / top * plotHeight
            svg += "<line x1=\"\(Self.n(left))\" y1=\"\(Self.n(y))\" x2=\"\(Self.n(width - 4))\" y2=\"\(Self.n(y))\" stroke=\"#DDDDDD\" stroke-width=\"0.5\"/>"
            svg += "<text x=\"\(Self.n(left - 4))\" y=\"\(Self.n(y + 3))\" text-anchor=\"end\" fill=\"#555555\">\(Int(mark))h</text>\n"
            mark += step
        }
        let labelEvery = max(1, Int((28 / slot).rounded(.up)))
        for (b, bucket) in buckets.enumerated() {
            let x = left + Double(b) * slot + slot * 0.15
            var y = upper + plotHeight
            for (p, id) in order.enumerated() where totals[b][p] > 0 {
                let h = Double(totals[b][p]) / hour / top * plotHeight
                y -= h
                svg += "<rect x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(slot * 0.7))\" height=\"\(Self.n(h))\" fill=\"\(color(id))\">"
                svg += "<title>\(Self.label(name(id))) \(bucket.label): \(Self.hours(totals[b][p]))</title></rect>\n"
            }
            if b % labelEvery == 0 {
                svg += "<text x=\"\(Self.n(x + slot * 0.35))\" y=\"\(Self.n(height - 8))\" text-anchor=\"middle\" fill=\"#555555\">\(bucket.label)</text>\n"
            }
        }
        return svg + "</svg>"
    }

    /// Each project's share of the time: one stacked bar, then a legend line per project.
    public func shareSVG(width: Double) -> String {
        let order = shown
        let total = max(earnings.exactTotal, 1)
        let height = 30 + Double(order.count) * 14
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart share\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" "
        svg += "viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"9\">\n"
        svg += "<title>Each project's share</title>\n"
        var x = 0.0
        for id in order {
            let exact = earnings.lines.first { $0.projectID == id }?.exact ?? 0
            let w = Double(exact) / Double(total) * width
            svg += "<rect x=\"\(Self.n(x))\" y=\"0\" width=\"\(Self.n(w))\" height=\"16\" fill=\"\(color(id))\"/>\n"
            x += w
        }
        for (index, id) in order.enumerated() {
            let exact = earnings.lines.first { $0.projectID == id }?.exact ?? 0
            let y = 30 + Double(index) * 14
            let percent = Double(exact) * 100 / Double(total)
            svg += "<rect x=\"0\" y=\"\(Self.n(y - 8))\" width=\"9\" height=\"9\" fill=\"\(color(id))\"/>"
            svg += "<text x=\"14\" y=\"\(Self.n(y))\" fill=\"#222222\">\(Self.label(name(id), 40))</text>"
            svg += "<text x=\"\(Self.n(width))\" y=\"\(Self.n(y))\" text-anchor=\"end\" fill=\"#222222\">"
            svg += "\(Self.hours(exact))  \(Self.n((percent * 10).rounded() / 10)) %</text>\n"
        }
        return svg + "</svg>"
    }

    /// The week as a calendar: a column per day, time of day downwards, each stretch of work a
    /// block in its project's colour. Empty when the period is longer than a week.
    public func calendarSVG(width: Double, height: Double) -> String {
        guard !calendarDays.isEmpty else { return "" }
        let (left, head) = (30.0, 16.0)
        let column = (width - left) / Double(calendarDays.count)
        // The hours shown: those with work, widened to whole hours (8:00–18:00 at least).
        let low = min(blocks.map(\.start).min() ?? 8 * 3600, 8 * 3600) / 3600
        let high = min(24, max((blocks.map(\.end).max() ?? 18 * 3600) + 3599, 18 * 3600) / 3600)
        let span = Double(max(high - low, 1) * 3600)
        let plot = height - head - 4
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart calendar\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" "
        svg += "viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"9\">\n"
        svg += "<title>The week by time of day</title>\n"
        for hour in low...high {
            let y = head + Double((hour - low) * 3600) / span * plot
            svg += "<line x1=\"\(Self.n(left))\" y1=\"\(Self.n(y))\" x2=\"\(Self.n(width))\" y2=\"\(Self.n(y))\" stroke=\"#E4E4E4\" stroke-width=\"0.5\"/>"
            svg += "<text x=\"\(Self.n(left - 3))\" y=\"\(Self.n(y + 3))\" text-anchor=\"end\" fill=\"#555555\">\(hour):00</text>\n"
        }
        for (index, day) in calendarDays.enumerated() {
            let x = left + Double(index) * column
            svg += "<text x=\"\(Self.n(x + column / 2))\" y=\"10\" text-anchor=\"middle\" fill=\"#222222\">\(String(day.description.suffix(5)))</text>\n"
        }
        for block in blocks {
            let x = left + Double(block.column) * column + 2
            let y = head + Double(block.start - low * 3600) / span * plot
            let h = max(1, Double(block.end - block.start) / span * plot)
            svg += "<rect x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(column - 4))\" height=\"\(Self.n(h))\" rx=\"2\" "
            svg += "fill=\"\(color(block.projectID))\"><title>\(Self.label(name(block.projectID)))</title></rect>\n"
        }
        return svg + "</svg>"
    }
}
