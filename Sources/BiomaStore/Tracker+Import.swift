import BiomaCore
import GRDB

/// Time from other trackers (`TimewarriorImport`, `WatsonImport`), recorded all or nothing.
extension Tracker {
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
            var projectIDs: [String: String] = [:]
            for project in model.projects { projectIDs[Project.nameKey(project.name)] = project.id }
            // Names as written, to their project (the many entries of one project look it up once).
            var byName: [String: String] = [:]
            var rows: [(interval: Interval, line: Int)] = []
            rows.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                var projectID: String?
                if let name = item.projectName {
                    if let id = byName[name] {
                        projectID = id
                    } else {
                        let key = Project.nameKey(name)
                        let id = try projectIDs[key] ?? Tracker.insertProject(name: name, color: "", into: &model, db)
                        projectIDs[key] = id
                        byName[name] = id
                        projectID = id
                    }
                }
                rows.append((Interval(start: item.start, end: item.end, projectID: projectID), index))
            }
            let firstID = try Tracker.nextID(db)
            do {
                added = try Tracker.insertHistory(
                    rows, state: model.state, rules: rules,
                    name: { format.entryLabel(items[$0].entry, id: items[$0].entryID) }, note: { items[$0].note }, db)
            } catch TrackerError.invalidArgument(let message) {
                throw TrackerError.invalidImport(message)
            }
            try Tracker.tagImported(items.map { ($0.start, $0.end, $0.tags) }, idsFrom: firstID, db)
            // Undo takes the whole import back (the projects it created stay).
            if !added.isEmpty {
                try Tracker.journalAdded(
                    idsFrom: firstID, what: "import of \(added.count) interval\(added.count == 1 ? "" : "s") (\(format.rawValue))",
                    at: now, db)
            }
            return []
        }
        return (added.count, added)
    }
}
