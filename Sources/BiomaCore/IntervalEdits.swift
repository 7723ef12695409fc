import BiomaText

/// An interval as the store keeps it: its row id, and no end while it runs (the open one).
public struct IntervalRow: Sendable, Equatable, Hashable {
    public var id: Int64
    public var start: Micros
    /// nil while it runs.
    public var end: Micros?
    public var projectID: String?
    /// A valid note (`IntervalNote.validated`), nil for none.
    public var note: String?
    /// Its tags as stored (`Tags.stored`: space-separated), nil for none.
    public var tags: String?

    public init(id: Int64, start: Micros, end: Micros?, projectID: String?, note: String? = nil, tags: String? = nil) {
        (self.id, self.start, self.end, self.projectID) = (id, start, end, projectID)
        (self.note, self.tags) = (note, tags)
    }

    public var running: Bool { end == nil }
    /// The end, or "forever" while it runs (it will go on past any instant given now).
    var until: Micros { end ?? .max }

    func overlaps(_ start: Micros, _ end: Micros) -> Bool { self.start < end && until > start }
}

/// One row of an edit: `before` nil means inserted, `after` nil deleted. An edit's list of
/// these is what the store applies and what its journal keeps to take it back.
public struct RowChange: Sendable, Equatable, Hashable {
    public var id: Int64
    public var before: IntervalRow?
    public var after: IntervalRow?

    public init(id: Int64, before: IntervalRow?, after: IntervalRow?) {
        (self.id, self.before, self.after) = (id, before, after)
    }
}

/// What an edit does to the history: the row changes (deletes first, inserts last, the open
/// row after every other), and the id the caller is told (the added or split-off interval).
public struct EditPlan: Sendable, Equatable {
    public var changes: [RowChange]
    public var resultID: Int64?
    /// The next unused id after the plan's inserts.
    public var nextID: Int64

    public init(changes: [RowChange], resultID: Int64?, nextID: Int64) {
        (self.changes, self.resultID, self.nextID) = (changes, resultID, nextID)
    }

    /// The running interval after the edit, when the edit touched it (`.some(nil)` never
    /// happens: no edit stops the timer).
    public var openAfter: IntervalRow? { changes.compactMap(\.after).first(where: \.running) }
    /// The running interval before the edit, when the edit touched it.
    public var openBefore: IntervalRow? { changes.compactMap(\.before).first(where: \.running) }
    public var isEmpty: Bool { changes.isEmpty }
}

/// Why an edit is refused; the store turns these into `TrackerError`s.
public enum EditFailure: Error, Equatable, Sendable {
    case noSuchInterval(String)
    /// The intervals in the way, in order.
    case overlap(IntervalRow, [IntervalRow])
    case invalid(String)
    /// Undo cannot take the edit back: a sentence why.
    case cannotUndo(String)
}

/// The rules of editing recorded time, pure: given the rows around an edit (every row
/// overlapping the time the edit touches, the edited row and the running one), what changes.
///
/// The rules: intervals never overlap; an interval ends after it starts; nothing ends after
/// now, and at most one interval runs (no end). An added or moved interval that overlaps
/// others is refused, naming them, unless `replace`: then the overlapped parts of the others
/// are cut away (trimmed, split in two, or deleted). The running interval's start can move
/// (not after now), it has no end to edit, it cannot be deleted (stop the timer first), and it
/// can be split at an instant up to now (the part after runs on under a new id). Project time
/// stays inside work by construction: an interval is work, with an optional project.
public enum IntervalEdits {
    /// Adds `[start, end)` under `projectID`, with a note (already validated). `rows` holds
    /// every row overlapping it and the running one. New ids are `nextID`, `nextID + 1`, …
    public static func add(
        start: Micros, end: Micros, projectID: String?, note: String? = nil, replace: Bool, rows: [IntervalRow],
        now: Micros, nextID: Int64
    ) throws(EditFailure) -> EditPlan {
        try checkSpan(start: start, end: end, now: now)
        var next = nextID
        let added = IntervalRow(id: next, start: start, end: end, projectID: projectID, note: note)
        next += 1
        var changes = try makeRoom(for: added, rows: rows, replace: replace, next: &next)
        changes.append(RowChange(id: added.id, before: nil, after: added))
        return EditPlan(changes: ordered(changes), resultID: added.id, nextID: next)
    }

    /// Changes an interval's start, end, project and/or note (nil: unchanged; `projectID` or
    /// `note` `.some(nil)` removes it; a note is validated before). The running interval's note
    /// can change (`biomatimer note`). `rows` holds the edited row, the running one and every
    /// row overlapping the interval's new time.
    public static func update(
        id: Int64, start: Micros?, end: Micros?, projectID: String??, note: String?? = nil, tags: String?? = nil,
        replace: Bool, rows: [IntervalRow], now: Micros, nextID: Int64
    ) throws(EditFailure) -> EditPlan {
        guard let old = rows.first(where: { $0.id == id }) else { throw .noSuchInterval(String(id)) }
        var new = old
        if let start { new.start = start }
        if let projectID { new.projectID = projectID }
        if let note { new.note = note }
        if let tags { new.tags = tags }
        if old.running {
            if end != nil {
                throw .invalid(
                    "Interval \(id) is running: it has no end to change (stop the timer first, or change its start).")
            }
            guard new.start <= now else { throw .invalid("The running interval cannot start after now.") }
            guard new.start >= 0 else { throw .invalid("The start must be after 1970.") }
        } else {
            if let end { new.end = end }
            if start != nil || end != nil { try checkSpan(start: new.start, end: new.end!, now: end == nil ? .max : now) }
        }
        if new == old { return EditPlan(changes: [], resultID: nil, nextID: nextID) }
        var next = nextID
        var changes: [RowChange] = []
        if new.start != old.start || new.end != old.end {
            changes = try makeRoom(for: new, rows: rows.filter { $0.id != id }, replace: replace, next: &next)
        }
        changes.append(RowChange(id: id, before: old, after: new))
        return EditPlan(changes: ordered(changes), resultID: nil, nextID: next)
    }

    /// Deletes a recorded interval; the running one is refused.
    public static func delete(id: Int64, rows: [IntervalRow]) throws(EditFailure) -> EditPlan {
        guard let old = rows.first(where: { $0.id == id }) else { throw .noSuchInterval(String(id)) }
        if old.running {
            throw .invalid("Interval \(id) is running: stop the timer first (or move its start).")
        }
        return EditPlan(changes: [RowChange(id: id, before: old, after: nil)], resultID: nil, nextID: 0)
    }

    /// Splits an interval at `at` (strictly inside it; for the running one, up to now): the
    /// first part keeps the id, the second gets `nextID` (and runs on, if the interval ran).
    public static func split(id: Int64, at: Micros, rows: [IntervalRow], now: Micros, nextID: Int64) throws(EditFailure)
        -> EditPlan
    {
        guard let old = rows.first(where: { $0.id == id }) else { throw .noSuchInterval(String(id)) }
        guard at > old.start, at < old.until, !old.running || at <= now else {
            throw .invalid(
                old.running
                    ? "The split instant must be after the running interval's start and not after now."
                    : "The split instant must be strictly inside the interval.")
        }
        var first = old
        first.end = at
        let second = IntervalRow(
            id: nextID, start: at, end: old.end, projectID: old.projectID, note: old.note, tags: old.tags)
        return EditPlan(
            changes: ordered([RowChange(id: id, before: old, after: first), RowChange(id: nextID, before: nil, after: second)]),
            resultID: nextID, nextID: nextID + 1)
    }

    /// What takes an edit back: each row of `changes` returns to its before-image. `current`
    /// holds the rows now under the ids the edit left behind (missing: gone since), `others`
    /// every other row overlapping the time restored, `projects` the ids of existing projects.
    ///
    /// Only the timer moves history without the journal, and only at its running end: so the
    /// rows the edit left must still be as it left them, except that the interval it left
    /// running may have been closed since (the timer stopped, or another project started);
    /// then the interval running before the edit is restored closed at that same instant.
    /// Anything else changed since (a row deleted with its project, an import in the way)
    /// refuses the undo with a sentence saying why, and nothing changes.
    public static func undo(
        _ changes: [RowChange], current: [Int64: IntervalRow], others: [IntervalRow], projects: Set<String>
    ) throws(EditFailure) -> [RowChange] {
        var closedAt: Micros?
        for change in changes {
            guard let after = change.after else { continue }
            guard let now = current[change.id] else {
                throw .cannotUndo("interval \(change.id) has been deleted since")
            }
            if now == after { continue }
            if after.running, now.start == after.start, now.projectID == after.projectID, now.note == after.note,
                now.tags == after.tags,
                let end = now.end
            {
                closedAt = end
                continue
            }
            throw .cannotUndo("interval \(change.id) has changed since")
        }
        var inverse: [RowChange] = []
        for change in changes {
            let now = change.after == nil ? nil : current[change.id]
            var restored = change.before
            if let before = restored, before.running, let closedAt {
                restored?.end = closedAt
                if closedAt <= before.start { restored = nil }
            }
            if let project = restored?.projectID, !projects.contains(project) {
                throw .cannotUndo("the project of interval \(change.id) has been deleted since")
            }
            if now != restored { inverse.append(RowChange(id: change.id, before: now, after: restored)) }
        }
        let restored = inverse.compactMap(\.after).sorted { $0.start < $1.start }
        for (a, b) in zip(restored, restored.dropFirst()) where a.until > b.start {
            throw .cannotUndo("intervals \(a.id) and \(b.id) would overlap")
        }
        let touched = Set(changes.map(\.id))
        for other in others.sorted(by: { $0.start < $1.start }) where !touched.contains(other.id) {
            // Restored rows are few but for a history reset: a binary search over them.
            var low = 0
            var high = restored.count
            while low < high {
                let middle = (low + high) / 2
                if restored[middle].until <= other.start { low = middle + 1 } else { high = middle }
            }
            if low < restored.count, restored[low].overlaps(other.start, other.until) {
                throw .cannotUndo("interval \(other.id), recorded since, is in the way")
            }
            if other.running, restored.contains(where: \.running) {
                throw .cannotUndo("interval \(other.id) runs now")
            }
        }
        return ordered(inverse)
    }

    // MARK: -

    /// A closed span: it ends after it starts, and not after now.
    static func checkSpan(start: Micros, end: Micros, now: Micros) throws(EditFailure) {
        guard end > start else { throw .invalid("The end must be after the start.") }
        guard end <= now else { throw .invalid("An interval cannot end in the future (after now).") }
        guard start >= 0 else { throw .invalid("The start must be after 1970.") }
    }

    /// The changes that clear `interval`'s time of other rows (with `replace`), or the refusal
    /// naming the rows in the way.
    static func makeRoom(for interval: IntervalRow, rows: [IntervalRow], replace: Bool, next: inout Int64) throws(
        EditFailure
    ) -> [RowChange] {
        let start = interval.start
        let end = interval.until
        let inTheWay = rows.filter { $0.id != interval.id && $0.overlaps(start, end) }.sorted { $0.start < $1.start }
        if inTheWay.isEmpty { return [] }
        guard replace else { throw .overlap(interval, inTheWay) }
        var changes: [RowChange] = []
        for row in inTheWay {
            let keepsHead = row.start < start
            let keepsTail = row.until > end
            switch (keepsHead, keepsTail) {
            case (false, false):
                changes.append(RowChange(id: row.id, before: row, after: nil))
            case (true, false):
                var head = row
                head.end = start
                changes.append(RowChange(id: row.id, before: row, after: head))
            case (false, true):
                var tail = row
                tail.start = end
                changes.append(RowChange(id: row.id, before: row, after: tail))
            case (true, true):
                var head = row
                head.end = start
                let tail = IntervalRow(
                    id: next, start: end, end: row.end, projectID: row.projectID, note: row.note, tags: row.tags)
                next += 1
                changes.append(RowChange(id: row.id, before: row, after: head))
                changes.append(RowChange(id: tail.id, before: nil, after: tail))
            }
        }
        return changes
    }

    /// Deletes, then updates and inserts, the running row last: so that applied in order no
    /// two rows ever run at once.
    static func ordered(_ changes: [RowChange]) -> [RowChange] {
        func rank(_ change: RowChange) -> Int {
            if change.after == nil { return 0 }
            if change.after?.running == true { return 3 }
            return change.before == nil ? 2 : 1
        }
        return changes.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }
}

// MARK: - The running interval after an edit

extension WorkTimer {
    /// An edit moved or replaced the running interval: the stopwatches follow it. When the
    /// user moves the running interval's start (`movedStart`: the "I started at 9, not 9:20"
    /// fix), so does the run's start if it began with that interval; otherwise (a split, a
    /// replaced head) the run goes on as it was. The project's run starts with the interval
    /// when the project changed. Sessions already counted stay (they are stopwatches, not
    /// history).
    public mutating func follow(open new: OpenSegment, movedStart: Bool) {
        guard let old = open, old != new else { return }
        open = new
        if movedStart, let run = workRunStart {
            workRunStart = run == old.start ? new.start : min(run, new.start)
        }
        if new.projectID == nil {
            projectRunStart = nil
        } else if new.projectID != old.projectID || projectRunStart == nil {
            projectRunStart = new.start
        } else if movedStart, let run = projectRunStart {
            projectRunStart = run == old.start ? new.start : max(run, new.start)
        }
        lastChange = max(lastChange, new.start)
    }
}

// MARK: - Words

/// Intervals and edits in words, in the rules' zone: `09:00–12:30 (Client A) on 2026-11-20`.
public enum EditText {
    /// `09:00` or `09:00:15`, and the local calendar day.
    static func local(_ instant: Micros, rules: DayRules) -> (day: Day, clock: String) {
        let second = floorDiv(instant, microsPerSecond)
        let local = second + rules.offsetSeconds(atSecond: second)
        let day = Day(ordinal: Int(floorDiv(local, 86_400)))
        return (day, ClockText.format(secondOfDay: local - Int64(day.ordinal) * 86_400))
    }

    /// `09:00` on the calendar day of `now`, else `2026-11-20 09:00`: an instant in a notice.
    public static func time(_ instant: Micros, now: Micros, rules: DayRules) -> String {
        let (day, clock) = local(instant, rules: rules)
        return day == local(now, rules: rules).day ? clock : "\(day) \(clock)"
    }

    /// `09:00–12:30 (Client A) on 2026-11-20`, `2026-11-20 22:00–2026-11-21 01:00`,
    /// `09:00–running on 2026-11-20`.
    public static func describe(start: Micros, end: Micros?, project: String?, rules: DayRules) -> String {
        let a = local(start, rules: rules)
        let name = project.map { " (\($0))" } ?? ""
        guard let end else { return "\(a.clock)–running\(name) on \(a.day)" }
        let b = local(end, rules: rules)
        if a.day == b.day || (b.day == a.day.adding(days: 1) && b.clock == "00:00") {
            return "\(a.clock)–\(b.clock)\(name) on \(a.day)"
        }
        return "\(a.day) \(a.clock)–\(b.day) \(b.clock)\(name)"
    }

    /// `interval 42 (09:00–12:30 (Client A) on 2026-11-20)`.
    public static func describe(_ row: IntervalRow, projectName: (String) -> String?, rules: DayRules) -> String {
        "interval \(row.id) (\(describe(start: row.start, end: row.end, project: row.projectID.flatMap(projectName), rules: rules)))"
    }

    /// The refusal of an overlap: what was asked and every interval in the way.
    /// `moved`: the interval is an existing one given new times (it is named by its id).
    public static func overlap(
        _ interval: IntervalRow, _ others: [IntervalRow], moved: Bool = false, projectName: (String) -> String?,
        rules: DayRules
    ) -> String {
        var span = describe(start: interval.start, end: interval.end, project: nil, rules: rules)
        if moved { span = "Interval \(interval.id) at \(span)" }
        let list = others.map { describe($0, projectName: projectName, rules: rules) }
        let names = list.count == 1 ? list[0] : list.dropLast().joined(separator: ", ") + " and " + list.last!
        return "\(span) overlaps \(names). Nothing was changed; to overwrite that time, give --replace."
    }
}
