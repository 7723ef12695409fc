import BiomaCore
import Foundation
import GRDB
import Testing

@testable import BiomaStore

/// Workers' connections are lent and taken back, never let go: each piece of bulk work after the
/// first runs on a connection opened before, which sees what the store holds now.
@Suite struct WorkerConnectionsTests {
    @Test func aWorkersConnectionIsLentAgainAndSeesTheLastCommit() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            let first = try Tracker(workerFor: tracker) { false }
            _ = try first.catalog.addProject(name: "Client A", color: "#007AFF", at: now)
            tracker.adopt(first.state)
            first.close()
            // The loop's tracker writes meanwhile; the next worker reads it on the same connection.
            _ = try tracker.catalog.addProject(name: "Internal", color: "#34C759", at: now + 1)
            let second = try Tracker(workerFor: tracker) { false }
            let names = try second.database.read { try String.fetchAll($0, sql: "SELECT name FROM project ORDER BY name") }
            #expect(names == ["Client A", "Internal"])
            second.close()
            #expect(tracker.workers.openedCount == 1)
            // Two at once: a second connection, and both are kept for later.
            let (a, b) = (try Tracker(workerFor: tracker) { false }, try Tracker(workerFor: tracker) { false })
            a.close()
            b.close()
            #expect(tracker.workers.openedCount == 2)
            _ = try Tracker(workerFor: tracker) { false }
            #expect(tracker.workers.openedCount == 2)
        }
    }

    /// A connection lent to work that was told to stop gives up waiting for a busy store at
    /// once; lent again, it waits for the store as long as its new work allows.
    @Test func aConnectionWaitsAsTheWorkItIsLentToSays() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            // Another connection holding the store's write lock, as another writer would.
            var unsafe = Configuration()
            unsafe.allowsUnsafeTransactions = true
            let other = try DatabaseQueue(path: tracker.path.path, configuration: unsafe)
            let busy = { try other.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") } }
            let free = { try other.inDatabase { try $0.execute(sql: "COMMIT") } }
            // Told to stop: the busy store fails its write at once.
            let stopped = try Tracker(workerFor: tracker) { true }
            try busy()
            #expect(throws: (any Error).self) { _ = try stopped.catalog.addProject(name: "Client A", color: "#007AFF", at: now) }
            try free()
            stopped.close()
            // The same connection, lent to work that goes on: it waits until the store is free.
            let worker = try Tracker(workerFor: tracker) { false }
            try busy()
            let done = DispatchSemaphore(value: 0)
            let outcome = Outcome()
            Thread {
                outcome.set(Result { try worker.catalog.addProject(name: "Client A", color: "#007AFF", at: now) })
                done.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.2)
            try free()
            done.wait()
            #expect(throws: Never.self) { _ = try outcome.get()?.get() }
            #expect(tracker.workers.openedCount == 1)
            worker.close()
        }
    }
}

private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<String, any Error>?
    func set(_ value: Result<String, any Error>) { lock.withLock { result = value } }
    func get() -> Result<String, any Error>? { lock.withLock { result } }
}
