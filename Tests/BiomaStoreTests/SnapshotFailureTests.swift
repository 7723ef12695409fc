import BiomaCore
import Foundation
import Testing

@testable import BiomaStore

/// A failed read of today's intervals is an error, never an empty day.
@Suite struct SnapshotFailureTests {
    let now = t("2024-06-01T12:00:00Z")

    @Test func aFailedReadIsAStorageErrorNotAnEmptyDay() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            try tracker.timers.start(at: now - hour)
            try tracker.timers.stop(at: now - 30 * minute)
            #expect(try tracker.history.snapshot(at: now).dailyTotal == 30 * minute)
            // The intervals become unreadable, and the cached day is dropped.
            try tracker.database.write { try $0.execute(sql: "ALTER TABLE interval RENAME TO unreadable") }
            tracker.todayCache = nil
            do {
                let snapshot = try tracker.history.snapshot(at: now)
                Issue.record("read an empty day instead of failing: \(snapshot.dailyTotal) µs")
            } catch TrackerError.storage(let message) {
                #expect(message.contains("read"), "\(message)")
            }
        }
    }

    /// Today's completed focus phases that cannot be read are an error, never 0 completed.
    @Test func aFailedCountOfFocusPhasesIsAStorageErrorNotZero() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            let today = tracker.rules.day(containing: now)
            #expect(try tracker.focus.completed(on: today) == 0)
            try tracker.database.write { try $0.execute(sql: "ALTER TABLE focus_phase RENAME TO unreadable") }
            tracker.focusCompletedCache = nil
            do {
                let count = try tracker.focus.completed(on: today)
                Issue.record("counted \(count) instead of failing")
            } catch TrackerError.storage(let message) {
                #expect(message.hasPrefix("cannot read the completed focus phases: "), "\(message)")
            }
        }
    }
}
