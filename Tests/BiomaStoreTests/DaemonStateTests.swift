import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

/// What the daemon keeps across a restart beside the timers (`v6-away-notifications`): the
/// absence in progress, the away time `KeepAway` can give back, the notification ids.
struct DaemonStateTests {
    @Test func theAbsenceAndTheNotificationIdsSurviveReopening() throws {
        try withTemporaryDirectory { dir in
            let removed = Interval(start: 1_000_000, end: 901_000_000, projectID: nil)
            do {
                let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
                #expect(try tracker.daemonState.savedAway().current == nil && tracker.daemonState.savedAway().lastRemoved == nil)
                #expect(try tracker.daemonState.shownNotifications().isEmpty)
                let current = AwayRecord(reason: .lock, since: 5_000_000, removed: nil)
                try tracker.daemonState.saveAway(current: current, lastRemoved: removed)
                try tracker.daemonState.saveShownNotification(7, for: "task:t1")
                try tracker.daemonState.saveShownNotification(9, for: "away")
                try tracker.daemonState.saveShownNotification(3, for: "focus")
                try tracker.daemonState.saveShownNotification(nil, for: "focus")
            }
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            let saved = try reopened.daemonState.savedAway()
            #expect(saved.current == AwayRecord(reason: .lock, since: 5_000_000, removed: nil))
            #expect(saved.lastRemoved == removed)
            #expect(try reopened.daemonState.shownNotifications() == ["task:t1": 7, "away": 9])
            // Decided: the removed work is part of the absence; then back, nothing in progress.
            let decided = AwayRecord(
                reason: .idle, since: 2_000_000, removed: Interval(start: 2_000_000, end: 3_000_000, projectID: "p1"))
            try reopened.daemonState.saveAway(current: decided, lastRemoved: nil)
            #expect(try reopened.daemonState.savedAway().current == decided && reopened.daemonState.savedAway().lastRemoved == nil)
            try reopened.daemonState.saveAway(current: nil, lastRemoved: nil)
            #expect(try reopened.daemonState.savedAway().current == nil)
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
            #expect(try tracker.daemonState.savedAway().current == nil)
        }
    }
}
