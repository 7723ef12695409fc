import BiomaCore
import Foundation
import PropertyBased
import Testing

/// The rows of an interval table in memory, changed only through the core's plans, as the
/// store applies them.
struct EditTable: Equatable {
    var rows: [Int64: IntervalRow] = [:]
    var nextID: Int64 = 1

    init(_ rows: [IntervalRow] = []) {
        for row in rows { self.rows[row.id] = row }
        nextID = (rows.map(\.id).max() ?? 0) + 1
    }

    var sorted: [IntervalRow] { rows.values.sorted { $0.start < $1.start } }
    var running: IntervalRow? { rows.values.first(where: \.running) }

    /// What the store reads around [low, high): the overlapping rows and the running one.
    func window(_ low: Micros, _ high: Micros) -> [IntervalRow] {
        var result = rows.values.filter { $0.start < high && ($0.end ?? .max) > low }
        if let running, !result.contains(running) { result.append(running) }
        return result
    }

    mutating func apply(_ changes: [RowChange]) {
        for change in changes {
            #expect(rows[change.id] == change.before, "row \(change.id) is not as the plan expects")
            rows[change.id] = change.after
        }
    }

    mutating func apply(_ plan: EditPlan) {
        apply(plan.changes)
        nextID = max(nextID, plan.nextID)
    }

    /// The rules every edit keeps.
    func checkInvariants(now: Micros) {
        let all = sorted
        #expect(all.filter(\.running).count <= 1)
        for row in all {
            if let end = row.end {
                #expect(end > row.start)
            } else {
                #expect(row.start <= now)
            }
        }
        for (a, b) in zip(all, all.dropFirst()) {
            #expect(a.end != nil, "only the last interval may run")
            #expect((a.end ?? .max) <= b.start, "\(a) overlaps \(b)")
        }
    }

    func undo(_ changes: [RowChange], projects: Set<String> = ["a", "b"]) throws(EditFailure) -> [RowChange] {
        var current: [Int64: IntervalRow] = [:]
        for change in changes where change.after != nil { current[change.id] = rows[change.id] }
        let restored = changes.compactMap(\.before)
        let low = restored.map(\.start).min() ?? 0
        let high = restored.map { $0.end ?? .max }.max() ?? 0
        return try IntervalEdits.undo(changes, current: current, others: window(low, high), projects: projects)
    }
}

@Suite struct IntervalEditRules {
    let day = t("2026-11-20T00:00:00+01:00")
    var now: Micros { day + 18 * hour }
    func at(_ h: Double) -> Micros { day + Micros(h * Double(hour)) }
    func row(_ id: Int64, _ from: Double, _ to: Double?, _ project: String? = nil) -> IntervalRow {
        IntervalRow(id: id, start: at(from), end: to.map(at), projectID: project)
    }

    /// 09–10 (a), 11–12, 13– running (b).
    var table: EditTable { EditTable([row(1, 9, 10, "a"), row(2, 11, 12), row(3, 13, nil, "b")]) }

    func add(_ t: EditTable, _ from: Double, _ to: Double, replace: Bool = false) throws(EditFailure) -> EditPlan {
        try IntervalEdits.add(
            start: at(from), end: at(to), projectID: "a", replace: replace, rows: t.window(at(from), at(to)), now: now,
            nextID: t.nextID)
    }

    @Test func addIntoAGap() throws {
        var t = table
        let plan = try add(t, 10, 11)
        #expect(plan.resultID == 4)
        #expect(plan.changes == [RowChange(id: 4, before: nil, after: row(4, 10, 11, "a"))])
        t.apply(plan)
        t.checkInvariants(now: now)
    }

    @Test func addOverlappingIsRefusedNamingEveryIntervalInTheWay() {
        #expect(throws: EditFailure.overlap(row(4, 9.5, 11.5, "a"), [row(1, 9, 10, "a"), row(2, 11, 12)])) {
            try add(table, 9.5, 11.5)
        }
        // Touching is not overlapping.
        #expect(throws: Never.self) { try add(table, 10, 11) }
        // The running interval goes on past now: anything after its start is in its way.
        #expect(throws: EditFailure.overlap(row(4, 14, 15, "a"), [row(3, 13, nil, "b")])) { try add(table, 14, 15) }
    }

    @Test func addWithReplaceTrimsSplitsAndDeletes() throws {
        var t = EditTable([row(1, 9, 10, "a"), row(2, 10.5, 10.75), row(3, 11, 12, "b"), row(4, 13, 17)])
        let plan = try add(t, 9.5, 11.5, replace: true)
        t.apply(plan)
        #expect(t.sorted == [row(1, 9, 9.5, "a"), row(5, 9.5, 11.5, "a"), row(3, 11.5, 12, "b"), row(4, 13, 17)])
        // The middle of an interval: it is split around the new one.
        let middle = try add(t, 14, 15, replace: true)
        t.apply(middle)
        #expect(t.sorted == [row(1, 9, 9.5, "a"), row(5, 9.5, 11.5, "a"), row(3, 11.5, 12, "b"), row(4, 13, 14), row(6, 14, 15, "a"), row(7, 15, 17)])
        #expect(middle.resultID == 6)
        t.checkInvariants(now: now)
    }

    @Test func addWithReplaceInsideTheRunningIntervalSplitsIt() throws {
        var t = table
        let plan = try add(t, 14, 15, replace: true)
        #expect(plan.openBefore == row(3, 13, nil, "b"))
        #expect(plan.openAfter == row(5, 15, nil, "b"))
        t.apply(plan)
        #expect(t.sorted == [row(1, 9, 10, "a"), row(2, 11, 12), row(3, 13, 14, "b"), row(4, 14, 15, "a"), row(5, 15, nil, "b")])
        t.checkInvariants(now: now)
        // Over the running interval's start: its start moves to the added end.
        var u = table
        u.apply(try add(u, 12.5, 14, replace: true))
        #expect(u.sorted == [row(1, 9, 10, "a"), row(2, 11, 12), row(4, 12.5, 14, "a"), row(3, 14, nil, "b")])
    }

    @Test func addChecksItsSpan() {
        #expect(throws: EditFailure.invalid("The end must be after the start.")) { try add(table, 10, 10) }
        #expect(throws: EditFailure.invalid("The end must be after the start.")) { try add(table, 11, 10) }
        #expect(throws: EditFailure.invalid("An interval cannot end in the future (after now).")) {
            try add(EditTable(), 17, 19)
        }
    }

    func update(
        _ t: EditTable, _ id: Int64, start: Double? = nil, end: Double? = nil, project: String?? = nil, replace: Bool = false
    ) throws(EditFailure) -> EditPlan {
        try IntervalEdits.update(
            id: id, start: start.map(at), end: end.map(at), projectID: project, replace: replace,
            rows: Array(t.rows.values), now: now, nextID: t.nextID)
    }

    @Test func updateMovesAndRenames() throws {
        var t = table
        t.apply(try update(t, 1, start: 8, end: 10.5, project: .some(nil)))
        #expect(t.rows[1] == row(1, 8, 10.5))
        #expect(throws: EditFailure.overlap(row(1, 8, 11.5), [row(2, 11, 12)])) { try update(t, 1, end: 11.5) }
        t.apply(try update(t, 1, end: 11.5, replace: true))
        #expect(t.sorted.prefix(2) == [row(1, 8, 11.5), row(2, 11.5, 12)])
        #expect(throws: EditFailure.invalid("The end must be after the start.")) { try update(t, 1, start: 12) }
        #expect(throws: EditFailure.noSuchInterval("99")) { try update(t, 99, start: 1) }
        // No change: an empty plan, nothing to journal.
        #expect(try update(t, 1, start: 8).isEmpty)
    }

    @Test func theRunningIntervalsStartMovesButItHasNoEnd() throws {
        var t = table
        t.apply(try update(t, 3, start: 12.5))
        #expect(t.running == row(3, 12.5, nil, "b"))
        #expect(throws: EditFailure.overlap(row(3, 11.5, nil, "b"), [row(2, 11, 12)])) { try update(t, 3, start: 11.5) }
        t.apply(try update(t, 3, start: 11.5, replace: true))
        #expect(t.sorted.suffix(2) == [row(2, 11, 11.5), row(3, 11.5, nil, "b")])
        #expect(throws: EditFailure.self) { try update(t, 3, end: 14) }
        #expect(throws: EditFailure.invalid("The running interval cannot start after now.")) { try update(t, 3, start: 19) }
        #expect(throws: EditFailure.invalid("The start must be after 1970.")) {
            try IntervalEdits.update(
                id: 3, start: .min, end: nil, projectID: nil, replace: true, rows: Array(t.rows.values), now: now, nextID: t.nextID)
        }
        t.apply(try update(t, 3, start: 18))  // up to now
        t.checkInvariants(now: now)
    }

    @Test func deleteAndSplit() throws {
        var t = table
        #expect(throws: EditFailure.self) { try IntervalEdits.delete(id: 3, rows: [t.rows[3]!]) }
        t.apply(try IntervalEdits.delete(id: 2, rows: [t.rows[2]!]))
        #expect(t.rows[2] == nil)
        let split = try IntervalEdits.split(id: 1, at: at(9.25), rows: [t.rows[1]!], now: now, nextID: t.nextID)
        #expect(split.resultID == 4)
        t.apply(split)
        #expect(t.sorted.prefix(2) == [row(1, 9, 9.25, "a"), row(4, 9.25, 10, "a")])
        for bad in [9.0, 10, 8, 11] {
            #expect(throws: EditFailure.self) {
                try IntervalEdits.split(id: 1, at: at(bad), rows: [t.rows[1]!], now: now, nextID: t.nextID)
            }
        }
        // The running interval: up to now; the second part runs on.
        let running = try IntervalEdits.split(id: 3, at: now, rows: [t.rows[3]!], now: now, nextID: t.nextID)
        t.apply(running)
        #expect(t.sorted.suffix(2) == [row(3, 13, 18, "b"), row(5, 18, nil, "b")])
        #expect(throws: EditFailure.self) {
            try IntervalEdits.split(id: 5, at: now + 1, rows: [t.rows[5]!], now: now, nextID: t.nextID)
        }
        t.checkInvariants(now: now)
    }

    @Test func undoRestoresExactly() throws {
        let plans: [(EditTable) throws -> EditPlan] = [
            { try add($0, 9.5, 14, replace: true) },
            { try update($0, 3, start: 10.5, replace: true) },
            { try IntervalEdits.split(id: 3, at: at(15), rows: [$0.rows[3]!], now: now, nextID: $0.nextID) },
            { try IntervalEdits.delete(id: 2, rows: [$0.rows[2]!]) },
        ]
        for make in plans {
            var t = table
            let plan = try make(t)
            t.apply(plan)
            t.apply(try t.undo(plan.changes))
            #expect(t.rows == table.rows)
        }
    }

    @Test func undoAfterTheRunningIntervalClosedEndsTheRestoredOneThen() throws {
        // The start moved, then the timer stopped at 17: undo restores the start, not the run.
        var t = table
        let move = try update(t, 3, start: 12.5)
        t.apply(move)
        t.rows[3]!.end = at(17)
        t.apply(try t.undo(move.changes))
        #expect(t.rows[3] == row(3, 13, 17, "b"))
        // Split of the running one, then the project changed at 17 (a new running row).
        var u = table
        let split = try IntervalEdits.split(id: 3, at: at(15), rows: [u.rows[3]!], now: now, nextID: u.nextID)
        u.apply(split)
        u.rows[4]!.end = at(17)
        u.rows[5] = row(5, 17, nil, "a")
        u.apply(try u.undo(split.changes))
        #expect(u.sorted.suffix(2) == [row(3, 13, 17, "b"), row(5, 17, nil, "a")])
        u.checkInvariants(now: now)
    }

    @Test func undoRefusesWhatChangedSince() throws {
        var t = table
        let plan = try add(t, 10, 11)
        t.apply(plan)
        var deleted = t
        deleted.rows[4] = nil
        #expect(throws: EditFailure.cannotUndo("interval 4 has been deleted since")) { try deleted.undo(plan.changes) }
        var moved = t
        moved.rows[4]!.start = at(10.5)
        #expect(throws: EditFailure.cannotUndo("interval 4 has changed since")) { try moved.undo(plan.changes) }
        // A deleted interval cannot come back over time recorded since, nor without its project.
        var u = table
        let delete = try IntervalEdits.delete(id: 1, rows: [u.rows[1]!])
        u.apply(delete)
        #expect(throws: EditFailure.cannotUndo("the project of interval 1 has been deleted since")) {
            try u.undo(delete.changes, projects: ["b"])
        }
        u.rows[9] = row(9, 9.5, 10)
        #expect(throws: EditFailure.cannotUndo("interval 9, recorded since, is in the way")) { try u.undo(delete.changes) }
    }

    @Test func theStopwatchFollowsTheRunningInterval() {
        var state = WorkTimer()
        state.open = OpenSegment(start: at(13), projectID: "b")
        state.workRunStart = at(13)
        state.projectRunStart = at(13)
        state.lastChange = at(13)
        var moved = state
        moved.follow(open: OpenSegment(start: at(12.5), projectID: "b"), movedStart: true)
        #expect(moved.workRunStart == at(12.5) && moved.projectRunStart == at(12.5))
        // A run that began earlier (another project first) keeps its start; a project change
        // starts the project's run with the interval; no project, no project run.
        var switched = state
        switched.workRunStart = at(11)
        switched.follow(open: OpenSegment(start: at(12.5), projectID: "a"), movedStart: true)
        #expect(switched.workRunStart == at(11) && switched.projectRunStart == at(12.5))
        switched.follow(open: OpenSegment(start: at(12.5), projectID: nil), movedStart: true)
        #expect(switched.projectRunStart == nil)
        var later = state
        later.follow(open: OpenSegment(start: at(14), projectID: "b"), movedStart: true)
        #expect(later.workRunStart == at(14) && later.lastChange == at(14))
        // A split of the running interval: the run goes on from where it began.
        var split = state
        split.follow(open: OpenSegment(start: at(14), projectID: "b"), movedStart: false)
        #expect(split.workRunStart == at(13) && split.projectRunStart == at(13) && split.open?.start == at(14))
    }

    @Test func words() {
        let rules = berlin
        #expect(EditText.describe(start: at(9), end: at(12.5), project: "Client A", rules: rules) == "09:00–12:30 (Client A) on 2026-11-20")
        #expect(EditText.describe(start: at(22), end: at(25), project: nil, rules: rules) == "2026-11-20 22:00–2026-11-21 01:00")
        #expect(EditText.describe(start: at(22), end: at(24), project: nil, rules: rules) == "22:00–00:00 on 2026-11-20")
        #expect(EditText.describe(start: at(13), end: nil, project: nil, rules: rules) == "13:00–running on 2026-11-20")
        let text = EditText.overlap(
            row(4, 9.5, 11.5), [row(1, 9, 10, "a"), row(2, 11, 12)], projectName: { $0 == "a" ? "Client A" : nil },
            rules: rules)
        #expect(
            text
                == "09:30–11:30 on 2026-11-20 overlaps interval 1 (09:00–10:00 (Client A) on 2026-11-20) and interval 2 (11:00–12:00 on 2026-11-20). Nothing was changed; to overwrite that time, give --replace."
        )
    }
}

/// Random edits on random tables: the rules hold after every one, and undoing them all, newest
/// first, gives back the table exactly.
@Suite struct IntervalEditProperties {
    static let origin = t("2026-11-20T00:00:00+01:00")
    static let now = origin + 24 * hour

    /// One random number → one edit (its kind, ids, instants in quarter hours, replace or not).
    static func plan(_ code: Int, _ table: EditTable) -> EditPlan? {
        let ids = table.sorted.map(\.id)
        let a = origin + Micros(code / 7 % 96) * 15 * minute
        let b = a + Micros(code / 700 % 16 + 1) * 15 * minute - Micros(code / 11_200 % 2) * 30 * minute
        let replace = code / 22_400 % 2 == 0
        let id = ids.isEmpty ? 1 : ids[code / 44_800 % ids.count]
        let project: String? = ["a", "b", nil][code / 3 % 3]
        do {
            switch code % 7 {
            case 0, 1:
                return try IntervalEdits.add(
                    start: a, end: b, projectID: project, replace: replace, rows: table.window(a, b), now: now,
                    nextID: table.nextID)
            case 2:
                return try IntervalEdits.update(
                    id: id, start: a, end: table.rows[id]?.running == true ? nil : b, projectID: .some(project),
                    replace: replace, rows: Array(table.rows.values), now: now, nextID: table.nextID)
            case 3:
                return try IntervalEdits.update(
                    id: id, start: nil, end: nil, projectID: .some(project), replace: false,
                    rows: Array(table.rows.values), now: now, nextID: table.nextID)
            case 4:
                return try IntervalEdits.delete(id: id, rows: Array(table.rows.values))
            default:
                return try IntervalEdits.split(
                    id: id, at: a, rows: Array(table.rows.values), now: now, nextID: table.nextID)
            }
        } catch {
            return nil  // refused: nothing changes (the store writes nothing either)
        }
    }

    @Test func editsKeepTheRulesAndUndoRestoresEverything() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000).array(of: 1...30)) { codes in
            // A day with a few intervals and a running one at 20:00.
            var table = EditTable([
                IntervalRow(id: 1, start: Self.origin + 8 * hour, end: Self.origin + 10 * hour, projectID: "a"),
                IntervalRow(id: 2, start: Self.origin + 12 * hour, end: Self.origin + 13 * hour, projectID: nil),
                IntervalRow(id: 3, start: Self.origin + 20 * hour, end: nil, projectID: "b"),
            ])
            let initial = table
            var journal: [EditPlan] = []
            for code in codes {
                guard let plan = Self.plan(code, table), !plan.isEmpty else { continue }
                table.apply(plan)
                table.checkInvariants(now: Self.now)
                journal.append(plan)
            }
            for plan in journal.reversed() {
                do {
                    table.apply(try table.undo(plan.changes))
                } catch {
                    Issue.record("undo refused: \(error)")
                    return
                }
                table.checkInvariants(now: Self.now)
            }
            #expect(table.rows == initial.rows)
        }
    }
}

extension IntervalEditProperties {
    /// The random edits above are not mostly refusals: every kind, with and without replace,
    /// goes through on the starting table.
    @Test func theGeneratorMakesEveryKindOfEdit() {
        let table = EditTable([
            IntervalRow(id: 1, start: Self.origin + 8 * hour, end: Self.origin + 10 * hour, projectID: "a"),
            IntervalRow(id: 2, start: Self.origin + 12 * hour, end: Self.origin + 13 * hour, projectID: nil),
            IntervalRow(id: 3, start: Self.origin + 20 * hour, end: nil, projectID: "b"),
        ])
        var kinds: [Int: Int] = [:]
        var replaced = 0
        for code in stride(from: 0, to: 1_000_000, by: 997) {
            guard let plan = Self.plan(code, table), !plan.isEmpty else { continue }
            kinds[code % 7 < 2 ? 0 : code % 7 > 4 ? 5 : code % 7, default: 0] += 1
            if plan.changes.count > 2 || plan.changes.contains(where: { $0.after == nil && $0.before != nil && code % 7 != 4 }) {
                replaced += 1
            }
        }
        #expect(kinds.keys.sorted() == [0, 2, 3, 4, 5], "\(kinds)")
        #expect(kinds.values.allSatisfy { $0 >= 20 }, "\(kinds)")
        #expect(replaced >= 20)
    }
}
