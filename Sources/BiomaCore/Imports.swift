import BiomaText
import Foundation

/// Time recorded by other trackers, read into intervals to import: Timewarrior's `timew export`
/// and Watson's `frames` file. Reading is pure and strict: a broken entry is an
/// `invalidImport` naming it (its place in the file, from 1, and its id in the other tracker)
/// and what is wrong, and nothing is returned. Entries may come in any order; overlapping
/// entries are refused, naming both (an entry repeated exactly is left for the store, which
/// adds such time once).
///
/// Which project an entry's time goes to: its *labels* are, in order, Timewarrior's tags, or
/// Watson's project followed by its tags. The first label the `TagMap` names gives the project
/// (a map to `""` means no project); else the first label itself is the project's name;
/// without labels the time is work without a project. Timewarrior keeps an interval's tags in
/// alphabetical order, so its "first tag" is the alphabetically first one. Labels are compared
/// exactly (case matters, as in both trackers); projects are then matched by name ignoring
/// case, as everywhere in biomatimer.

/// One interval read from another tracker's data.
public struct ImportedInterval: Sendable, Equatable {
    public var start: Micros
    public var end: Micros
    /// A valid project name (`Project.validatedName`), nil for work without a project.
    public var projectName: String?
    /// The entry's place in the file, from 1.
    public var entry: Int
    /// The entry's id in the other tracker (`@3` for Timewarrior, the frame id for Watson).
    public var entryID: String?
    /// A valid note (`IntervalNote.validated`): Timewarrior's annotation, Watson's note.
    public var note: String?
    /// Its tags (`ImportRules.tags`): every Timewarrior tag, Watson's tags.
    public var tags: [String] = []

    public init(start: Micros, end: Micros, projectName: String?, entry: Int, entryID: String? = nil, note: String? = nil) {
        (self.start, self.end, self.projectName, self.entry) = (start, end, projectName, entry)
        (self.entryID, self.note) = (entryID, note)
    }
}

/// The data formats `Import` reads.
public enum ImportFormat: String, CaseIterable, Sendable {
    /// `ExportCSV`'s format (`IntervalCSV`).
    case csv
    /// `timew export`: a JSON array of intervals.
    case timewarrior
    /// Watson's `frames` file: a JSON array of frames.
    case watson

    /// What an entry is called in messages.
    public var entryName: String {
        switch self {
        case .csv: return "CSV line"
        case .timewarrior: return "Timewarrior entry"
        case .watson: return "Watson frame"
        }
    }

    /// Names one entry: `Timewarrior entry 3 (id @5)`.
    public func entryLabel(_ entry: Int, id: String?) -> String {
        "\(entryName) \(entry)" + (id.map { " (id \($0))" } ?? "")
    }
}

/// Labels (tags, or Watson's project) mapped to project names by the user.
public struct TagMap: Sendable, Equatable {
    /// Label → project name, nil for work without a project.
    public private(set) var projects: [String: String?]

    public init() { projects = [:] }

    /// Checks the map: labels are not empty; names are valid project names, or `""` for no
    /// project. A bad entry is an `invalidArgument` naming it.
    public init(_ raw: [String: String]) throws(TrackerError) {
        var projects: [String: String?] = [:]
        for (label, name) in raw {
            guard !label.isEmpty else { throw .invalidArgument("TagMap: a tag cannot be empty.") }
            if name.isEmpty {
                projects[label] = .some(nil)
                continue
            }
            do {
                projects[label] = try Project.validatedName(name)
            } catch {
                throw .invalidArgument("TagMap: the project for tag \(label.debugDescription) is not a valid name: \(error.message)")
            }
        }
        self.projects = projects
    }

    /// The project for an entry with these labels (see the rules at the top of this file), or
    /// the first label when the map names none; `label` is nil when the map decided.
    func project(for labels: [String]) -> (name: String?, label: String?) {
        for label in labels {
            if let mapped = projects[label] { return (mapped, nil) }
        }
        return (labels.first, labels.first)
    }
}

/// `timew export`: `[{"id":1,"start":"20240131T090000Z","end":"20240131T100000Z","tags":["a"],
/// "annotation":"…"}, …]`. `start` is required; `end` too (an open interval, one still being
/// tracked, is refused: stop it first); `id`, `tags` and `annotation` may be absent; other keys
/// are ignored. The annotation becomes the interval's note (it must be one a note can be). An interval with no length (end equal to start) holds no time and is left out.
public enum TimewarriorImport {
    public static func parse(_ text: String, tagMap: TagMap = TagMap()) throws(TrackerError) -> [ImportedInterval] {
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

/// Watson's `frames` file (`~/.config/watson/frames`): `[[start, stop, "project", "id", ["tags"],
/// updated_at, "note"], …]`, times in seconds since the epoch (UTC). The tags, `updated_at` and
/// the note may be absent, as in files of Watson versions without them, and the tags and the
/// note `null`; `updated_at` is not used; the note becomes the interval's note.
/// The frame being tracked is not in this file (Watson keeps it in `state`), so every frame is
/// closed. A frame with no length holds no time and is left out.
public enum WatsonImport {
    public static func parse(_ text: String, tagMap: TagMap = TagMap()) throws(TrackerError) -> [ImportedInterval] {
        try ImportRules.intervals(
            text, .watson, tagMap: tagMap, what: "Watson frames file", example: "Watson keeps in ~/.config/watson/frames",
            labelNoun: "project or tag"
        ) { (entry, value) throws(TrackerError) in
            guard case .array(let fields) = value else {
                throw entry.bad("expected an array [start, stop, project, id, tags, updated_at, note], found \(value.kind)")
            }
            if fields.count > 3, case .string(let text) = fields[3] { entry.id = ImportRules.plainID(text) }
            guard (4...7).contains(fields.count) else {
                throw entry.bad("expected 4 to 7 fields [start, stop, project, id, tags, updated_at, note], found \(fields.count)")
            }
            guard case .string = fields[3] else { throw entry.bad("the id must be a string, found \(ImportRules.shown(fields[3]))") }
            guard let start = seconds(fields[0]) else {
                throw entry.bad("the start \(ImportRules.shown(fields[0])) is not a time in seconds since 1970")
            }
            guard let end = seconds(fields[1]) else {
                throw entry.bad("the stop \(ImportRules.shown(fields[1])) is not a time in seconds since 1970")
            }
            guard end >= start else {
                throw entry.bad("it stops (\(ImportRules.shown(fields[1]))) before it starts (\(ImportRules.shown(fields[0])))")
            }
            guard case .string(let project) = fields[2] else {
                throw entry.bad("the project must be a string, found \(ImportRules.shown(fields[2]))")
            }
            var labels = [project]
            if fields.count > 4 {
                switch fields[4] {
                case .null: break
                case .array(let elements):
                    for element in elements {
                        guard case .string(let tag) = element else {
                            throw entry.bad("the tags must be strings, and hold \(ImportRules.shown(element))")
                        }
                        labels.append(tag)
                    }
                default: throw entry.bad("the tags must be an array of strings, found \(fields[4].kind)")
                }
            }
            if fields.count > 5, seconds(fields[5]) == nil {
                throw entry.bad("updated_at \(ImportRules.shown(fields[5])) is not a time in seconds since 1970")
            }
            var note: String?
            if fields.count > 6 {
                switch fields[6] {
                case .null: break
                case .string(let text): note = try ImportRules.note(text, entry.bad, noun: "note")
                default: throw entry.bad("the note must be a string, found \(ImportRules.shown(fields[6]))")
                }
            }
            return ImportRules.EntryTime(start: start, end: end, labels: labels, note: note, tags: Array(labels.dropFirst()))
        }
    }

    /// A JSON number of seconds (a fraction to the microsecond allowed), 1970 to 9999.
    static func seconds(_ value: StrictJSON) -> Micros? {
        guard case .number(let text) = value, !text.hasPrefix("-"), !text.contains(where: { $0 == "e" || $0 == "E" })
        else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts[0].count <= 12, let whole = Int64(parts[0]) else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1].count > 6 ? parts[1].prefix(6) : parts[1]
            guard parts[1].dropFirst(digits.count).allSatisfy({ $0 == "0" }), let value = Int64(digits) else { return nil }
            fraction = value
            for _ in digits.count..<6 { fraction *= 10 }
        }
        let micros = whole * microsPerSecond + fraction
        guard micros < ImportRules.endOfYear9999 else { return nil }
        return micros
    }
}

enum ImportRules {
    /// One entry being read: its place in the file (from 1) and, once read, its id in the other
    /// tracker; `bad` names both.
    struct Entry {
        let format: ImportFormat
        let place: Int
        var id: String?

        func bad(_ why: String) -> TrackerError { ImportRules.bad(format.entryLabel(place, id: id), why) }
    }

    /// What one entry records: its time, its labels (see the rules at the top of this file) and a
    /// valid note.
    struct EntryTime {
        var start: Micros
        var end: Micros
        var labels: [String]
        var note: String?
        var tags: [String] = []
    }

    /// The intervals of a JSON file of entries, each read by `read`: an entry with no length is
    /// left out, the others get their project from their labels (`labelNoun` says what a label
    /// is in messages), and overlaps are refused.
    static func intervals(
        _ text: String, _ format: ImportFormat, tagMap: TagMap, what: String, example: String, labelNoun: String,
        _ read: (inout Entry, StrictJSON) throws(TrackerError) -> EntryTime
    ) throws(TrackerError) -> [ImportedInterval] {
        var result: [ImportedInterval] = []
        var validated: [String: String] = [:]
        try forEachElement(text, what: what, example: example) { (place, value) throws(TrackerError) in
            var entry = Entry(format: format, place: place)
            let time = try read(&entry, value)
            if time.end == time.start { return }
            let project = try project(time.labels, tagMap, entry.bad, noun: labelNoun, validated: &validated)
            var item = ImportedInterval(
                start: time.start, end: time.end, projectName: project, entry: place, entryID: entry.id, note: time.note)
            item.tags = tags(time.tags)
            result.append(item)
        }
        try checkOverlaps(result, format)
        return result
    }

    /// Another tracker's tags as tags here: each made a word (a character a tag cannot hold
    /// becomes `-`, at most 32 characters), empty ones and repeats (ignoring case) left out, at
    /// most 16.
    static func tags(_ raw: [String]) -> [String] {
        var out: [String] = []
        for tag in raw {
            let word = String(
                tag.map { c -> Character in c == "-" || c == "_" || c == "." || c.isLetter || c.isNumber ? c : "-" }
                    .prefix(TagText.maxLength))
            guard !word.isEmpty, word.contains(where: { $0 != "-" }), out.count < TagText.maxCount,
                !out.contains(where: { $0.lowercased() == word.lowercased() })
            else { continue }
            out.append(word)
        }
        return out
    }

    /// 10000-01-01T00:00:00Z: the store and every client show years up to 9999.
    static let endOfYear9999: Micros = 253_402_300_800 * microsPerSecond

    static func bad(_ label: String, _ why: String) -> TrackerError {
        .invalidImport("\(label): \(why). Nothing was imported.")
    }

    /// Hands each element of a JSON file's top-level array to `body`, with its place from 1.
    static func forEachElement(
        _ text: String, what: String, example: String, _ body: (Int, StrictJSON) throws(TrackerError) -> Void
    ) throws(TrackerError) {
        if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .invalidImport("The \(what) is empty: expected a JSON array as \(example) ([] when there is nothing).")
        }
        func invalid(_ error: StrictJSON.SyntaxError) -> TrackerError {
            .invalidImport("The \(what) is not valid JSON: \(error). Nothing was imported.")
        }
        guard var elements = StrictJSON.ArrayReader(text) else {
            let json: StrictJSON
            do {
                json = try StrictJSON.parse(text)
            } catch {
                throw invalid(error)
            }
            throw .invalidImport("The \(what) must be a JSON array as \(example), not \(json.kind). Nothing was imported.")
        }
        var place = 0
        while true {
            let element: StrictJSON?
            do {
                element = try elements.next()
            } catch {
                throw invalid(error)
            }
            guard let element else { return }
            place += 1
            try body(place, element)
        }
    }

    /// An id as it can be shown in a message: as it is when it is short, plain text (Watson's
    /// are 32 hexadecimal digits), else quoted with control characters escaped.
    static func plainID(_ id: String) -> String {
        let plain = !id.isEmpty && id.count <= 40
            && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "(" && $0 != ")" }
        return plain ? id : shown(.string(id))
    }

    /// A short rendering of a value for messages.
    static func shown(_ value: StrictJSON) -> String {
        switch value {
        case .string(let s):
            let text = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return text.debugDescription
        case .number(let n): return n.count > 40 ? String(n.prefix(40)) + "…" : n
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array, .object: return value.kind
        }
    }

    /// The project for an entry's labels through the map; a name biomatimer cannot take is an
    /// error suggesting a mapping.
    static func project(
        _ labels: [String], _ tagMap: TagMap, _ bad: (String) -> TrackerError, noun: String,
        validated: inout [String: String]
    ) throws(TrackerError) -> String? {
        let (name, label) = tagMap.project(for: labels)
        guard let name else { return nil }
        guard let label else { return name }
        if let known = validated[label] { return known }
        do {
            let valid = try Project.validatedName(label)
            validated[label] = valid
            return valid
        } catch {
            throw bad(
                "its \(noun) \(ImportRules.shown(.string(label))) cannot be a project name (\(error.message.dropLastPeriod)); map it to one with --tag-map (TagMap)")
        }
    }

    /// A note read from another tracker; one a note cannot be is an error naming the entry.
    static func note(_ text: String, _ bad: (String) -> TrackerError, noun: String) throws(TrackerError) -> String? {
        do {
            return try IntervalNote.validated(text)
        } catch {
            let why = error.message.replacingOccurrences(of: " Nothing was changed.", with: "").dropLastPeriod
            throw bad("its \(noun) cannot be a note (\(why.prefix(1).lowercased() + why.dropFirst()))")
        }
    }

    /// Refuses entries whose time overlaps, naming both; an entry repeated exactly (same
    /// times, same project ignoring case) is allowed, the store adds it once.
    static func checkOverlaps(_ items: [ImportedInterval], _ format: ImportFormat) throws(TrackerError) {
        let sorted = items.sorted { ($0.start, $0.entry) < ($1.start, $1.entry) }
        var latest: ImportedInterval?
        for item in sorted {
            if let previous = latest, item.start < previous.end {
                let same = item.start == previous.start && item.end == previous.end
                    && item.projectName.map(Project.nameKey) == previous.projectName.map(Project.nameKey)
                if same { continue }
                let (first, second) = previous.entry < item.entry ? (previous, item) : (item, previous)
                throw .invalidImport(
                    "\(format.entryLabel(second.entry, id: second.entryID)) (\(span(second))) overlaps \(format.entryLabel(first.entry, id: first.entryID)) (\(span(first))). Nothing was imported.")
            }
            if latest == nil || item.end > latest!.end { latest = item }
        }
    }

    static func span(_ item: ImportedInterval) -> String {
        let utc = DayRules(timeZone: TimeZone(identifier: "UTC")!)
        return "\(IntervalCSV.formatInstant(item.start, rules: utc)) – \(IntervalCSV.formatInstant(item.end, rules: utc))"
    }
}

extension String {
    fileprivate var dropLastPeriod: String { hasSuffix(".") ? String(dropLast()) : self }
}
