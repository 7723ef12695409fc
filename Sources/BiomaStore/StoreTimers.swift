import BiomaCore
import Foundation
import GRDB

/// The work timer and the project timers, and an absence taken off them: each call one
/// transaction through the core's `change`.
public struct StoreTimers: StorePart {
    let tracker: Tracker
}

extension StoreTimers {
    // MARK: Work timer

    public func start(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.start(at: now, rules: rules) }
    }

    public func stop(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.stop(at: now) }
    }

    /// Returns whether work runs afterwards.
    public func toggle(at now: Micros) throws -> Bool {
        try change(at: now) { model, _ in
            model.state.running ? model.state.stop(at: now) : model.state.start(at: now, rules: rules)
        }
        return model.state.running
    }

    public func reset(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.reset(at: now) }
    }

    // MARK: Project timers

    public func startProject(_ ref: String, at now: Micros) throws {
        try change(at: now) { model, _ in
            let id = try model.projects.resolve(ref).id
            return model.state.startProject(id, at: now, rules: rules, shortInterval: tracker.shortInterval)
        }
    }

    public func stopProject(at now: Micros) throws {
        try change(at: now) { model, _ in model.state.stopProject(at: now, shortInterval: tracker.shortInterval) }
    }

    /// Returns whether the project runs afterwards.
    public func toggleProject(_ ref: String, at now: Micros) throws -> Bool {
        var running = false
        try change(at: now) { model, _ in
            let id = try model.projects.resolve(ref).id
            if model.state.activeProject == id { return model.state.stopProject(at: now, shortInterval: tracker.shortInterval) }
            running = true
            return model.state.startProject(id, at: now, rules: rules, shortInterval: tracker.shortInterval)
        }
        return running
    }

    /// Runs the project `step` places after the running one (wrapping); returns its id.
    public func cycleProject(step: Int, at now: Micros) throws -> String {
        var target = ""
        try change(at: now) { model, _ in
            guard !model.projects.isEmpty else {
                throw TrackerError.invalidArgument("There are no projects to cycle through; add one first.")
            }
            guard let id = model.state.cycleTarget(step: step, order: model.projects.map(\.id)) else {
                throw TrackerError.invalidArgument("The cycle step must not be 0 (use 1 or -1).")
            }
            target = id
            return model.state.startProject(id, at: now, rules: rules, shortInterval: tracker.shortInterval)
        }
        return target
    }

    public func resetProject(_ ref: String, at now: Micros) throws {
        try change(at: now) { model, _ in
            let id = try model.projects.resolve(ref).id
            model.state.resetProject(id, at: now)
            return []
        }
    }
}

// MARK: Time away

extension StoreTimers {
    /// Stops running work at `since` (or at the last change, if that came later: the user was
    /// evidently there then) for an absence; returns what was removed, up to `now`, or nil when
    /// work was not running.
    public func stopForAway(since: Micros, at now: Micros) throws -> Interval? {
        var removed: Interval?
        try change(at: now) { model, _ in
            guard let segment = model.state.open else { return [] }
            let changes = model.state.stop(at: min(since, now))
            let stoppedAt = model.state.lastChange
            if now > stoppedAt { removed = Interval(start: stoppedAt, end: now, projectID: segment.projectID) }
            return changes
        }
        return removed
    }

    /// Records removed away time as work after all: one interval (under its project, if that
    /// still exists) and the stopwatches credited, in one transaction.
    public func keepAway(_ removed: Interval, at now: Micros) throws {
        try change(at: now) { model, db in
            var kept = removed
            if let project = kept.projectID, !model.projects.contains(where: { $0.id == project }) { kept.projectID = nil }
            let added = try StoreHistory.insertHistory([(kept, 1)], state: model.state, rules: rules, label: "The away time", db).count
            guard added == 1 else { throw TrackerError.invalidArgument("The away time is already recorded as work.") }
            model.state.credit(kept)
            return []
        }
    }
}
