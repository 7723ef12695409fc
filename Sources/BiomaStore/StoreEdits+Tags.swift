import BiomaCore
import GRDB

/// The running interval's tags (`biomatimer tag +call -meeting`, `start X +meeting`): one
/// journaled edit, so `undo` takes it back.
extension StoreEdits {
    /// Adds `add` to and takes `remove` from the running interval's tags; returns its id and its
    /// tags after. With no running interval, or a bad tag, it is an `invalidArgument` and
    /// nothing changes.
    public func changeRunningTags(add: [String], remove: [String], at now: Micros) throws -> (String, [String]) {
        var id: Int64 = 0
        var result: [String] = []
        _ = try edit(kind: "update", at: now) { model, db in
            let open = try IntervalRows.runningRow(db, orElse: "tag a recorded interval with `edit ID --tag T`")
            id = open.id
            result = try Tags.changed(Tags.parse(open.tags), add: add, remove: remove)
            let plan = try planned(model, editing: open.id) {
                try IntervalEdits.update(
                    id: open.id, start: nil, end: nil, projectID: nil, tags: .some(Tags.stored(result)), replace: false,
                    rows: [open], now: now, nextID: try IntervalRows.nextID(db))
            }
            return (plan, "tags of interval \(open.id) (were \(open.tags.map { Tags.parse($0).map { "+" + $0 }.joined(separator: " ") } ?? "none"))")
        }
        return (String(id), result)
    }
}
