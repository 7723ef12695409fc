import BiomaCore
import GRDB

/// Time from a file: biomatimer's own CSV (`IntervalCSV`) and other trackers
/// (`TimewarriorImport`, `WatsonImport`), recorded all or nothing through `insertHistory`,
/// each interval's note and tags in its own insert.
public struct StoreImports: StorePart {
    let tracker: Tracker
}

extension StoreImports {
    /// Imports `exportCSV`'s format, all or nothing; returns the number of intervals added.
    /// Projects are matched by name (ignoring case) or created with the row's colour. A row equal
    /// to recorded time is skipped; a row overlapping other recorded time is an error.
    public func importCSV(_ csv: String, at now: Micros) throws -> Int {
        let rows = try IntervalCSV.decode(csv)
        var count = 0
        try change(at: now) { model, db in
            var items: [(interval: Interval, line: Int)] = []
            items.reserveCapacity(rows.count)
            // Notes and tags by line: the few rows that have them.
            var notes: [Int: String] = [:]
            var tags: [Int: String] = [:]
            var projects = ImportProjects(model.projects)
            for row in rows {
                if let note = row.note { notes[row.line] = note }
                if let stored = Tags.stored(row.tags) { tags[row.line] = stored }
                let projectID = try row.projectName.map {
                    try projects.id(named: $0, color: row.color ?? "", model: &model, db)
                }
                items.append((Interval(start: row.start, end: row.end, projectID: projectID), row.line))
            }
            count = try StoreImports.recordImport(
                items, state: model.state, rules: rules, what: "csv", at: now, note: { notes[$0] }, tags: { tags[$0] }, db)
            return []
        }
        return count
    }

    /// Records imported intervals in one transaction; returns how many were added and their
    /// interval rowids (for taking the import back). Projects are matched by name ignoring
    /// case, or created with the default colour. An interval equal to recorded time is skipped,
    /// so importing the same data twice adds nothing; one overlapping other recorded time or
    /// the running interval, or ending after `now`, is an `invalidImport` naming its entry, and
    /// nothing is written.
    public func importIntervals(
        _ items: [ImportedInterval], format: ImportFormat, at now: Micros
    ) throws -> (count: Int, addedIDs: [Int64]) {
        for item in items where item.end > now {
            throw TrackerError.invalidImport(
                "\(format.entryLabel(item.entry, id: item.entryID)) ends in the future (\(IntervalCSV.formatInstant(item.end, rules: rules))). Nothing was imported."
            )
        }
        var added: [Int64] = []
        try change(at: now) { model, db in
            var projects = ImportProjects(model.projects)
            var rows: [(interval: Interval, line: Int)] = []
            rows.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                let projectID = try item.projectName.map { try projects.id(named: $0, color: "", model: &model, db) }
                rows.append((Interval(start: item.start, end: item.end, projectID: projectID), index))
            }
            // The stored text of each distinct tag list, made once (a history has few).
            var stored: [[String]: String] = [:]
            do {
                added = try StoreImports.insertImport(
                    rows, state: model.state, rules: rules, what: format.rawValue, at: now,
                    name: { format.entryLabel(items[$0].entry, id: items[$0].entryID) }, note: { items[$0].note },
                    tags: { index in
                        let tags = items[index].tags
                        guard !tags.isEmpty else { return nil }
                        if let known = stored[tags] { return known }
                        let text = Tags.stored(tags)
                        stored[tags] = text
                        return text
                    }, db)
            } catch TrackerError.invalidArgument(let message) {
                throw TrackerError.invalidImport(message)
            }
            return []
        }
        return (added.count, added)
    }

    /// `insertImport`, returning how many were added.
    static func recordImport(
        _ rows: [(interval: Interval, line: Int)], state: WorkTimer, rules: DayRules, what: String, at now: Micros,
        note: @escaping (Int) -> String?, tags: @escaping (Int) -> String?, _ db: Database
    ) throws -> Int {
        try insertImport(rows, state: state, rules: rules, what: what, at: now, note: note, tags: tags, db).count
    }

    /// Inserts an import's intervals (`insertHistory`) and journals them as one edit that undo
    /// takes back whole (the projects it created stay); returns the rowids added.
    static func insertImport(
        _ rows: [(interval: Interval, line: Int)], state: WorkTimer, rules: DayRules, what: String, at now: Micros,
        name: ((Int) -> String)? = nil, note: @escaping (Int) -> String?, tags: @escaping (Int) -> String?, _ db: Database
    ) throws -> [Int64] {
        let added = try StoreHistory.insertHistory(rows, state: state, rules: rules, name: name, note: note, tags: tags, db)
        if added.count > 0 {
            try EditJournal.journalAdded(
                added, what: "import of \(added.count) interval\(added.count == 1 ? "" : "s") (\(what))", at: now, db)
        }
        return added.ids
    }
}

/// An import's projects by name: matched ignoring case (`Project.nameKey`), or created; the
/// many entries of one project look it up once (a scan of the projects per row, each name
/// folded again, was a third of a ten-year import).
struct ImportProjects {
    private var byKey: [String: String] = [:]
    /// Names as written to their project.
    private var byName: [String: String] = [:]

    init(_ projects: [Project]) {
        for project in projects { byKey[Project.nameKey(project.name)] = project.id }
    }

    /// The id of the project named `name`, made with `color` when there is none.
    mutating func id(named name: String, color: String, model: inout Tracker.Model, _ db: Database) throws -> String {
        if let id = byName[name] { return id }
        let key = Project.nameKey(name)
        let id = try byKey[key] ?? Tracker.insertProject(name: name, color: color, into: &model, db)
        (byKey[key], byName[name]) = (id, id)
        return id
    }
}
