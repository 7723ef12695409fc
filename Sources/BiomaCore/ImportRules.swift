import BiomaText
import Foundation

/// What every JSON import shares: reading the file's array entry by entry, naming a bad entry,
/// projects from labels, tags, notes, and refusing overlaps.
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
        var collected = Collected(format: format, tagMap: tagMap, labelNoun: labelNoun)
        try forEachElement(text, what: what, example: example) { (place, value) throws(TrackerError) in
            var entry = Entry(format: format, place: place)
            let time = try read(&entry, value)
            try collected.add(time, entry)
        }
        return try collected.finish()
    }

    /// The intervals of a file's entries as they are read, in order, and the rules every entry
    /// shares: an entry with no length is left out, the others get their project from their
    /// labels, their tags made tags here; `finish` refuses overlaps.
    struct Collected {
        let format: ImportFormat
        let tagMap: TagMap
        let labelNoun: String
        private(set) var intervals: [ImportedInterval] = []
        private var validated: [String: String] = [:]
        // Each distinct list of the other tracker's tags made into tags once: a history has few.
        private var words: [[String]: [String]] = [:]

        /// `expected`: about how many entries there are (room made for them at once).
        init(format: ImportFormat, tagMap: TagMap, labelNoun: String, expected: Int = 0) {
            (self.format, self.tagMap, self.labelNoun) = (format, tagMap, labelNoun)
            intervals.reserveCapacity(expected)
        }

        mutating func add(_ time: EntryTime, _ entry: Entry) throws(TrackerError) {
            if time.end == time.start { return }
            let project = try ImportRules.project(time.labels, tagMap, entry.bad, noun: labelNoun, validated: &validated)
            var item = ImportedInterval(
                start: time.start, end: time.end, projectName: project, entry: entry.place, entryID: entry.id, note: time.note)
            if let known = words[time.tags] {
                item.tags = known
            } else {
                item.tags = ImportRules.tags(time.tags)
                words[time.tags] = item.tags
            }
            intervals.append(item)
        }

        func finish() throws(TrackerError) -> [ImportedInterval] {
            try ImportRules.checkOverlaps(intervals, format)
            return intervals
        }
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
            return TextEscaping.visible(text)
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
    /// Read in start order: as an export lists them (checked first, in one pass), else sorted
    /// by index (entries are not copied either way).
    static func checkOverlaps(_ items: [ImportedInterval], _ format: ImportFormat) throws(TrackerError) {
        func before(_ a: Int, _ b: Int) -> Bool { (items[a].start, items[a].entry) < (items[b].start, items[b].entry) }
        let inOrder = items.indices.isSorted(by: before)
        let sorted = inOrder ? [] : items.indices.sorted(by: before)
        var latest: Int?
        for place in items.indices {
            let item = items[inOrder ? place : sorted[place]]
            if let at = latest, case let previous = items[at], item.start < previous.end {
                let same = item.start == previous.start && item.end == previous.end
                    && item.projectName.map(Project.nameKey) == previous.projectName.map(Project.nameKey)
                if same { continue }
                let (first, second) = previous.entry < item.entry ? (previous, item) : (item, previous)
                throw .invalidImport(
                    "\(format.entryLabel(second.entry, id: second.entryID)) (\(span(second))) overlaps \(format.entryLabel(first.entry, id: first.entryID)) (\(span(first))). Nothing was imported.")
            }
            if latest == nil || item.end > items[latest!].end { latest = inOrder ? place : sorted[place] }
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
