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
                throw .invalidArgument("TagMap: the project for tag \(TextEscaping.visible(label)) is not a valid name: \(error.message)")
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

extension RandomAccessCollection {
    /// Whether no element comes before the one before it by `areInIncreasingOrder`: an
    /// import's entries, as an export lists them, are read in this order without a sorted copy.
    /// Inlinable, so it is specialized for the caller's elements: generic, it went through their
    /// metadata for every element (a tenth of a ten-year import's time).
    @inlinable
    public func isSorted(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows -> Bool {
        var previous = startIndex
        guard previous != endIndex else { return true }
        var current = index(after: previous)
        while current != endIndex {
            if try areInIncreasingOrder(self[current], self[previous]) { return false }
            previous = current
            formIndex(after: &current)
        }
        return true
    }
}
