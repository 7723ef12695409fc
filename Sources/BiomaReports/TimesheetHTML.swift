// `report --html`: the timesheet as one self-contained page — inline CSS and SVG, no script,
// nothing fetched — that opens in any browser and prints cleanly (print styles: A4 or Letter
// margins, no page break inside a table row).

import BiomaCore
import BiomaText

extension Timesheet {
    /// Text for HTML content and attributes (`& < > " '` escaped), isolated from the text
    /// around it so right-to-left names do not reorder the row.
    static func h(_ text: String) -> String { "<bdi>\(TextEscaping.xml(text))</bdi>" }

    static let css = """
        :root { color-scheme: light; }
        body { font-family: "DejaVu Sans", Arial, sans-serif; color: #222; margin: 24px auto; max-width: 960px; padding: 0 16px; }
        h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; }
        .meta { color: #555; margin: 0 0 12px; }
        .totals { display: flex; gap: 24px; flex-wrap: wrap; margin: 12px 0; }
        .totals div { background: #f4f4f4; border-radius: 6px; padding: 8px 14px; }
        .totals b { display: block; font-size: 18px; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e6e6e6; vertical-align: top; }
        td, th { overflow-wrap: anywhere; }
        td.n, th.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
        tr.client td { font-weight: bold; background: #fafafa; }
        tr.total td { font-weight: bold; border-top: 2px solid #999; }
        .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
        .charts svg { display: block; max-width: 100%; height: auto; margin: 8px 0 16px; }
        ul.notes { margin: 4px 0 8px 20px; padding: 0; }
        @page { size: A4; margin: 16mm 14mm; }
        @media print {
          body { margin: 0; max-width: none; padding: 0; }
          h2 { break-after: avoid; } tr, .charts svg { break-inside: avoid; }
          .totals div { border: 1px solid #ccc; background: none; }
        }
        """

    /// The whole page.
    public func html(title: String = "Timesheet") -> String {
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>\(TextEscaping.xml(title)) \(TextEscaping.xml(period))</title>\n<style>\n\(Self.css)\n</style>\n</head>\n<body>\n"
        out += "<header>\n<h1>\(TextEscaping.xml(title)) \(TextEscaping.xml(period))</h1>\n"
        out += "<p class=\"meta\">\(filter.isEmpty ? "All work" : Self.h(filter)) · made \(TextEscaping.xml(made))"
        if let r = rounding { out += " · rounded to \(r.step / 60 / microsPerSecond)m \(r.mode.rawValue), per \(r.per.rawValue)" }
        out += "</p>\n<div class=\"totals\">"
        out += "<div>Hours<b>\(Self.hours(earnings.exactTotal))</b></div>"
        out += "<div>Rounded<b>\(Self.hours(earnings.billedTotal))</b></div>"
        out += "<div>Amount<b>\(TextEscaping.xml(totalAmounts))</b></div></div>\n</header>\n"
        out += summaryHTML()
        out += "<section class=\"charts\">\n<h2>Charts</h2>\n"
        out += barsSVG(width: 900, height: 220) + "\n" + shareSVG(width: 900) + "\n"
        if !calendarDays.isEmpty { out += calendarSVG(width: 900, height: 360) + "\n" }
        out += "</section>\n"
        out += daysHTML() + notesHTML()
        return out + "</body>\n</html>\n"
    }

    func swatch(_ id: String?) -> String { "<span class=\"swatch\" style=\"background:\(color(id))\"></span>" }

    /// A project as the tables and notes name it: its colour, then its name.
    func project(_ id: String?) -> String { swatch(id) + Self.h(name(id)) }

    /// Cells of a row (`td`, or `th` in a head), each content as it is.
    static func cells(_ contents: String..., tag: String = "td") -> String {
        contents.map { "<\(tag)>\($0)</\(tag)>" }.joined()
    }

    /// Cells of numbers, right-aligned (`class="n"`), each content as it is.
    static func numberCells(_ contents: String..., tag: String = "td") -> String {
        contents.map { "<\(tag) class=\"n\">\($0)</\(tag)>" }.joined()
    }

    func summaryHTML() -> String {
        var out = "<section>\n<h2>Summary</h2>\n<table class=\"summary\">\n<thead><tr>"
        out += Self.cells("Client / project", tag: "th") + Self.numberCells("Hours", "Rounded", "Rate", "Amount", tag: "th")
        out += "</tr></thead>\n<tbody>\n"
        for group in groups {
            out += "<tr class=\"client\"><td colspan=\"5\">\(Self.h(clientName(group.client)))</td></tr>\n"
            for line in group.lines {
                let (rate, amount) = (ReportText.rateText(line.billing), ReportText.amountText(line))
                out += "<tr>" + Self.cells(project(line.projectID))
                out += Self.numberCells(Self.hours(line.exact), Self.hours(line.billed), TextEscaping.xml(rate), TextEscaping.xml(amount))
                out += "</tr>\n"
            }
        }
        out += "<tr class=\"total\">" + Self.cells("Total") + Self.numberCells(Self.hours(earnings.exactTotal), Self.hours(earnings.billedTotal))
        out += Self.cells("") + Self.numberCells(TextEscaping.xml(totalAmounts)) + "</tr>\n"
        return out + "</tbody>\n</table>\n</section>\n"
    }

    func daysHTML() -> String {
        var out = "<section>\n<h2>Days</h2>\n<table class=\"days\">\n<thead><tr>"
        out += Self.cells("Day", "Project", tag: "th") + Self.numberCells("Hours", "Rounded", "Amount", tag: "th")
        out += "</tr></thead>\n<tbody>\n"
        for (day, rows) in dayRows {
            for (index, row) in rows.enumerated() {
                out += "<tr>" + Self.cells(index == 0 ? "\(day)" : "", project(row.projectID))
                out += Self.numberCells(Self.hours(row.exact), Self.hours(row.billed), TextEscaping.xml(row.amount)) + "</tr>\n"
            }
        }
        return out + "</tbody>\n</table>\n</section>\n"
    }

    func notesHTML() -> String {
        guard !notes.entries.isEmpty else { return "" }
        var out = "<section>\n<h2>Notes</h2>\n"
        var day: Day?
        for entry in notes.entries {
            if entry.day != day {
                out += "<h3>\(entry.day)</h3>\n"
                day = entry.day
            }
            out += "<p>\(project(entry.projectID))</p>\n<ul class=\"notes\">"
            for note in entry.notes { out += "<li>\(Self.h(note))</li>" }
            out += "</ul>\n"
        }
        return out + "</section>\n"
    }
}
