import BiomaCore
import BiomaStore
import CContract
import DBusKit

/// Editing the past on `org.biomatimer.Timer1`: list intervals with their ids, add, change,
/// delete and split them, and undo. Each edit is one store transaction and, through `change`,
/// one `PropertiesChanged` when it changes what is published (today's totals, the running
/// interval's start).
extension WorkService {
    func editMethods() -> [DBusMethod] {
        [
            DBusMethod(BIOMATIMER_TIMER1_LIST_INTERVALS, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("intervals", "aa{sv}")]
            ) { [self] in try listIntervals($0) },
            DBusMethod(BIOMATIMER_TIMER1_ADD_INTERVAL, in: [.init("start", "x"), .init("end", "x"), .init("project", "s"), .init("options", "a{sv}")],
                out: [.init("id", "s")]
            ) { [self] in try addInterval($0) },
            DBusMethod.action(BIOMATIMER_TIMER1_UPDATE_INTERVAL, in: [.init("id", "s"), .init("changes", "a{sv}")]) { [self] in try updateInterval($0) },
            DBusMethod.action(BIOMATIMER_TIMER1_DELETE_INTERVAL, in: [.init("id", "s")]) { [self] call in
                let id = call.arguments[0].string!
                try change { try tracker.edits.deleteInterval(id, at: $0) }
            },
            DBusMethod(BIOMATIMER_TIMER1_SPLIT_INTERVAL, in: [.init("id", "s"), .init("at", "x")], out: [.init("new_id", "s")]) { [self] call in
                let id = call.arguments[0].string!
                let at = call.arguments[1].int64!
                return [.string(try change { try tracker.edits.splitInterval(id, at: at, now: $0) })]
            },
            DBusMethod.deferred(BIOMATIMER_TIMER1_UNDO, out: [.init("what", "s")]) { [self] _, reply in undo(reply) },
        ]
    }

    /// Undo of an edit of many rows (an import, a history reset) is bulk work, on a worker
    /// while the loop answers others; of a few rows, a change on the loop like any other.
    static let bulkUndoRows = 1_000

    private func undo(_ reply: PendingReply) {
        if (try? tracker.edits.newestEditTouches(atLeast: Self.bulkUndoRows)) == true {
            return changeInBulk(reply: reply, size: Self.bulkUndoRows << 6, { try $0.edits.undo(at: $1) }) { [.string($0)] }
        }
        reply.finish(Result { [.string(try change { try tracker.edits.undo(at: $0) })] })
    }

    private func listIntervals(_ call: MethodCall) throws -> [DBusValue] {
        let now = clock.now()
        let today = tracker.rules.day(containing: now)
        let from = try Self.optionalDay(call.arguments[0].string!, "from_day") ?? today
        let to = try Self.optionalDay(call.arguments[1].string!, "to_day") ?? today
        if from > to { throw DaemonAPI.invalidArgument("from_day \(from) is after to_day \(to).") }
        let rows: [IntervalRow]
        do {
            rows = try tracker.edits.intervals(from: from, to: to)
        } catch {
            throw DaemonAPI.dbusError(error)
        }
        return [IntervalListing.list(rows.map(Self.listing))]
    }

    private func addInterval(_ call: MethodCall) throws -> [DBusValue] {
        let options = try Options(call.arguments[3].vardict ?? [:], allowed: ["Replace", "Note", "Tags"])
        let replace = try options.bool("Replace") == true
        let note = try options.string("Note")
        let tags = try options.strings("Tags") ?? []
        let start = call.arguments[0].int64!
        let end = call.arguments[1].int64!
        let project = call.arguments[2].string!
        return [
            .string(
                try change {
                    try tracker.edits.addInterval(
                        start: start, end: end, project: project.isEmpty ? nil : project, note: note, tags: tags, replace: replace,
                        at: $0)
                })
        ]
    }

    private func updateInterval(_ call: MethodCall) throws {
        let options = try Options(call.arguments[1].vardict ?? [:], allowed: ["Start", "End", "Project", "Note", "Replace", "AddTags", "RemoveTags"])
        var changes = StoreEdits.IntervalChanges()
        changes.start = try options.int64("Start")
        changes.end = try options.int64("End")
        if let project = try options.string("Project") { changes.project = .some(project.isEmpty ? nil : project) }
        changes.note = try options.string("Note")
        changes.replace = try options.bool("Replace") == true
        (changes.addTags, changes.removeTags) = (try options.strings("AddTags") ?? [], try options.strings("RemoveTags") ?? [])
        if changes.start == nil && changes.end == nil && changes.project == nil && changes.note == nil
            && changes.addTags.isEmpty && changes.removeTags.isEmpty
        {
            throw DaemonAPI.invalidArgument(
                "No changes given: use the keys Start, End, Project, Note, AddTags or RemoveTags (and Replace).")
        }
        let id = call.arguments[0].string!
        try change { try tracker.edits.updateInterval(id, changes, at: $0) }
    }

    static func listing(_ row: IntervalRow) -> IntervalListing {
        var listing = IntervalListing()
        (listing.id, listing.start, listing.end) = (String(row.id), row.start, row.end ?? 0)
        listing.project = row.projectID ?? ""
        listing.note = row.note ?? ""
        listing.tags = Tags.parse(row.tags)
        return listing
    }
}
