import BiomaText
import Foundation

/// Reading `IntervalCSV`'s format back (an import), straight from the text's bytes: every
/// character the format gives a meaning (quote, comma, CR, LF) is ASCII, and UTF-8 never uses
/// an ASCII byte inside another character, so a record's cells are byte ranges, and only what
/// a row keeps becomes a string (a project's name and colour once per file, a note, tags).
/// A string per cell, and per instant parsed, was most of a ten-year import's reading.
extension IntervalCSV {
    /// Reads rows back; throws `.invalidArgument` naming the first bad line.
    public static func decode(_ text: String) throws(TrackerError) -> [Row] {
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(TrackerError) in try decode(bytes: bytes) } }.get()
    }

    static func decode(bytes: UnsafeBufferPointer<UInt8>) throws(TrackerError) -> [Row] {
        var reader = RecordReader(bytes)
        var cells = Cells()
        guard try reader.next(&cells) != nil else {
            throw .invalidArgument("The CSV is empty: expected the header '\(header)'.")
        }
        let first = cells.strings
        let found = first.joined(separator: ",").lowercased()
        guard ([header, roundedHeader, headerWithoutNote] + headersWithoutTags).contains(found) else {
            throw .invalidArgument(
                "CSV line 1: expected the header '\(header)', found '\(first.joined(separator: ","))'. Nothing was imported.")
        }
        let width = first.count
        let names = first.map { $0.lowercased() }
        let noteColumn = names.firstIndex(of: "note")
        let tagsColumn = names.firstIndex(of: "tags")
        var rows: [Row] = []
        rows.reserveCapacity(bytes.count / 64)
        // The few (name, colour) pairs of a file, validated once each and found again by their
        // bytes: a history has thousands of rows per project.
        var pairs = ProjectPairs()
        while let line = try reader.next(&cells) {
            func bad(_ why: String) -> TrackerError {
                .invalidArgument("CSV line \(line): \(why). Nothing was imported.")
            }
            guard cells.count == width else { throw bad("expected \(width) cells, found \(cells.count)") }
            var name: String?
            var color: String?
            if cells.isEmpty(0) {
                guard cells.isEmpty(1) else { throw bad("a colour is given without a project") }
            } else if let known = pairs.find(cells) {
                (name, color) = known
            } else {
                do {
                    let pair = (try Project.validatedName(restored(cells.string(0))), try Project.validatedColor(cells.string(1)))
                    pairs.add(cells, pair)
                    (name, color) = pair
                } catch {
                    throw bad(error.message.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
                }
            }
            guard let start = cells.withBytes(2, parseInstant(bytes:)) else {
                throw bad("start '\(cells.string(2))' is not an ISO 8601 time like 2024-01-31T09:00:00+01:00")
            }
            guard let end = cells.withBytes(3, parseInstant(bytes:)) else {
                throw bad("end '\(cells.string(3))' is not an ISO 8601 time like 2024-01-31T17:00:00+01:00")
            }
            guard end > start else { throw bad("the end is not after the start") }
            var note: String?
            if let noteColumn, !cells.isEmpty(noteColumn) {
                do {
                    note = try IntervalNote.validated(restored(cells.string(noteColumn)))
                } catch {
                    throw bad(error.message.replacingOccurrences(of: " Nothing was changed.", with: "")
                        .trimmingCharacters(in: CharacterSet(charactersIn: ".")))
                }
            }
            var row = Row(projectName: name, color: color, start: start, end: end, note: note, line: line)
            if let tagsColumn, !cells.isEmpty(tagsColumn) {
                do {
                    row.tags = try Tags.validated(cells.string(tagsColumn).split(separator: " ").map(String.init))
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
        var text = text
        return text.withUTF8 { parseInstant(bytes: $0) }
    }

    static func parseInstant(bytes b: UnsafeBufferPointer<UInt8>) -> Micros? {
        func digits(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        // The day exactly as `Day(_:)` reads it: `YYYY-MM-DD`, a real calendar day.
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), let year = digits(0..<4), let month = digits(5..<7),
            let dayOfMonth = digits(8..<10), let day = Day(year: Int(year), month: Int(month), day: Int(dayOfMonth))
        else { return nil }
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
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(TrackerError) in
                var reader = RecordReader(bytes)
                var cells = Cells()
                var records: [Record] = []
                while let line = try reader.next(&cells) { records.append(Record(line: line, cells: cells.strings)) }
                return records
            }
        }.get()
    }

    /// One record's cells: their bytes one after the other (a quoted cell's doubled quotes
    /// made single), and where each ends. Reused from record to record.
    struct Cells {
        var bytes: [UInt8] = []
        var ends: [Int] = []

        init() {
            bytes.reserveCapacity(256)
            ends.reserveCapacity(16)
        }

        var count: Int { ends.count }

        func range(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

        func isEmpty(_ index: Int) -> Bool { range(index).isEmpty }

        func string(_ index: Int) -> String { String(decoding: bytes[range(index)], as: UTF8.self) }

        var strings: [String] { (0..<count).map(string) }

        func withBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            let range = range(index)
            return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
        }

        /// Whether cell `index` holds exactly `other`.
        func equals(_ index: Int, _ other: [UInt8]) -> Bool {
            let range = range(index)
            guard range.count == other.count else { return false }
            return bytes.withUnsafeBufferPointer { own in
                other.withUnsafeBufferPointer { memcmp(own.baseAddress! + range.lowerBound, $0.baseAddress!, range.count) == 0 }
            }
        }

        func copy(_ index: Int) -> [UInt8] { Array(bytes[range(index)]) }
    }

    /// The (name, colour) pairs read so far, by the bytes of the first two cells.
    struct ProjectPairs {
        private var pairs: [(name: [UInt8], color: [UInt8], value: (String, String))] = []
        private var last = 0

        func find(_ cells: Cells) -> (String, String)? {
            // Rows of one project often come in a row; else the few pairs of a file in turn.
            if last < pairs.count, matches(pairs[last], cells) { return pairs[last].value }
            for pair in pairs where matches(pair, cells) { return pair.value }
            return nil
        }

        private func matches(_ pair: (name: [UInt8], color: [UInt8], value: (String, String)), _ cells: Cells) -> Bool {
            // An empty cell has no address to compare from.
            cells.range(0).count == pair.name.count && cells.range(1).count == pair.color.count
                && (pair.name.isEmpty || cells.equals(0, pair.name)) && (pair.color.isEmpty || cells.equals(1, pair.color))
        }

        mutating func add(_ cells: Cells, _ value: (String, String)) {
            pairs.append((cells.copy(0), cells.copy(1), value))
            last = pairs.count - 1
        }
    }

    /// RFC 4180 records read one at a time from the bytes (after a byte-order mark, if any).
    struct RecordReader {
        /// Appends the bytes from `start` up to the first that `stops` (or the end) to the cell
        /// being read, in one copy (ten years are a hundred thousand lines); returns where the
        /// stop is.
        @inline(__always)
        private func appendRun(from start: Int, upTo stops: (UInt8) -> Bool, _ cells: inout Cells) -> Int {
            var end = start + 1
            while end < bytes.count, !stops(bytes[end]) { end += 1 }
            cells.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            return end
        }

        private let bytes: UnsafeBufferPointer<UInt8>
        private var index: Int
        private var line = 1

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            index = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        }

        /// Reads the next record into `cells`; returns the line it starts on, nil at the end.
        mutating func next(_ cells: inout Cells) throws(TrackerError) -> Int? {
            let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
            while index < bytes.count {
                cells.bytes.removeAll(keepingCapacity: true)
                cells.ends.removeAll(keepingCapacity: true)
                let recordLine = line
                var cellStart = 0
                var inQuotes = false
                // Whether any cell of the record was quoted (a record of one quoted empty cell is
                // not a blank line); whether the cell being read has had its closing quote.
                var quotedCell = false
                var closedQuote = false
                var ended = false
                while index < bytes.count, !ended {
                    let byte = bytes[index]
                    index += 1
                    if inQuotes {
                        if byte == quote {
                            if index < bytes.count, bytes[index] == quote {
                                cells.bytes.append(quote)
                                index += 1
                            } else {
                                inQuotes = false
                                closedQuote = true
                            }
                        } else if byte == lf {
                            line += 1
                            cells.bytes.append(byte)
                        } else {
                            index = appendRun(from: index - 1, upTo: { $0 == quote || $0 == lf }, &cells)
                        }
                        continue
                    }
                    switch byte {
                    case quote:
                        guard cells.bytes.count == cellStart, !closedQuote else {
                            throw .invalidArgument("CSV line \(line): a quote inside an unquoted cell. Nothing was imported.")
                        }
                        inQuotes = true
                        quotedCell = true
                    case comma:
                        closedQuote = false
                        cells.ends.append(cells.bytes.count)
                        cellStart = cells.bytes.count
                    case cr:
                        if index < bytes.count, bytes[index] == lf { index += 1 }
                        ended = true
                    case lf:
                        ended = true
                    default:
                        guard !closedQuote else {
                            throw .invalidArgument("CSV line \(line): text after a closing quote. Nothing was imported.")
                        }
                        index = appendRun(from: index - 1, upTo: { $0 == quote || $0 == comma || $0 == cr || $0 == lf }, &cells)
                    }
                }
                if inQuotes {
                    throw .invalidArgument("CSV line \(recordLine): a quoted cell is not closed. Nothing was imported.")
                }
                // The text ends without a line end: its last record counts only if it holds something.
                if !ended, cells.bytes.count == cellStart, cells.ends.isEmpty, !quotedCell { return nil }
                cells.ends.append(cells.bytes.count)
                if ended { line += 1 }
                // A blank line.
                if cells.count == 1, cells.isEmpty(0), !quotedCell { continue }
                return recordLine
            }
            return nil
        }
    }
}
