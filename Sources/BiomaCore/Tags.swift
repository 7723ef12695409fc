import BiomaText

/// An interval's tags: words (letters, digits, `-`, `_`, `.`), at most 32 characters each, at
/// most 16 per interval, kept in the order first given, without duplicates (ignoring case).
/// Stored as one space-separated text, which is also how sync carries them (one field).
public enum Tags {
    public static let maxCount = TagText.maxCount

    /// `raw` (a leading `+` allowed) checked as a tag (`TagText`).
    public static func validated(_ raw: String) throws(TrackerError) -> String {
        if let problem = TagText.problem(raw) { throw .invalidArgument(problem) }
        return TagText.word(raw)
    }

    /// Checked tags, duplicates (ignoring case) dropped, at most `maxCount`.
    public static func validated(_ list: [String]) throws(TrackerError) -> [String] {
        var out: [String] = []
        for raw in list {
            let tag = try validated(raw)
            if !out.contains(where: { $0.lowercased() == tag.lowercased() }) { out.append(tag) }
        }
        guard out.count <= maxCount else {
            throw .invalidArgument("An interval has at most \(maxCount) tags; this would have \(out.count).")
        }
        return out
    }

    /// `current` with `add` appended and `remove` taken out (ignoring case), checked.
    public static func changed(_ current: [String], add: [String], remove: [String]) throws(TrackerError) -> [String] {
        let removing = Set(try remove.map { (raw) throws(TrackerError) in try validated(raw).lowercased() })
        return try validated(current.filter { !removing.contains($0.lowercased()) } + add)
    }

    /// The stored text: nil for none.
    public static func stored(_ tags: [String]) -> String? { tags.isEmpty ? nil : tags.joined(separator: " ") }

    /// The tags of a stored text.
    public static func parse(_ stored: String?) -> [String] {
        (stored ?? "").split(separator: " ").map(String.init)
    }
}
