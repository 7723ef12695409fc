// `report --pdf`: the timesheet as pages of SVG — A4 or Letter, each with its header, footer
// and page number — which librsvg draws with cairo into one PDF (`rsvg-convert -f pdf`), so
// the text stays text (selectable and searchable) and the charts are the HTML page's.

import BiomaCore
import BiomaText

extension Timesheet {
    public enum Paper: String, Sendable, CaseIterable {
        case a4, letter

        /// Width and height in points.
        var size: (Double, Double) { self == .a4 ? (595.28, 841.89) : (612, 792) }
        var css: String { self == .a4 ? "210mm\" height=\"297mm" : "8.5in\" height=\"11in" }
    }

    /// One line of a page's flowing text: cells at x positions (`end` anchored when right-aligned).
    struct Line {
        var cells: [(x: Double, text: String, end: Bool, bold: Bool)]
        var swatch: String?
        var height = 14.0
    }

    /// The pages, each a whole SVG document.
    public func pages(paper: Paper, title: String = "Timesheet") -> [String] {
        let (width, height) = paper.size
        let margin = 42.0
        let inner = width - 2 * margin
        // The first page: totals and charts; then the tables and notes flow over the pages.
        var first = ""
        var y = 92.0
        let totals = "Hours \(Self.hours(earnings.exactTotal))    Rounded \(Self.hours(earnings.billedTotal))    Amount \(totalAmounts)"
        first += text(margin, y, totals, size: 12, bold: true)
        y += 14
        if let r = rounding {
            first += text(margin, y, "Rounded to \(r.step / 60 / microsPerSecond)m \(r.mode.rawValue), per \(r.per.rawValue)", size: 9)
        }
        y += 12
        first += nested(barsSVG(width: inner, height: 200), x: margin, y: y)
        y += 212
        let share = shareSVG(width: inner)
        first += nested(share, x: margin, y: y)
        y += 30 + Double(shown.count) * 14 + 12
        if !calendarDays.isEmpty, y + 250 < height - 60 {
            first += nested(calendarSVG(width: inner, height: min(320, height - 60 - y)), x: margin, y: y)
        }
        var bodies = [first]
        var body = ""
        y = 80
        func add(_ line: Line) {
            if y + line.height > height - 56 {
                bodies.append(body)
                (body, y) = ("", 80)
            }
            y += line.height
            if let swatch = line.swatch {
                body += "<rect x=\"\(Self.n(margin + 84))\" y=\"\(Self.n(y - 8))\" width=\"8\" height=\"8\" fill=\"\(swatch)\"/>"
            }
            for cell in line.cells { body += text(cell.x, y, cell.text, size: 9, bold: cell.bold, end: cell.end) }
            body += "\n"
        }
        let right = margin + inner
        let heading = { (words: String) in add(Line(cells: [(margin, words, false, true)], height: 24)) }
        heading("Summary")
        add(Line(cells: [(margin, "Client / project", false, true), (right - 250, "Hours", true, true), (right - 190, "Rounded", true, true),
            (right - 90, "Rate", true, true), (right, "Amount", true, true)]))
        for group in groups {
            add(Line(cells: [(margin, Self.cut(clientName(group.client), 60), false, true)]))
            for line in group.lines {
                add(Line(cells: [(margin + 96, Self.cut(name(line.projectID), 34), false, false),
                    (right - 250, Self.hours(line.exact), true, false), (right - 190, Self.hours(line.billed), true, false),
                    (right - 90, ReportText.rateText(line.billing), true, false), (right, ReportText.amountText(line), true, false)],
                    swatch: color(line.projectID)))
            }
        }
        add(Line(cells: [(margin, "Total", false, true), (right - 250, Self.hours(earnings.exactTotal), true, true),
            (right - 190, Self.hours(earnings.billedTotal), true, true), (right, totalAmounts, true, true)]))
        heading("Days")
        for (day, rows) in dayRows {
            for (index, row) in rows.enumerated() {
                add(Line(cells: [(margin, index == 0 ? "\(day)" : "", false, false), (margin + 96, Self.cut(name(row.projectID), 34), false, false),
                    (right - 190, Self.hours(row.exact), true, false), (right - 100, Self.hours(row.billed), true, false),
                    (right, row.amount, true, false)], swatch: color(row.projectID)))
            }
        }
        if !notes.entries.isEmpty {
            heading("Notes")
            for entry in notes.entries {
                add(Line(cells: [(margin, "\(entry.day)", false, false), (margin + 96, Self.cut(name(entry.projectID), 60), false, true)],
                    swatch: color(entry.projectID)))
                for note in entry.notes {
                    // A note is at most 500 characters: wrapped at 90 a line.
                    var rest = Substring(TextEscaping.singleLine(note))
                    while !rest.isEmpty {
                        add(Line(cells: [(margin + 110, "– " + String(rest.prefix(90)), false, false)], height: 12))
                        rest = rest.dropFirst(90)
                    }
                }
            }
        }
        bodies.append(body)
        let count = bodies.count
        return bodies.enumerated().map { index, content in
            var page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            page += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(paper.css)\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" "
            page += "font-family=\"DejaVu Sans, sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n"
            page += text(margin, 40, "\(title) \(period)", size: 16, bold: true)
            page += text(margin, 56, filter.isEmpty ? "All work" : filter, size: 9)
            page += text(margin + inner, 56, "made \(made)", size: 9, end: true)
            page += "<line x1=\"\(Self.n(margin))\" y1=\"64\" x2=\"\(Self.n(margin + inner))\" y2=\"64\" stroke=\"#999999\" stroke-width=\"0.6\"/>\n"
            page += content
            page += "<line x1=\"\(Self.n(margin))\" y1=\"\(Self.n(height - 40))\" x2=\"\(Self.n(margin + inner))\" y2=\"\(Self.n(height - 40))\" stroke=\"#999999\" stroke-width=\"0.6\"/>\n"
            page += text(margin, height - 28, "biomatimer · \(title) \(period)", size: 8)
            page += text(margin + inner, height - 28, "Page \(index + 1) of \(count)", size: 8, end: true)
            return page + "</svg>\n"
        }
    }

    static func cut(_ text: String, _ limit: Int) -> String {
        let line = TextEscaping.singleLine(text)
        return line.count > limit ? String(line.prefix(limit - 1)) + "…" : line
    }

    func text(_ x: Double, _ y: Double, _ words: String, size: Double, bold: Bool = false, end: Bool = false) -> String {
        "<text x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" font-size=\"\(Self.n(size))\"\(bold ? " font-weight=\"bold\"" : "")"
            + "\(end ? " text-anchor=\"end\"" : "") fill=\"#222222\">\(TextEscaping.xml(words))</text>\n"
    }

    /// A chart placed on a page: its `<svg>` given a position.
    func nested(_ chart: String, x: Double, y: Double) -> String {
        guard chart.hasPrefix("<svg ") else { return "" }
        return "<svg x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" " + chart.dropFirst(5) + "\n"
    }
}
