import BiomaWidgets
import DBusCore
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

/// Terminal output: colour only on a terminal and without `NO_COLOR`.
struct Terminal {
    var color: Bool

    static func style(environment: [String: String] = processEnvironment()) -> Terminal {
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

/// JSON for `--json` output: compact, keys sorted, strings escaped as the bars' JSON is.
enum JSON {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case array([JSON])
    case object([String: JSON])

    var text: String {
        switch self {
        case .string(let s): return TextEscaping.json(s)
        case .int(let n): return String(n)
        case .double(let d):
            guard d.isFinite else { return "null" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case .bool(let b): return b ? "true" : "false"
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.keys.sorted().map { TextEscaping.json($0) + ":" + fields[$0]!.text }.joined(separator: ",") + "}"
        }
    }
}

/// Writes to a file descriptor without buffering, the whole text.
func write(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
    bytes.removeAll()
}

func writeStandardOutput(_ text: String) { write(text, to: 1) }
func writeStandardError(_ text: String) { write(text, to: 2) }

/// Everything on standard input.
func readStandardInput() throws(ClientFailure) -> [UInt8] {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw ClientFailure(exitCode: 1, "cannot read standard input: \(String(cString: strerror(errno)))") }
        if n == 0 { return data }
        data.append(contentsOf: buffer[..<n])
    }
}

/// A whole file; a failure names the file and the cause.
func readFile(_ path: String) throws(ClientFailure) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ClientFailure(exitCode: 1, "cannot read \(path): \(String(cString: strerror(errno))).") }
    defer { close(fd) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw ClientFailure(exitCode: 1, "cannot read \(path): \(String(cString: strerror(errno))).") }
        if n == 0 { return data }
        data.append(contentsOf: buffer[..<n])
    }
}

/// One decimal place, as `%.1f` prints it.
func oneDecimal(_ value: Double) -> String {
    guard value.isFinite else { return "0.0" }
    let tenths = Int64((abs(value) * 10).rounded())
    return (value < 0 && tenths > 0 ? "-" : "") + "\(tenths / 10).\(tenths % 10)"
}

/// `biomatimer report`.
enum ReportText {
    static func json(_ r: [String: DBusValue]) -> String {
        let projects = (r["Projects"]?.array ?? []).compactMap(\.vardict).map { p -> JSON in
            .object([
                "id": .string(p["Id"]?.string ?? ""), "name": .string(p["Name"]?.string ?? ""),
                "color": .string(p["Color"]?.string ?? ""), "total": .int(p["Total"]?.int64 ?? 0),
                "percent": .double(p["Percent"]?.double ?? 0),
            ])
        }
        let days = (r["Days"]?.array ?? []).compactMap(\.vardict).map { d -> JSON in
            .object(["day": .string(d["Day"]?.string ?? ""), "work_total": .int(d["WorkTotal"]?.int64 ?? 0)])
        }
        let object = JSON.object([
            "from": .string(r["From"]?.string ?? ""), "to": .string(r["To"]?.string ?? ""),
            "work_total": .int(r["WorkTotal"]?.int64 ?? 0), "no_project_total": .int(r["NoProjectTotal"]?.int64 ?? 0),
            "projects": .array(projects), "days": .array(days),
        ])
        return object.text + "\n"
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
            out += "\(Terminal.padLeft(oneDecimal(percent) + "%", 6))  \(style.paint(bar, color))\n"
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
