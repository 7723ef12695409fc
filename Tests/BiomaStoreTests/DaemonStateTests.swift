import BiomaCore
import Foundation
import Testing

@testable import BiomaStore

/// What the daemon keeps across a restart beside the timers (`v6-away-notifications`): the
/// absence in progress, the away time `KeepAway` can give back, the notification ids.
struct DaemonStateTests {
    @Test func theAbsenceAndTheNotificationIdsSurviveReopening() throws {
        try withTemporaryDirectory { dir in
            let removed = Interval(start: 1_000_000, end: 901_000_000, projectID: nil)
            do {
                let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
                #expect(try tracker.savedAway().current == nil && tracker.savedAway().lastRemoved == nil)
                #expect(try tracker.shownNotifications().isEmpty)
                let current = AwayRecord(reason: .lock, since: 5_000_000, removed: nil)
                try tracker.saveAway(current: current, lastRemoved: removed)
                try tracker.saveShownNotification(7, for: "task:t1")
                try tracker.saveShownNotification(9, for: "away")
                try tracker.saveShownNotification(3, for: "focus")
                try tracker.saveShownNotification(nil, for: "focus")
            }
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            let saved = try reopened.savedAway()
            #expect(saved.current == AwayRecord(reason: .lock, since: 5_000_000, removed: nil))
            #expect(saved.lastRemoved == removed)
            #expect(try reopened.shownNotifications() == ["task:t1": 7, "away": 9])
            // Decided: the removed work is part of the absence; then back, nothing in progress.
            let decided = AwayRecord(
                reason: .idle, since: 2_000_000, removed: Interval(start: 2_000_000, end: 3_000_000, projectID: "p1"))
            try reopened.saveAway(current: decided, lastRemoved: nil)
            #expect(try reopened.savedAway().current == decided && reopened.savedAway().lastRemoved == nil)
            try reopened.saveAway(current: nil, lastRemoved: nil)
            #expect(try reopened.savedAway().current == nil)
        }
    }

    @Test func aRowTheSchemaForbidsIsRefused() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            #expect(throws: (any Error).self) {
                try tracker.executeForTesting("INSERT INTO away_state (slot, reason, since_us) VALUES ('current', 'nap', 1)")
            }
            #expect(throws: (any Error).self) {
                try tracker.executeForTesting("INSERT INTO away_state (slot) VALUES ('current')")
            }
            #expect(throws: (any Error).self) {
                try tracker.executeForTesting("INSERT INTO shown_notification (owner, notification_id) VALUES ('away', 0)")
            }
            #expect(try tracker.savedAway().current == nil)
        }
    }
}
