import BiomaCore
import Foundation
import PropertyBased
import Testing

@testable import BiomaStore

/// The store against the pure rules: random operations, clock steps and restarts applied to a
/// `Tracker` and to an in-memory `WorkTimer` + history must give equal snapshots and reports.
@Suite struct StoreModelTests {
    struct Model {
        var state = WorkTimer()
        var closed: [Interval] = []

        mutating func apply(_ changes: [SegmentChange]) {
            for change in changes {
                switch change {
                case .close(let end):
                    if let open = state.open, end > open.start {
                        closed.append(Interval(start: open.start, end: end, projectID: open.projectID))
                    }
                case .open, .discardOpen, .reassignOpen: break
                }
            }
        }
    }

    // Seconds of synchronous SQLite work: on a thread of its own, so that it does not hold
    // one of the cooperative pool's threads (one per core) from the tests that await.
    @Test(.ownThread) func trackerMatchesTheCoreRules() async throws {
        await propertyCheck(count: 25, input: Gen.int(in: 0...200_000).array(of: 1...40)) { codes in
            withTemporaryDirectory { dir in
                do {
                    let rules = berlin
                    var now = t("2024-10-26T21:00:00+02:00")  // before the autumn change
                    var tracker: Tracker! = try Tracker(dataDirectory: dir, rules: rules, now: now, bootID: boot)
                    var ids: [String] = []
                    for name in ["A", "B", "C"] { ids.append(try tracker.catalog.addProject(name: name, color: "", at: now)) }
                    var model = Model()
                    for code in codes {
                        now += Micros((code / 64) % 240) * minute / 2
                        let project = ids[(code / 8) % 3]
                        var before = model.state
                        switch code % 8 {
                        case 0:
                            try tracker.timers.start(at: now)
                            model.apply(before.start(at: now, rules: rules))
                        case 1:
                            try tracker.timers.stop(at: now)
                            model.apply(before.stop(at: now))
                        case 2:
                            try tracker.timers.reset(at: now)
                            model.apply(before.reset(at: now))
                        case 3:
                            try tracker.timers.startProject(project, at: now)
                            model.apply(before.startProject(project, at: now, rules: rules))
                        case 4:
                            try tracker.timers.stopProject(at: now)
                            model.apply(before.stopProject(at: now))
                        case 5:
                            try tracker.timers.resetProject(project, at: now)
                            before.resetProject(project, at: now)
                        case 6:  // a restart on the same boot continues exactly
                            // As in the daemon, the old store is closed before the new one opens
                            // (two open connections could wait on each other's lock under load).
                            tracker = nil
                            tracker = try Tracker(dataDirectory: dir, rules: rules, now: now, bootID: boot)
                        default:
                            #expect(throws: TrackerError.noSuchProject("nope")) { try tracker.timers.startProject("nope", at: now) }
                        }
                        model.state = before
                        #expect(tracker.workTimer == model.state)
                        let expected = TrackerSnapshot(
                            state: model.state, projects: tracker.projects, closedIntervalsOfToday: model.closed,
                            rules: rules, now: now)
                        #expect(try tracker.history.snapshot(at: now) == expected)
                    }
                    let from = rules.day(containing: t("2024-10-26T21:00:00+02:00"))
                    let to = rules.day(containing: now)
                    var all = model.closed
                    if let open = model.state.open, now > open.start {
                        all.append(Interval(start: open.start, end: now, projectID: open.projectID))
                    }
                    let expected = Report(
                        from: from, to: to, boundaries: rules.boundaries(from: from, to: to), intervals: all,
                        projects: tracker.projects)
                    #expect(try tracker.history.report(from: from, to: to, at: now) == expected)
                } catch {
                    Issue.record("unexpected error \(error)")
                }
            }
        }
    }
}
