import BiomaCore
import Foundation
import GRDB

/// The focus timer, its history and its presets: each change one transaction, together with
/// what it does to the work timer.
public struct StoreFocus: StorePart {
    let tracker: Tracker
}

extension StoreFocus {
    /// The focus timer, nil when off.
    public var timer: FocusTimer? { model.focus }
    public var presets: [FocusPreset] { model.presets }

    /// Applies one focus operation at `now` in one transaction: the new focus state, the
    /// stretches that ran, and the work timer following it. A `FocusError` becomes a
    /// `TrackerError` and changes nothing.
    @discardableResult
    public func changeFocus(
        at now: Micros, _ body: (inout FocusTimer?, [Project]) throws -> FocusOutcome
    ) throws -> FocusOutcome {
        var outcome = FocusOutcome()
        try change(at: now) { model, db in
            let before = model.focus
            do {
                outcome = try body(&model.focus, model.projects)
            } catch let error as FocusError {
                throw TrackerError(error)
            }
            try StoreFocus.insertFocusRecords(outcome.records, db)
            return model.state.follow(focus: before, model.focus, outcome: outcome, at: now, rules: rules)
        }
        return outcome
    }

    /// Pomodoros and active rounds completed in `day`, or the storage error that kept them
    /// from being counted (never 0 for a failed read).
    /// Counted once per day and change (every change forgets the count).
    public func completed(on day: Day) throws(TrackerError) -> Int {
        let (low, high) = rules.bounds(of: day)
        if let cached = tracker.focusCompletedCache, cached.day == day { return cached.count }
        let count: Int
        do {
            count = try Tracker.read(tracker.database) { db in
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT count(*) FROM focus_phase
                            WHERE end_us > ? AND end_us <= ? AND completed = 1 AND phase IN ('work', 'active')
                            """), arguments: [low, high])
            } ?? 0
        } catch {
            throw .storage("cannot read the completed focus phases: \(error)")
        }
        tracker.focusCompletedCache = (day, count)
        return count
    }

    /// The history's stretches overlapping the days `from...to` (nil: unbounded), in order.
    public func history(from: Day?, to: Day?) throws -> [FocusRecord] {
        if let from, let to, from > to {
            throw TrackerError.invalidArgument("The range starts (\(from)) after it ends (\(to)).")
        }
        let low = from.map(rules.start(of:)) ?? .min
        let high = to.map { rules.start(of: $0.adding(days: 1)) } ?? .max
        return try readOrThrow { try StoreFocus.focusRecords($0, overlapping: low, high) }
    }

    static func focusRecords(_ db: Database, overlapping low: Micros, _ high: Micros) throws -> [FocusRecord] {
        // Stretches are short (a phase lasts at most a day and a stretch never outlives it), so
        // those overlapping [low, high) end in (low, high + 1 day]: one bounded index range.
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT kind, phase, round, label, project_id, start_us, end_us, planned_us, completed
                    FROM focus_phase WHERE end_us > ? AND end_us <= ? AND start_us < ? ORDER BY end_us
                    """),
            arguments: [low, high > Micros.max - FocusPlan.maximumDuration ? Micros.max : high + FocusPlan.maximumDuration, high])
        var records: [FocusRecord] = []
        while let row = try rows.next() {
            guard let kind = FocusKind(rawValue: row[0]), let phase = FocusPhase(rawValue: row[1]) else { continue }
            records.append(
                FocusRecord(
                    kind: kind, phase: phase, round: row[2], label: row[3], project: row[4], start: row[5], end: row[6],
                    planned: row[7], completed: row[8]))
        }
        return records
    }

    static func insertFocusRecords(_ records: [FocusRecord], _ db: Database) throws {
        guard !records.isEmpty else { return }
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO focus_phase (kind, phase, round, label, project_id, start_us, end_us, planned_us, completed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for r in records {
            try insert.execute(arguments: [
                r.kind.rawValue, r.phase.rawValue, r.round, r.label, r.project, r.start, r.end, r.planned, r.completed,
            ])
        }
    }

    static func saveFocus(_ timer: FocusTimer?, _ db: Database) throws {
        if let timer {
            let json = String(decoding: try JSONEncoder().encode(timer), as: UTF8.self)
            try db.execute(sql: "INSERT OR REPLACE INTO focus_timer (id, timer) VALUES (1, ?)", arguments: [json])
        } else {
            try db.execute(sql: "DELETE FROM focus_timer")
        }
    }

    static func loadFocus(_ db: Database) throws -> (FocusTimer?, [FocusPreset]) {
        let decoder = JSONDecoder()
        let timer = try String.fetchOne(db, sql: "SELECT timer FROM focus_timer WHERE id = 1").map {
            try decoder.decode(FocusTimer.self, from: Data($0.utf8))
        }
        let presets = try Row.fetchAll(db, sql: "SELECT id, name, plan FROM focus_preset ORDER BY created_us, id").map {
            row in
            FocusPreset(id: row[0], name: row[1], plan: try decoder.decode(FocusPlan.self, from: Data((row[2] as String).utf8)))
        }
        return (timer, presets)
    }

    // MARK: Presets

    /// Adds a preset; returns its id (`f1`, `f2`, …).
    public func addPreset(name: String, plan: FocusPlan, at now: Micros) throws -> String {
        var id = ""
        try change(at: now) { model, db in
            let name = try StoreFocus.presetName(name, excluding: nil, in: model.presets)
            let plan = try StoreFocus.validated(plan, projects: model.projects)
            let highest = model.presets.compactMap { Int($0.id.dropFirst()) }.max() ?? 0
            id = "f\(highest + 1)"
            model.presets.append(FocusPreset(id: id, name: name, plan: plan))
            try db.execute(
                sql: "INSERT INTO focus_preset (id, name, name_key, plan, created_us) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, name, name.lowercased(), try StoreFocus.json(plan), now])
            return []
        }
        return id
    }

    /// Renames a preset and/or replaces its settings (`update` gets the current plan).
    public func updatePreset(
        _ ref: String, name: String?, at now: Micros, _ update: (inout FocusPlan) throws -> Void
    ) throws {
        try change(at: now) { model, db in
            guard let preset = model.presets.resolve(ref), let index = model.presets.firstIndex(of: preset) else {
                throw TrackerError.noSuchPreset(ref)
            }
            var changed = preset
            if let name { changed.name = try StoreFocus.presetName(name, excluding: preset.id, in: model.presets) }
            do { try update(&changed.plan) } catch let error as FocusError { throw TrackerError(error) }
            changed.plan = try StoreFocus.validated(changed.plan, projects: model.projects)
            model.presets[index] = changed
            try db.execute(
                sql: "UPDATE focus_preset SET name = ?, name_key = ?, plan = ? WHERE id = ?",
                arguments: [changed.name, changed.name.lowercased(), try StoreFocus.json(changed.plan), changed.id])
            return []
        }
    }

    public func deletePreset(_ ref: String, at now: Micros) throws {
        try change(at: now) { model, db in
            guard let preset = model.presets.resolve(ref) else { throw TrackerError.noSuchPreset(ref) }
            model.presets.removeAll { $0.id == preset.id }
            try db.execute(sql: "DELETE FROM focus_preset WHERE id = ?", arguments: [preset.id])
            return []
        }
    }

    static func presetName(_ name: String, excluding id: String?, in presets: [FocusPreset]) throws -> String {
        let valid: String
        do { valid = try FocusPreset.validatedName(name) } catch { throw TrackerError(error) }
        if presets.contains(where: { $0.id != id && $0.name.lowercased() == valid.lowercased() }) {
            throw TrackerError.nameTaken(valid)
        }
        return valid
    }

    static func validated(_ plan: FocusPlan, projects: [Project]) throws -> FocusPlan {
        var plan = plan
        if let project = plan.project { plan.project = try projects.resolve(project).id }
        do { try plan.validate() } catch { throw TrackerError(error) }
        return plan
    }

    static func json(_ plan: FocusPlan) throws -> String {
        String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)
    }
}

extension TrackerError {
    init(_ error: FocusError) {
        switch error {
        case .invalid(let text): self = .invalidArgument(text)
        case .noFocus(let text): self = .noFocus(text)
        }
    }
}
