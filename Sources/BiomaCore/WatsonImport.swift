import BiomaText
import Foundation

// Reading Watson's frames file (what every import follows: Imports.swift, ImportRules.swift).

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
