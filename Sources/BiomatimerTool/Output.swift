import BiomaWidgets
import DBusKit
import Foundation

/// Terminal output: colour only on a terminal and without `NO_COLOR`.
struct Terminal {
    var color: Bool

    static func style(environment: [String: String] = ProcessInfo.processInfo.environment) -> Terminal {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Terminal(color: isatty(1) != 0 && !noColor && environment["TERM"] != "dumb")
    }

    /// A dot in the project's colour (24-bit), or nothing when colour is off.
    func swatch(_ hex: String) -> String {
        guard color, let (r, g, b) = Self.rgb(hex) else { return "●" }
        return "\u{1B}[38;2;\(r);\(g);\(b)m●\u{1B}[0m"
    }

    func paint(_ text: String, _ hex: String) -> String {
        guard color, let (r, g, b) = Self.rgb(hex) else { return text }
        return "\u{1B}[38;2;\(r);\(g);\(b)m\(text)\u{1B}[0m"
    }

    static func rgb(_ hex: String) -> (Int, Int, Int)? {
        guard hex.count == 7, hex.hasPrefix("#"), let v = Int(hex.dropFirst(), radix: 16) else { return nil }
        return ((v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF)
    }

    /// A name on one line: control characters (escape sequences included) become visible.
    static func singleLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\u{FFFD}" : $0 }))
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : String(repeating: " ", count: width - count) + text
    }
}

enum JSONText {
    static func encode(_ value: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// `biomatimer report`.
enum ReportText {
    static func json(_ r: [String: DBusValue]) throws -> String {
        let projects = (r["Projects"]?.array ?? []).compactMap(\.vardict).map { p -> [String: Any] in
            [
                "id": p["Id"]?.string ?? "", "name": p["Name"]?.string ?? "", "color": p["Color"]?.string ?? "",
                "total": p["Total"]?.int64 ?? 0, "percent": p["Percent"]?.double ?? 0,
            ]
        }
        let days = (r["Days"]?.array ?? []).compactMap(\.vardict).map { d -> [String: Any] in
            ["day": d["Day"]?.string ?? "", "work_total": d["WorkTotal"]?.int64 ?? 0]
        }
        let object: [String: Any] = [
            "from": r["From"]?.string ?? "", "to": r["To"]?.string ?? "", "work_total": r["WorkTotal"]?.int64 ?? 0,
            "no_project_total": r["NoProjectTotal"]?.int64 ?? 0, "projects": projects, "days": days,
        ]
        return try JSONText.encode(object) + "\n"
    }

    static func table(_ r: [String: DBusValue], style: Terminal) -> String {
        let from = r["From"]?.string ?? ""
        let to = r["To"]?.string ?? ""
        let work = r["WorkTotal"]?.int64 ?? 0
        var out = from == to ? "\(from)\n" : "\(from) – \(to)\n"
        out += "Work          \(Terminal.padLeft(DurationFormat.hms(work), 10))\n"
        let projects = (r["Projects"]?.array ?? []).compactMap(\.vardict)
        let barWidth = 20
        for p in projects {
            let total = p["Total"]?.int64 ?? 0
            let percent = p["Percent"]?.double ?? 0
            let filled = Int((percent / 100 * Double(barWidth)).rounded())
            let bar = String(repeating: "█", count: max(0, min(barWidth, filled)))
                + String(repeating: "░", count: max(0, barWidth - filled))
            let color = p["Color"]?.string ?? ""
            let name = Terminal.pad(String(Terminal.singleLine(p["Name"]?.string ?? "").prefix(24)), 24)
            out += "  \(style.swatch(color)) \(name) \(Terminal.padLeft(DurationFormat.hms(total), 10)) "
            out += "\(Terminal.padLeft(String(format: "%.1f%%", percent), 6))  \(style.paint(bar, color))\n"
        }
        let none = r["NoProjectTotal"]?.int64 ?? 0
        if none > 0 || projects.isEmpty {
            out += "    \(Terminal.pad("no project", 24)) \(Terminal.padLeft(DurationFormat.hms(none), 10))\n"
        }
        let days = (r["Days"]?.array ?? []).compactMap(\.vardict)
        if days.count > 1 {
            out += "\nDays\n"
            for d in days {
                out += "  \(d["Day"]?.string ?? "")  \(Terminal.padLeft(DurationFormat.hms(d["WorkTotal"]?.int64 ?? 0), 10))\n"
            }
        }
        return out
    }
}
