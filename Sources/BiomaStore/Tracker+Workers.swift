import BiomaCore
import GRDB

/// Bulk work on another thread: a tracker on a connection of its own, lent by the loop's
/// tracker (`WorkerConnections`), whose state the loop's tracker takes back when it ends.
extension Tracker {
    /// Takes `other`'s state again, for the next piece of work of a worker kept across
    /// several (`init(workerFor:)`): what `other` changed since (a toggle between two slices of
    /// a merge) is this worker's too. Its connection and prepared statements stay as they are.
    public func resume(from other: Tracker) {
        adopt(other.state)
        (lastDailyBackup, lastDailyBackupAttempt) = (other.lastDailyBackup, other.lastDailyBackupAttempt)
    }

    /// What a worker holds in memory of the store: handed to the loop's tracker (`adopt`).
    public struct State: Sendable {
        fileprivate let model: Model
        fileprivate let sync: SyncJournal
    }

    /// This tracker's state, for `adopt` (a worker's, once its work has ended).
    public var state: State { State(model: model, sync: syncJournal) }

    /// Takes the state a worker (`init(workerFor:)`) left after its work ended, committed or
    /// not: what it committed is in the store, and what it read is read again.
    public func adopt(_ worker: State) {
        take(worker.model)
        syncJournal = worker.sync
    }

    /// Stops the work running on this tracker's connection (from any thread): its statement
    /// fails, and its transaction is rolled back.
    public func interrupt() { database.interrupt() }

    /// Records that the program is alive; the daemon calls it every `heartbeatInterval` while
    /// work runs. Also takes the daily backup when due.
    public func heartbeat(at now: Micros) throws {
        backups.takeDailyBackupIfDue(at: now)
        try writeOrThrow { db in
            try db.cachedStatement(sql: "UPDATE timer_state SET heartbeat_us = ?, boot_id = ? WHERE id = 1")
                .execute(arguments: [now, bootID])
        }
    }
}
