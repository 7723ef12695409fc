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

    // MARK: Import

    /// Reads rows back; throws `.invalidArgument` naming the first bad line.
    public static func decode(_ text: String) throws(TrackerError) -> [Row] {
        let records = try records(of: text)
        guard let first = records.first else {
            throw .invalidArgument("The CSV is empty: expected the header '\(header)'.")
        }
        let found = first.cells.joined(separator: ",").lowercased()
        guard ([header, roundedHeader, headerWithoutNote] + headersWithoutTags).contains(found) else {
            throw .invalidArgument(
                "CSV line 1: expected the header '\(header)', found '\(first.cells.joined(separator: ","))'. Nothing was imported.")
        }
        let width = first.cells.count
        let names = first.cells.map { $0.lowercased() }
        let noteColumn = names.firstIndex(of: "note")
        let tagsColumn = names.firstIndex(of: "tags")
        var rows: [Row] = []
        rows.reserveCapacity(records.count)
        // The few (name, colour) pairs of a file, validated once each: a history has thousands
        // of rows per project.
        var checked: [String: [String: (String, String)]] = [:]
        for record in records.dropFirst() {
            func bad(_ why: String) -> TrackerError {
                .invalidArgument("CSV line \(record.line): \(why). Nothing was imported.")
            }
            let cells = record.cells
            guard cells.count == width else { throw bad("expected \(width) cells, found \(cells.count)") }
            let rawName = restored(cells[0])
            var name: String?
            var color: String?
            if rawName.isEmpty {
                guard cells[1].isEmpty else { throw bad("a colour is given without a project") }
            } else if let known = checked[rawName]?[cells[1]] {
                (name, color) = known
            } else {
                do {
                    let pair = (try Project.validatedName(rawName), try Project.validatedColor(cells[1]))
                    checked[rawName, default: [:]][cells[1]] = pair
                    (name, color) = pair
                } catch {
                    throw bad(error.message.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
                }
            }
            guard let start = parseInstant(cells[2]) else {
                throw bad("start '\(cells[2])' is not an ISO 8601 time like 2024-01-31T09:00:00+01:00")
            }
            guard let end = parseInstant(cells[3]) else {
                throw bad("end '\(cells[3])' is not an ISO 8601 time like 2024-01-31T17:00:00+01:00")
            }
            guard end > start else { throw bad("the end is not after the start") }
            var note: String?
            if let noteColumn, !cells[noteColumn].isEmpty {
                do {
                    note = try IntervalNote.validated(restored(cells[noteColumn]))
                } catch {
                    throw bad(error.message.replacingOccurrences(of: " Nothing was changed.", with: "")
                        .trimmingCharacters(in: CharacterSet(charactersIn: ".")))
                }
            }
            var row = Row(projectName: name, color: color, start: start, end: end, note: note, line: record.line)
            if let tagsColumn, !cells[tagsColumn].isEmpty {
                do {
                    row.tags = try Tags.validated(cells[tagsColumn].split(separator: " ").map(String.init))
                } catch {
                    throw bad(error.message.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.f{1,6}](Z|±HH:MM)`.
    public static func parseInstant(_ text: String) -> Micros? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"),
            b[16] == UInt8(ascii: ":"), let day = Day(String(decoding: b[0..<10], as: UTF8.self))
        else { return nil }
        func digits(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        guard let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            var count = 0
            index += 1
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                guard count < 6 else { return nil }
                fraction = fraction * 10 + Int64(b[index] - 48)
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<6 { fraction *= 10 }
        }
        guard index < b.count else { return nil }
        var offset: Int64 = 0
        if b[index] == UInt8(ascii: "Z") {
            guard index + 1 == b.count else { return nil }
        } else {
            guard b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), index + 6 == b.count,
                b[index + 3] == UInt8(ascii: ":"), let oh = digits(index + 1..<index + 3),
                let om = digits(index + 4..<index + 6), oh < 24, om < 60
            else { return nil }
            offset = (oh * 3600 + om * 60) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
        }
        let local = Int64(day.ordinal) * 86_400 + hour * 3600 + minute * 60 + second
        return (local - offset) * microsPerSecond + fraction
    }

    struct Record {
        var line: Int
        var cells: [String]
    }

    /// RFC 4180 records with the line each starts on; CRLF or LF line ends; blank lines skipped.
    static func records(of text: String) throws(TrackerError) -> [Record] {
        // Byte by byte: every character the format gives a meaning (quote, comma, CR, LF) is
        // ASCII, and UTF-8 never uses an ASCII byte inside another character, so the other
        // bytes are copied as they are (scalar by scalar this was most of a ten-year import's
        // reading).
        var records: [Record] = []
        var cells: [String] = []
        var cell: [UInt8] = []
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var quotedCell = false
        var closedQuote = false
        let bytes = Array(text.utf8)
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func endRecord() {
            cells.append(String(decoding: cell, as: UTF8.self))
            cell.removeAll(keepingCapacity: true)
            if !(cells.count == 1 && cells[0].isEmpty && !quotedCell) {
                records.append(Record(line: recordLine, cells: cells))
            }
            cells = []
            quotedCell = false
            closedQuote = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            let next: UInt8? = index < bytes.count ? bytes[index] : nil
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if next == UInt8(ascii: "\"") {
                        cell.append(byte)
                        index += 1
                    } else {
                        inQuotes = false
                        closedQuote = true
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    cell.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard cell.isEmpty, !closedQuote else {
                    throw .invalidArgument("CSV line \(line): a quote inside an unquoted cell. Nothing was imported.")
                }
                inQuotes = true
                quotedCell = true
            case UInt8(ascii: ","):
                closedQuote = false
                cells.append(String(decoding: cell, as: UTF8.self))
                cell.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\r"):
                if next == UInt8(ascii: "\n") { index += 1 }
                endRecord()
                line += 1
                recordLine = line
            case UInt8(ascii: "\n"):
                endRecord()
                line += 1
                recordLine = line
            default:
                guard !closedQuote else {
                    throw .invalidArgument("CSV line \(line): text after a closing quote. Nothing was imported.")
                }
                cell.append(byte)
            }
        }
        if inQuotes {
            throw .invalidArgument("CSV line \(recordLine): a quoted cell is not closed. Nothing was imported.")
        }
        if !cell.isEmpty || !cells.isEmpty || quotedCell { endRecord() }
        return records
    }
}
