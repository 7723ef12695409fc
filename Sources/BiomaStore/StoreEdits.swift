import BiomaCore
import Foundation
import GRDB

/// Editing recorded time: list, add, change, delete and split intervals, and undo. The rules
/// are `IntervalEdits` (BiomaCore); here each edit is one transaction that reads only the rows
/// around it (bounded index ranges on start and end), applies the plan, moves the running
/// stopwatch with the running interval, and writes the edit's journal entry
/// (`EditJournal`); `undo` takes the newest entry back and deletes it. The rows are read
/// and written by `IntervalRows`.
public struct StoreEdits: StorePart {
    let tracker: Tracker
}

extension StoreEdits {
    /// What `updateInterval` changes; nil leaves it. `project` `.some(nil)` removes it.
    public struct IntervalChanges: Sendable, Equatable {
        public var start: Micros?
        public var end: Micros?
        public var project: String??
        /// A note as given (validated by the edit; empty or blank: removed).
        public var note: String?
        public var replace = false
        /// Tags added to and taken from the interval's (`Tags.changed`).
        public var addTags: [String] = []
        public var removeTags: [String] = []
        public init(
            start: Micros? = nil, end: Micros? = nil, project: String?? = nil, note: String? = nil, replace: Bool = false
        ) {
            (self.start, self.end, self.project, self.note) = (start, end, project, note)
            self.replace = replace
        }
    }

    // MARK: Reading

    /// The intervals overlapping the days `from...to`, the running one included, by start.
    public func intervals(from: Day, to: Day) throws -> [IntervalRow] {
        guard from <= to else {
            throw TrackerError.invalidArgument("The range starts (\(from)) after it ends (\(to)).")
        }
        let low = rules.start(of: from)
        let high = rules.start(of: to.adding(days: 1))
        return try readOrThrow { try IntervalRows.rows($0, overlapping: low, high) }
    }

    // MARK: Edits

    /// Adds `[start, end)` as work under `project` (an id or name; nil: none), with a note
    /// (validated: `IntervalNote`). Returns its id.
    public func addInterval(
        start: Micros, end: Micros, project: String?, note: String? = nil, tags: [String] = [], replace: Bool,
        at now: Micros
    ) throws -> String {
        let note = try note.flatMap { raw throws(TrackerError) in try IntervalNote.validated(raw) }
        let tags = Tags.stored(try Tags.validated(tags))
        let plan = try edit(kind: "add", at: now) { model, db in
            let projectID = try project.map { try model.projects.resolve($0).id }
            let rows = try IntervalRows.rows(db, overlapping: start, max(end, start))
            var plan = try planned(model) {
                try IntervalEdits.add(
                    start: start, end: end, projectID: projectID, note: note, replace: replace, rows: rows, now: now,
                    nextID: try IntervalRows.nextID(db))
            }
            if let tags, let index = plan.changes.firstIndex(where: { $0.id == plan.resultID && $0.before == nil }) {
                plan.changes[index].after?.tags = tags
            }
            return (plan, "add " + describe(start: start, end: end, projectID: projectID, model))
        }
        return String(plan.resultID ?? 0)
    }

    /// Changes an interval's start, end, project and/or note.
    public func updateInterval(_ ref: String, _ changes: IntervalChanges, at now: Micros) throws {
        let note = try changes.note.map { raw throws(TrackerError) in try IntervalNote.validated(raw) }
        _ = try edit(kind: "update", moving: changes.start == nil ? nil : try? StoreEdits.intervalID(ref), at: now) { model, db in
            let id = try StoreEdits.intervalID(ref)
            guard let old = try IntervalRows.row(db, id: id) else { throw TrackerError.noSuchInterval(ref) }
            let projectID = try changes.project.map { ref in try ref.map { try model.projects.resolve($0).id } }
            let tags: String?? =
                changes.addTags.isEmpty && changes.removeTags.isEmpty
                ? nil : .some(Tags.stored(try Tags.changed(Tags.parse(old.tags), add: changes.addTags, remove: changes.removeTags)))
            var rows = [old]
            if changes.start != nil || changes.end != nil {
                let start = changes.start ?? old.start
                let end = old.end == nil ? Micros.max : (changes.end ?? old.end!)
                rows += try IntervalRows.rows(db, overlapping: start, max(start, end)).filter { $0.id != id }
            }
            let plan = try planned(model, editing: id) {
                try IntervalEdits.update(
                    id: id, start: changes.start, end: changes.end, projectID: projectID, note: note, tags: tags,
                    replace: changes.replace,
                    rows: rows, now: now, nextID: try IntervalRows.nextID(db))
            }
            return (plan, "edit of interval \(id) (was \(describe(old, model)))")
        }
    }

    /// Deletes a recorded interval (not the running one).
    public func deleteInterval(_ ref: String, at now: Micros) throws {
        _ = try edit(kind: "delete", at: now) { model, db in
            let id = try StoreEdits.intervalID(ref)
            guard let old = try IntervalRows.row(db, id: id) else { throw TrackerError.noSuchInterval(ref) }
            let plan = try planned(model) { try IntervalEdits.delete(id: id, rows: [old]) }
            return (plan, "delete of interval \(id) (\(describe(old, model)))")
        }
    }

    /// Splits an interval at `instant`; returns the id of the second part.
    public func splitInterval(_ ref: String, at instant: Micros, now: Micros) throws -> String {
        let plan = try edit(kind: "split", at: now) { model, db in
            let id = try StoreEdits.intervalID(ref)
            guard let old = try IntervalRows.row(db, id: id) else { throw TrackerError.noSuchInterval(ref) }
            let plan = try planned(model) {
                try IntervalEdits.split(id: id, at: instant, rows: [old], now: now, nextID: try IntervalRows.nextID(db))
            }
            let clock = EditText.describe(start: instant, end: instant, project: nil, rules: rules)
            return (plan, "split of interval \(id) at \(clock.prefix { $0 != "–" }) (\(describe(old, model)))")
        }
        return String(plan.resultID ?? 0)
    }

    /// Sets (or, with nil or blank text, removes) the running interval's note; returns the
    /// interval's id. With no running interval it is an `invalidArgument` saying so.
    public func setRunningNote(_ text: String?, at now: Micros) throws -> String {
        let note = try text.flatMap { raw throws(TrackerError) in try IntervalNote.validated(raw) }
        var id: Int64 = 0
        _ = try edit(kind: "update", at: now) { model, db in
            let open = try IntervalRows.runningRow(db, orElse: "give a recorded interval a note with `edit ID --note`")
            id = open.id
            let plan = try planned(model, editing: open.id) {
                try IntervalEdits.update(
                    id: open.id, start: nil, end: nil, projectID: nil, note: .some(note), replace: false, rows: [open],
                    now: now, nextID: try IntervalRows.nextID(db))
            }
            return (plan, "note of interval \(open.id) (was \(open.note.map { "“\($0)”" } ?? "none"))")
        }
        return String(id)
    }

    /// Takes the newest journaled edit back; returns what it undid, in words.
    public func undo(at now: Micros) throws -> String {
        var what = ""
        try change(at: now) { model, db in
            guard
                let entry = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT seq, what, run_saved, work_run_before, project_run_before, work_run_after, project_run_after,
                            added_first, added_digests
                        FROM edit_journal ORDER BY seq DESC LIMIT 1
                        """)
            else {
                throw TrackerError.nothingToUndo("Nothing to undo: no edit of recorded time is left in the journal.")
            }
            let seq: Int64 = entry[0]
            what = entry[1]
            // An import: the intervals it added, deleted once each is as it left them.
            if let first: Int64 = entry[7] {
                let digests: Data = entry[8] ?? Data()
                if let why = try EditJournal.addedChanged(from: first, digests: digests, db) {
                    throw TrackerError.invalidArgument("Cannot undo the \(what): \(why). Nothing was changed (the journal keeps it).")
                }
                try db.cachedStatement(sql: "DELETE FROM interval WHERE id >= ? AND id < ?")
                    .execute(arguments: [first, first + Int64(digests.count / 8)])
                try db.execute(sql: "DELETE FROM edit_journal WHERE seq = ?", arguments: [seq])
                return []
            }
            let changes = try EditJournal.journalRows(db, seq: seq)
            var current: [Int64: IntervalRow] = [:]
            for change in changes where change.after != nil {
                current[change.id] = try IntervalRows.row(db, id: change.id)
            }
            let restored = changes.compactMap(\.before)
            var others: [IntervalRow] = []
            if let low = restored.map(\.start).min(), let high = restored.map({ $0.end ?? .max }).max() {
                others = try IntervalRows.rows(db, overlapping: low, high)
            }
            let inverse: [RowChange]
            do {
                inverse = try IntervalEdits.undo(
                    changes, current: current, others: others, projects: Set(model.projects.map(\.id)))
            } catch let error as EditFailure {
                guard case .cannotUndo(let why) = error else { throw StoreEdits.trackerError(error, model, rules) }
                throw TrackerError.invalidArgument(
                    "Cannot undo the \(what): \(why). Nothing was changed (the journal keeps it).")
            }
            try IntervalRows.applyRows(inverse, db)
            if let open = inverse.compactMap(\.after).first(where: \.running) {
                let segment = OpenSegment(start: open.start, projectID: open.projectID)
                let saved: Bool = entry[2]
                let before: [Micros?] = [entry[3], entry[4]]
                let after: [Micros?] = [entry[5], entry[6]]
                if saved, model.state.open != nil, [model.state.workRunStart, model.state.projectRunStart] == after {
                    model.state.open = segment
                    model.state.workRunStart = before[0]
                    model.state.projectRunStart = before[1]
                } else {
                    model.state.follow(open: segment, movedStart: false)
                }
            }
            try db.execute(sql: "DELETE FROM edit_journal WHERE seq = ?", arguments: [seq])
            return []
        }
        return "Undid: " + what
    }

    /// Whether the newest journaled edit touched `rows` intervals or more (its undo is bulk
    /// work then): an import's added ones, or another edit's rows. Read without counting them
    /// all (a reset's are every interval).
    public func newestEditTouches(atLeast rows: Int) throws -> Bool {
        try readOrThrow { db in
            guard let entry = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT seq, length(added_digests) FROM edit_journal ORDER BY seq DESC LIMIT 1"))
            else { return false }
            if let bytes: Int = entry[1] { return bytes / 8 >= rows }
            return try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM edit_journal_row WHERE seq = ? LIMIT 1 OFFSET ?"),
                arguments: [entry[0] as Int64, rows - 1]) ?? false
        }
    }

    /// One edit in one transaction: `body` plans it from the model and the rows it reads; the
    /// plan is applied, the running stopwatch follows the running interval, and the journal
    /// gets the entry. An empty plan changes nothing and journals nothing.
    ///
    /// `moving`: the interval whose start the caller moves; when it is the running one, the
    /// stopwatch's run moves with it (`WorkTimer.follow`).
    func edit(
        kind: String, moving: Int64? = nil, at now: Micros, _ body: (Model, Database) throws -> (EditPlan, String)
    ) throws -> EditPlan {
        var result = EditPlan(changes: [], resultID: nil, nextID: 0)
        try change(at: now) { model, db in
            let (plan, what) = try body(model, db)
            result = plan
            guard !plan.isEmpty else { return [] }
            try IntervalRows.applyRows(plan.changes, db)
            var run: (before: [Micros?], after: [Micros?])?
            if let open = plan.openAfter {
                let before = [model.state.workRunStart, model.state.projectRunStart]
                let moved = moving == open.id && plan.openBefore?.id == open.id
                model.state.follow(open: OpenSegment(start: open.start, projectID: open.projectID), movedStart: moved)
                run = (before, [model.state.workRunStart, model.state.projectRunStart])
            }
            _ = try EditJournal.journal(kind: kind, what: what, changes: plan.changes, run: run, at: now, db)
            return []
        }
        return result
    }

    /// Runs a core rule, its refusals as `TrackerError`s naming intervals and projects.
    /// `editing`: the existing interval the edit moves, named so in an overlap.
    func planned(_ model: Model, editing: Int64? = nil, _ body: () throws -> EditPlan) throws -> EditPlan {
        do {
            return try body()
        } catch let error as EditFailure {
            throw StoreEdits.trackerError(error, model, rules, editing: editing)
        }
    }

    static func trackerError(_ failure: EditFailure, _ model: Model, _ rules: DayRules, editing: Int64? = nil) -> TrackerError {
        switch failure {
        case .noSuchInterval(let id): return .noSuchInterval(id)
        case .invalid(let text): return .invalidArgument(text)
        case .cannotUndo(let text): return .invalidArgument("Cannot undo: \(text).")
        case .overlap(let interval, let others):
            return .overlap(
                EditText.overlap(
                    interval, others, moved: interval.id == editing,
                    projectName: { id in model.projects.first { $0.id == id }?.name }, rules: rules))
        }
    }

    func describe(start: Micros, end: Micros?, projectID: String?, _ model: Model) -> String {
        EditText.describe(
            start: start, end: end, project: projectID.flatMap { id in model.projects.first { $0.id == id }?.name },
            rules: rules)
    }

    func describe(_ row: IntervalRow, _ model: Model) -> String {
        describe(start: row.start, end: row.end, projectID: row.projectID, model)
    }

    /// An interval id as callers give it: digits.
    static func intervalID(_ ref: String) throws -> Int64 {
        guard !ref.isEmpty, ref.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let id = Int64(ref), id > 0 else {
            throw TrackerError.noSuchInterval(ref)
        }
        return id
    }
}
