/// A note on an interval: one line of at most 500 characters, saying what the time was for.
public enum IntervalNote {
    public static let maxLength = 500
    /// Beyond what 500 characters need, even of long emoji sequences: a bound on what a
    /// "character" built of many combining marks may carry.
    static let maxScalars = 4 * maxLength

    /// The note to store: surrounding white space trimmed; nil when nothing is left (the note
    /// is removed). A note longer than 500 characters, or holding a control character (tab,
    /// line break, escape, …) or a line or paragraph separator, is an `invalidArgument` saying
    /// so, and nothing is changed.
    public static func validated(_ raw: String) throws(TrackerError) -> String? {
        let note = raw.trimmingCharacters(in: .whitespaces)
        if note.isEmpty { return nil }
        if let bad = note.unicodeScalars.first(where: isForbidden) {
            let what = bad == "\n" || bad == "\r" || bad == "\u{2028}" || bad == "\u{2029}"
                ? "a line break: a note is one line" : "a control character (U+\(hex(bad.value)))"
            throw .invalidArgument("The note holds \(what). Nothing was changed.")
        }
        let count = note.count
        guard count <= maxLength, note.unicodeScalars.count <= maxScalars else {
            throw .invalidArgument(
                "The note is \(count) characters long: at most \(maxLength) are allowed. Nothing was changed.")
        }
        return note
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// Notes listed per day and project (`report --notes`).
public struct NoteDigest: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var day: Day
        /// nil: work without a project.
        public var projectID: String?
        /// In the order of the intervals' starts; a note repeated that day and project once.
        public var notes: [String]

        public init(day: Day, projectID: String?, notes: [String]) {
            (self.day, self.projectID, self.notes) = (day, projectID, notes)
        }
    }

    public var entries: [Entry]

    /// Groups the notes of `rows` by the day each interval starts on and its project; days in
    /// order, projects in list order (`projectOrder`: ids), no project last.
    public init(rows: [IntervalRow], rules: DayRules, projectOrder: [String]) {
        let rank = Dictionary(projectOrder.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        struct Key: Hashable {
            var day: Day
            var project: String?
        }
        var grouped: [Key: [String]] = [:]
        for row in rows.sorted(by: { $0.start < $1.start }) {
            guard let note = row.note else { continue }
            let key = Key(day: rules.day(containing: row.start), project: row.projectID)
            if grouped[key]?.contains(note) != true { grouped[key, default: []].append(note) }
        }
        entries = grouped.map { Entry(day: $0.key.day, projectID: $0.key.project, notes: $0.value) }
            .sorted {
                if $0.day != $1.day { return $0.day < $1.day }
                let a = $0.projectID.map { rank[$0] ?? Int.max - 1 } ?? Int.max
                let b = $1.projectID.map { rank[$0] ?? Int.max - 1 } ?? Int.max
                return (a, $0.projectID ?? "") < (b, $1.projectID ?? "")
            }
    }
}
