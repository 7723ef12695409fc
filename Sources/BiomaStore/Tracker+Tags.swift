import BiomaCore
import GRDB

/// The running interval's tags (`biomatimer tag +call -meeting`, `start X +meeting`): one
/// journaled edit, so `undo` takes it back.
extension Tracker {
    /// Adds `add` to and takes `remove` from the running interval's tags; returns its id and its
    /// tags after. With no running interval, or a bad tag, it is an `invalidArgument` and
    /// nothing changes.
    public func changeRunningTags(add: [String], remove: [String], at now: Micros) throws -> (String, [String]) {
        var id: Int64 = 0
        var result: [String] = []
        _ = try edit(kind: "update", at: now) { model, db in
            let open = try Tracker.runningRow(db, orElse: "tag a recorded interval with `edit ID --tag T`")
            id = open.id
            result = try Tags.changed(Tags.parse(open.tags), add: add, remove: remove)
            let plan = try planned(model, editing: open.id) {
                try IntervalEdits.update(
                    id: open.id, start: nil, end: nil, projectID: nil, tags: .some(Tags.stored(result)), replace: false,
                    rows: [open], now: now, nextID: try Tracker.nextID(db))
            }
            return (plan, "tags of interval \(open.id) (were \(open.tags.map { Tags.parse($0).map { "+" + $0 }.joined(separator: " ") } ?? "none"))")
        }
        return (String(id), result)
    }
}

extension Tracker {
    /// Gives the intervals an import just added (ids from `firstID`) their tags: one UPDATE
    /// per tagged interval, found by its start among the added rows (the insert itself is the
    /// same with or without tags).
    static func tagImported(_ items: [(start: Micros, end: Micros, tags: [String])], idsFrom firstID: Int64, _ db: Database) throws {
        let tagged = items.filter { !$0.tags.isEmpty }
        guard !tagged.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE interval SET tags = ? WHERE id >= ? AND start_us = ? AND end_us = ?")
        for item in tagged { try update.execute(arguments: [Tags.stored(item.tags), firstID, item.start, item.end]) }
    }
}
