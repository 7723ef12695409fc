import BiomaText
import Foundation

/// The CSV form of recorded intervals: RFC 4180, a header row, one row per interval with its
/// project name and colour (both empty for time with no project), start and end as ISO 8601
/// local times with their UTC offset, and the duration as H:MM:SS (informative; import ignores
/// it), and the interval's note (empty for none). Exported with rounding, a `rounded` column
/// after `duration` holds each interval's rounded duration (informative too). Cells a
/// spreadsheet would run as a formula are neutralised with a leading apostrophe, which import
/// removes again, so export → import → export is identical. The last column holds the
/// interval's tags, space-separated. Import also reads files written before tags (no `tags`
/// column) and before notes existed (no `note` column either).
public enum IntervalCSV {
    public static let header = "project,color,start,end,duration,note,tags"
    /// With rounding (`export --round`).
    public static let roundedHeader = "project,color,start,end,duration,rounded,note,tags"
    /// Files written before notes existed.
    public static let headerWithoutNote = "project,color,start,end,duration"
    /// Files written before tags existed.
    public static let headersWithoutTags = ["project,color,start,end,duration,note", "project,color,start,end,duration,rounded,note"]

    public struct Row: Sendable, Equatable {
        public var projectName: String?
        public var color: String?
        public var start: Micros
        public var end: Micros
        /// A valid note (`IntervalNote.validated`), nil for none.
        public var note: String?
        /// Line of the file the row starts on (1 = header); 0 for rows not read from a file.
        public var line: Int
        /// Valid tags (`Tags.validated`), in order.
        public var tags: [String] = []

        public init(projectName: String?, color: String?, start: Micros, end: Micros, note: String? = nil, line: Int = 0) {
            (self.projectName, self.color, self.start, self.end) = (projectName, color, start, end)
            (self.note, self.line) = (note, line)
        }
    }

    // MARK: Export

    /// With `rounding`, each interval's duration is also written rounded (per interval, whatever
    /// the rounding's `per`: a row is one interval).
    public static func encode(_ rows: [Row], timeZone: TimeZone, rounding: Rounding? = nil) -> String {
        (rounding == nil ? header : roundedHeader) + "\r\n" + encodeRows(rows, timeZone: timeZone, rounding: rounding)
    }

    /// The rows alone, without the header: a long export written in pieces.
    public static func encodeRows(_ rows: [Row], timeZone: TimeZone, rounding: Rounding? = nil) -> String {
        // Bytes appended in place (an export writes ten years of these in one go; cells built
        // as strings and joined cost four times the rest of the export).
        var out: [UInt8] = []
        out.reserveCapacity(rows.count * 96)
        let rules = DayRules(timeZone: timeZone)
        func cell(_ text: String) { out.append(contentsOf: quoted(text).utf8) }
        for row in rows {
            cell(neutralized(row.projectName ?? ""))
            out.append(UInt8(ascii: ","))
            cell(row.color ?? "")
            out.append(UInt8(ascii: ","))
            appendInstant(row.start, rules: rules, to: &out)
            out.append(UInt8(ascii: ","))
            appendInstant(row.end, rules: rules, to: &out)
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: DurationFormat.hms(row.end - row.start).utf8)
            if let rounding {
                out.append(UInt8(ascii: ","))
                out.append(contentsOf: DurationFormat.hms(rounding.rounded(row.end - row.start)).utf8)
            }
            out.append(UInt8(ascii: ","))
            cell(neutralized(row.note ?? ""))
            out.append(UInt8(ascii: ","))
            cell(row.tags.joined(separator: " "))
            out.append(contentsOf: [0x0D, 0x0A])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `2024-03-31T01:30:00+01:00`, with `.ffffff` only when the instant has a fraction.
    public static func formatInstant(_ instant: Micros, rules: DayRules) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        appendInstant(instant, rules: rules, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `formatInstant`'s text appended to `bytes`, digit by digit.
    static func appendInstant(_ instant: Micros, rules: DayRules, to bytes: inout [UInt8]) {
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            for _ in 0..<width {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        let second = floorDiv(instant, microsPerSecond)
        let fraction = instant - second * microsPerSecond
        let offset = rules.offsetSeconds(atSecond: second)
        let local = second + offset
        let ordinal = floorDiv(local, 86_400)
        let date = Day.civilFromDays(Int(ordinal))
        if (0...9999).contains(date.year) {
            digits(Int64(date.year), 4)
        } else {
            let year = String(date.year)  // padded as `Day.description` pads it
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - year.utf8.count)))
            bytes.append(contentsOf: year.utf8)
        }
        bytes.append(UInt8(ascii: "-"))
        digits(Int64(date.month), 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int64(date.day), 2)
        let secondOfDay = local - ordinal * 86_400
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if fraction != 0 {
            bytes.append(UInt8(ascii: "."))
            digits(fraction, 6)
        }
        bytes.append(UInt8(ascii: offset < 0 ? "-" : "+"))
        let magnitude = abs(offset)
        digits(magnitude / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(magnitude / 60 % 60, 2)
    }


    static func pad(_ value: Int64, width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// A leading `=`, `+`, `-` or `@` (possibly behind apostrophes we added before) gets one more
    /// leading apostrophe; `restored` removes exactly one.
    public static func neutralized(_ cell: String) -> String {
        needsApostrophe(cell) ? "'" + cell : cell
    }

    public static func restored(_ cell: String) -> String {
        cell.first == "'" && needsApostrophe(String(cell.dropFirst())) ? String(cell.dropFirst()) : cell
    }

    // Both look at Unicode scalars, not characters: a comma or a quote followed by a combining
    // mark is one Character in Swift (",\u{301}" is not equal to ","), yet a CSV reader, and
    // `records(of:)`, see the comma.
    private static func needsApostrophe(_ cell: String) -> Bool {
        guard let first = cell.unicodeScalars.first(where: { $0 != "'" }) else { return false }
        return "=+-@".unicodeScalars.contains(first)
    }

    static func quoted(_ cell: String) -> String {
        guard cell.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" })
        else { return cell }
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in cell.unicodeScalars {
            if scalar == "\"" { out.append("\"") }
            out.append(scalar)
        }
        out.append("\"")
        return String(out)
    }
}
