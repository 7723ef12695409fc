import BiomaText
import Foundation

// Reading `timew export` (what every import follows: Imports.swift, ImportRules.swift).

/// `timew export`: `[{"id":1,"start":"20240131T090000Z","end":"20240131T100000Z","tags":["a"],
/// "annotation":"…"}, …]`. `start` is required; `end` too (an open interval, one still being
/// tracked, is refused: stop it first); `id`, `tags` and `annotation` may be absent; other keys
/// are ignored. The annotation becomes the interval's note (it must be one a note can be). An interval with no length (end equal to start) holds no time and is left out.
public enum TimewarriorImport {
    public static func parse(_ text: String, tagMap: TagMap = TagMap()) throws(TrackerError) -> [ImportedInterval] {
        // `timew export`'s own form read straight from the bytes (the tree of a ten-year export
        // was half its import); any other text, and any entry refused, through the JSON tree,
        // which says what is wrong.
        if let read = try? exportForm(text, tagMap: tagMap) { return read }
        return try parse(tree: text, tagMap: tagMap)
    }

    /// Any text through the JSON tree, entry by entry.
    static func parse(tree text: String, tagMap: TagMap) throws(TrackerError) -> [ImportedInterval] {
        try ImportRules.intervals(
            text, .timewarrior, tagMap: tagMap, what: "Timewarrior export", example: "`timew export` writes", labelNoun: "tag"
        ) { (entry, value) throws(TrackerError) in
            guard case .object = value else { throw entry.bad("expected an object, found \(value.kind)") }
            if let raw = value["id"] {
                guard case .number(let digits) = raw, let number = Int(digits), number >= 0 else {
                    throw entry.bad("\"id\" must be a whole number, found \(ImportRules.shown(raw))")
                }
                entry.id = "@\(number)"
            }
            guard let rawStart = value["start"] else { throw entry.bad("it has no \"start\"") }
            guard case .string(let startText) = rawStart, let start = parseTime(startText) else {
                throw entry.bad("\"start\" \(ImportRules.shown(rawStart)) is not a time like \"20240131T090000Z\"")
            }
            guard let rawEnd = value["end"] else {
                throw entry.bad(
                    "it is still open (it has no \"end\"): stop it with `timew stop`, or leave it out, and import again")
            }
            guard case .string(let endText) = rawEnd, let end = parseTime(endText) else {
                throw entry.bad("\"end\" \(ImportRules.shown(rawEnd)) is not a time like \"20240131T170000Z\"")
            }
            guard end >= start else { throw entry.bad("it ends (\(endText)) before it starts (\(startText))") }
            var tags: [String] = []
            if let rawTags = value["tags"] {
                guard case .array(let elements) = rawTags else {
                    throw entry.bad("\"tags\" must be an array of strings, found \(rawTags.kind)")
                }
                for element in elements {
                    guard case .string(let tag) = element else {
                        throw entry.bad("\"tags\" must be an array of strings, and holds \(ImportRules.shown(element))")
                    }
                    tags.append(tag)
                }
            }
            var note: String?
            if let annotation = value["annotation"] {
                guard case .string(let text) = annotation else {
                    throw entry.bad("\"annotation\" must be a string, found \(annotation.kind)")
                }
                note = try ImportRules.note(text, entry.bad, noun: "annotation")
            }
            return ImportRules.EntryTime(start: start, end: end, labels: tags, note: note, tags: tags)
        }
    }

    /// The intervals of an export exactly as `timew export` writes it (entries `{"id":…,
    /// "start":…,"end":…,"tags":[…],"annotation":…}` in that order, `id`, `tags` and
    /// `annotation` optional, white space only between entries); nil for any other text. An
    /// error is what the JSON tree would find too (the caller leaves the text to it to say so).
    static func exportForm(_ text: String, tagMap: TagMap) throws(TrackerError) -> [ImportedInterval]? {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(TrackerError) -> [ImportedInterval]? in
                var cursor = JSONByteCursor(bytes: bytes)
                // An entry takes some 80 bytes or more: room for every entry there can be (up to
                // a million; more grow as they come).
                var collected = ImportRules.Collected(
                    format: .timewarrior, tagMap: tagMap, labelNoun: "tag", expected: min(bytes.count / 64, 1 << 20))
                cursor.skipSpace()
                guard cursor.literal("[") else { return nil }
                cursor.skipSpace()
                var place = 0
                if !cursor.literal("]") {
                    while true {
                        place += 1
                        var entry = ImportRules.Entry(format: .timewarrior, place: place)
                        guard let time = try cursor.timewarriorEntry(&entry) else { return nil }
                        try collected.add(time, entry)
                        cursor.skipSpace()
                        if cursor.literal("]") { break }
                        guard cursor.literal(",") else { return nil }
                        cursor.skipSpace()
                    }
                }
                cursor.skipSpace()
                guard cursor.atEnd else { return nil }
                return try collected.finish()
            }
        }.get()
    }

    /// `YYYYMMDDTHHMMSSZ` (UTC), the only form `timew export` writes.
    public static func parseTime(_ text: String) -> Micros? {
        var text = text
        return text.withUTF8 { parseTime(bytes: $0) }
    }

    static func parseTime(bytes b: UnsafeBufferPointer<UInt8>) -> Micros? {
        guard b.count == 16, b[8] == UInt8(ascii: "T"), b[15] == UInt8(ascii: "Z") else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard let year = digits(0..<4), let month = digits(4..<6), let dayOfMonth = digits(6..<8),
            let hour = digits(9..<11), let minute = digits(11..<13), let second = digits(13..<15),
            hour < 24, minute < 60, second < 60, year >= 1970,
            let day = Day(year: year, month: month, day: dayOfMonth)
        else { return nil }
        return (Int64(day.ordinal) * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * microsPerSecond
    }

    /// The form `parseTime` reads.
    public static func formatTime(_ instant: Micros) -> String {
        let seconds = instant / microsPerSecond
        let day = Day(ordinal: Int(seconds / 86_400))
        let s = seconds % 86_400
        let date = day.description.replacingOccurrences(of: "-", with: "")
        return "\(date)T\(IntervalCSV.pad(s / 3600))\(IntervalCSV.pad(s / 60 % 60))\(IntervalCSV.pad(s % 60))Z"
    }
}

extension JSONByteCursor {
    /// One entry of `timew export`'s own form (see `TimewarriorImport.exportForm`).
    mutating func timewarriorEntry(_ entry: inout ImportRules.Entry) throws(TrackerError) -> ImportRules.EntryTime? {
        guard literal("{") else { return nil }
        if literal("\"id\":") {
            guard let number = integer(), number >= 0, literal(",") else { return nil }
            entry.id = "@\(number)"
        }
        guard literal("\"start\":"), let startText = stringBytes(), let start = TimewarriorImport.parseTime(bytes: startText),
            literal(",\"end\":"), let endText = stringBytes(), let end = TimewarriorImport.parseTime(bytes: endText), end >= start
        else { return nil }
        var tags: [String] = []
        if literal(",\"tags\":[") {
            if !literal("]") {
                while true {
                    guard let tag = string() else { return nil }
                    tags.append(tag)
                    if literal("]") { break }
                    guard literal(",") else { return nil }
                }
            }
        }
        var note: String?
        if literal(",\"annotation\":") {
            guard let text = string() else { return nil }
            note = try ImportRules.note(text, entry.bad, noun: "annotation")
        }
        guard literal("}") else { return nil }
        return ImportRules.EntryTime(start: start, end: end, labels: tags, note: note, tags: tags)
    }
}
