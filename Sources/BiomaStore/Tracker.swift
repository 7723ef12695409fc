import BiomaCore
import Foundation
import GRDB

/// The tracker the daemon drives: the pure rules of BiomaCore applied to a durable SQLite store.
///
/// It is the sole owner of its database. Every state change is one transaction that writes the
/// new stopwatch state together with the interval changes; a call that fails throws a
/// `TrackerError` and leaves memory and store as they were.
///
/// It takes no lock: it is used from one thread at a time. In the daemon that is the event
/// loop's thread, where every handler and deadline runs (tests that drive a service in-process
/// read the tracker through the same loop). It is `Sendable` only so that the handlers, which
/// the loop runs, may capture it.
public final class Tracker: @unchecked Sendable {
    /// How often the daemon calls `heartbeat(at:)` while work runs: at a reboot, at most this
    /// much running time is lost.
    public static let heartbeatInterval: Micros = 120 * microsPerSecond
    public static let databaseFileName = "biomatimer.sqlite"

    /// The database file.
    public let path: URL
    public let dataDirectory: URL
    public var backupDirectory: URL { dataDirectory.appendingPathComponent("backups", isDirectory: true) }
    public let rules: DayRules
    /// A project switched away from sooner than this after it began is not recorded apart: its
    /// seconds go to the one that stays (`WorkTimer.startProject`). 0, the default here, records
    /// every switch; the daemon sets the `short_interval` setting.
    public var shortInterval: Micros = 0

    let database: DatabaseQueue
    /// The connections lent to workers: the loop's tracker's, shared by its workers.
    let workers: WorkerConnections
    /// A worker's connection, lent by `workers` until `close`.
    private(set) var lent: WorkerConnection?
    let bootID: String
    var model: Model
    var todayCache: (day: Day, closed: [Interval])?
    /// Focus phases completed in a day, as last counted (bars ask at every poll and change).
    var focusCompletedCache: (day: Day, count: Int)?
    /// Closed work from a day's start to the start of today, as last summed (the balance).
    var workBeforeTodayCache: (since: Day, until: Micros, work: Micros)?
    var lastDailyBackup: Day?
    /// The day a daily backup was last tried (succeeded or not): one try per day and start.
    var lastDailyBackupAttempt: Day?
    /// This device's sync identity and clock (`StoreSync`).
    var syncJournal = SyncJournal()
    /// Called after every commit that made operations (sync on), with them in order: the
    /// daemon appends them to the sync folder before it answers. Also after a commit that made
    /// none because a backlog waits (`writeOrThrow`), with none: the daemon keeps stamping it.
    public var onSyncOperations: (([SyncOperation]) -> Void)?
    /// Asked before each commit (a worker's bulk work): true rolls the transaction back with
    /// `CancellationError` (the caller left, the daemon exits).
    public var cancelled: (@Sendable () -> Bool)?

    struct Model {
        var state = WorkTimer()
        var projects: [Project] = []
        var nextProjectNumber = 1
        /// In the order they were added.
        var tasks: [TaskItem] = []
        var nextTaskNumber = 1
        /// The focus timer, nil when off, and the saved presets in the order they were added.
        var focus: FocusTimer?
        var presets: [FocusPreset] = []
    }

    /// The projects, in their order.
    public var projects: [Project] { model.projects }
    public var workTimer: WorkTimer { model.state }

    // MARK: Opening

    /// `$XDG_DATA_HOME/biomatimer`, or `~/.local/share/biomatimer`.
    public static func defaultDataDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("biomatimer")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share/biomatimer", isDirectory: true)
    }

    /// Opens (or creates) the store in `dataDirectory` and recovers a session left open: it
    /// continues if `bootID` is the one it was recorded under, and is otherwise closed at the
    /// last moment the program was known alive. An unreadable database throws `.storage` naming
    /// its path and is left untouched.
    public init(dataDirectory: URL, rules: DayRules, now: Micros, bootID: String) throws {
        self.dataDirectory = dataDirectory
        self.path = dataDirectory.appendingPathComponent(Tracker.databaseFileName)
        self.rules = rules
        self.bootID = bootID
        let path = self.path
        func failure(_ error: any Error, _ doing: String) -> TrackerError {
            Tracker.storageError(error, doing: doing, path: path)
        }
        do {
            try Tracker.makePrivateDirectory(dataDirectory)
            try Tracker.createPrivateFileIfMissing(path)
        } catch {
            throw failure(error, "create")
        }
        workers = WorkerConnections()
        do {
            database = try DatabaseQueue(path: path.path, configuration: Tracker.configuration)
        } catch {
            throw failure(error, "open")
        }
        var loaded: (Model, heartbeat: Micros?, boot: String?, lastBackup: String?)
        do {
            try Schema.migrator.migrate(database)
            loaded = try Self.read(database, Tracker.load)
        } catch {
            throw failure(error, "read")
        }
        model = loaded.0
        lastDailyBackup = loaded.lastBackup.flatMap(Day.init)
        try sync.load()
        try recover(heartbeat: loaded.heartbeat, boot: loaded.boot, at: now)
        backups.takeDailyBackupIfDue(at: now)
    }

    /// Recovery of a store just read (opened, or restored from a backup): after a reboot, the
    /// open interval ends when the program was last alive — unless a peer started it: it runs
    /// there, and its stop will come from there. The store then names this boot.
    func recover(heartbeat: Micros?, boot: String?, at now: Micros) throws {
        if let open = model.state.open, boot != bootID, try !sync.openIntervalRunsOnAPeer() {
            let alive = max(heartbeat ?? .min, open.start, model.state.lastChange)
            try change(at: alive) { model, _ in model.state.stop(at: alive) }
        }
        if boot != bootID {
            do {
                try database.write { db in
                    try db.execute(
                        sql: "UPDATE timer_state SET boot_id = ?, heartbeat_us = ? WHERE id = 1",
                        arguments: [bootID, now])
                }
            } catch {
                throw Tracker.storageError(error, doing: "write", path: path)
            }
        }
    }

    /// Reads everything the tracker keeps in memory from the store again (after a restore put
    /// another history in its place), and recovers it as an open does. What was already tried
    /// today (the daily backup) stays tried.
    func reloadFromStore(at now: Micros) throws {
        let loaded = try readOrThrow(Tracker.load)
        take(loaded.0)
        lastDailyBackup = loaded.lastBackup.flatMap(Day.init)
        try sync.load()
        try recover(heartbeat: loaded.heartbeat, boot: loaded.boot, at: now)
    }

    /// How long a worker waits for a busy store (the loop's connection waits 2 s: it holds
    /// every caller meanwhile; a worker holds nobody).
    public static let workerBusyWait: Micros = 10 * microsPerSecond

    /// The page size of a new store, in bytes. Every commit writes each page it changed to the
    /// log, a system call or two apiece: with pages of 8 KiB rather than SQLite's 4 KiB, a
    /// peer's ten years replayed wrote half as many (one slice about 600 frames of 4 KiB), in
    /// about 6 % less time, and a ten-year import took no longer. Set only where the file has
    /// no page yet: SQLite fixes it when the store is made.
    static let pageSize = 8192

    /// How much a commit may leave in the write-ahead log before it copies the log into the
    /// database file (SQLite's default in bytes, kept whatever the page size). A refusal for a
    /// full disk gives the log's space back only by such a copy (`giveBackLogSpace`), which
    /// the database file must have room for.
    static let checkpointBytes = 1000 * 4096

    /// The connection's settings, the same for the loop's tracker and a worker's.
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        configuration.prepareDatabase { db in
            // WAL: a commit appends to the log, readers never block, and a crash mid-write
            // leaves the last committed state. synchronous=FULL: each commit reaches the disk
            // before the call returns, so a power cut loses no acknowledged change.
            // temp_store=MEMORY: statement journals (each statement that fires a trigger keeps
            // the pages it changes, to undo itself) stay in memory; on disk, once one grew past
            // 64 KiB, every statement after it wrote its pages to a file in /var/tmp.
            // page_size: a new store's pages are `pageSize` bytes (an existing store keeps its own).
            // wal_autocheckpoint: a commit that leaves 4 MiB or more in the log copies it into
            // the database file (SQLite's own size, 1000 pages of 4 KiB), whatever the pages' size.
            try db.execute(
                sql: """
                    PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
                    PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY
                    """)
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(checkpointBytes / pages)")
        }
        return configuration
    }

    // MARK: Bulk work on another thread (`Tracker+Workers`)

    /// A tracker for bulk work on another thread: the same store through a connection of its
    /// own, and a copy of this one's state. The daemon holds its loop meanwhile (nothing else
    /// writes; the loop's connection keeps reading the last commit), then `adopt`s the
    /// worker's state. The operations a sync-on write stamps go to `onSyncOperations`, which
    /// the caller sets (the loop appends them to the folder once the work is adopted).
    ///
    /// The store may be busy (another connection writing): the worker waits for it up to
    /// `workerBusyWait`, and stops waiting at once when `stopped` says so (its work then fails);
    /// `stopped` also refuses its commit (`cancelled`).
    public init(workerFor other: Tracker, stopped: @escaping @Sendable () -> Bool) throws {
        (dataDirectory, path, rules, bootID) = (other.dataDirectory, other.path, other.rules, other.bootID)
        (model, syncJournal) = (other.model, other.syncJournal)
        (lastDailyBackup, lastDailyBackupAttempt) = (other.lastDailyBackup, other.lastDailyBackupAttempt)
        cancelled = stopped
        workers = other.workers
        let connection: WorkerConnection
        do {
            connection = try workers.lend(path: path.path, stopped: stopped)
        } catch {
            throw Tracker.storageError(error, doing: "open", path: path)
        }
        (lent, database) = (connection, connection.queue)
    }

    /// Gives a worker's connection (`init(workerFor:)`) back, once its work has ended and its
    /// `state` is taken; the tracker is not used after. (The loop's stays open for the
    /// daemon's life.)
    public func close() {
        // A worker's connection goes back to the loop's tracker, to be lent again
        // (`WorkerConnections` says why it is not closed).
        guard let connection = lent else { return }
        lent = nil
        workers.takeBack(connection)
    }

    // MARK: Transactions

    /// Runs `body` on a copy of the model inside one write transaction that also persists the
    /// new stopwatch state and applies the interval changes. Memory changes only on commit.
    func change(
        at now: Micros, _ body: (inout Model, Database) throws -> [SegmentChange]
    ) throws {
        let before = model
        var after = model
        try writeOrThrow { db in
            let changes = try body(&after, db)
            // Work no longer runs what a running focus phase drives: the focus timer pauses.
            if var focus = after.focus {
                let paused = focus.follow(work: after.state, at: now)
                after.focus = focus
                try StoreFocus.insertFocusRecords(paused.records, db)
            }
            try Tracker.apply(changes, openBefore: before.state.open, db)
            try Tracker.persist(before: before, after: after, bootID: bootID, now: now, db)
        }
        take(after)
    }

    /// Takes `new` as the model, and forgets what was read for the one before (the caches).
    func take(_ new: Model) {
        model = new
        todayCache = nil
        focusCompletedCache = nil
        workBeforeTodayCache = nil
    }

    func readOrThrow<R>(_ body: (Database) throws -> R) throws -> R {
        do { return try Self.read(database, body) } catch { throw Tracker.storageError(error, doing: "read", path: path) }
    }

    /// One read of `queue` in a deferred transaction: every statement of `body` (which only
    /// reads) sees one snapshot. Not GRDB's `read`, which turns `PRAGMA query_only` on and off
    /// around it: SQLite expires every prepared statement of the connection at each change of
    /// that pragma, so after each read every cached statement was compiled again at its next
    /// use — over half of the daemon's work for a toggle. Its `BEGIN` and `COMMIT` are cached
    /// statements too (GRDB's `inTransaction` compiles them at each call).
    static func read<R>(_ queue: DatabaseQueue, _ body: (Database) throws -> R) throws -> R {
        try queue.unsafeRead { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            let result: R
            do {
                result = try body(db)
            } catch {
                try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
                throw error
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        }
    }

    /// One write transaction. With sync on, the changes it made become operations before it
    /// commits (`drainChanges`), and are handed to `onSyncOperations` after — at most
    /// `drainSlice` of them: a bulk change (an import, a reset, the first snapshot) leaves the
    /// rest in order, a backlog, for `drainBacklog`, which the daemon runs a slice per turn
    /// of its loop so that no caller waits behind them. A write made while a backlog waits
    /// stamps none: its changes join the backlog after everything recorded before them, so the
    /// operations keep the order of the changes, and the write (a toggle between two slices)
    /// is not made to stamp hundreds of others before it is answered.
    ///
    /// `triggers: false` (a peer's merge on a worker, and nothing else) runs it with the
    /// connection's triggers off. They record changes into `sync_change` only while
    /// `sync_self.recording` is 1, which a merge turns off, and give a uuid only to a row
    /// inserted without one, which a merge never does: they do nothing there, yet cost a
    /// quarter of an interval's insert. Turning them off or on makes SQLite prepare every
    /// statement of the connection again, so it is done only when it changes: a worker kept
    /// for a merge's next slice keeps them off, and the next other write on its connection
    /// turns them on first. The loop's own connection never turns them off.
    func writeOrThrow<R>(
        triggers: Bool = true, stamping: Stamping = .ownChanges, _ body: (Database) throws -> R
    ) throws -> R {
        if let lent, lent.triggersOff == triggers {
            _ = try database.writeWithoutTransaction { try ConnectionSwitch.triggers.set(triggers, $0) }
            lent.triggersOff = !triggers
        }
        var journal = syncJournal
        var operations: [SyncOperation] = []
        let (limit, enough): (Int?, (() -> Bool)?) =
            switch stamping {
            case .ownChanges: (sync.hasBacklog ? 0 : StoreSync.drainSlice, nil)
            case .backlog(let limit, let enough): (limit, enough)
            }
        let result: R
        do {
            result = try database.write { db in
                let result = try body(db)
                if cancelled?() == true { throw CancellationError() }
                if limit != 0 {
                    operations = try StoreSync.drainChanges(db, &journal, physical: Tracker.wallClock(), limit: limit, enough: enough)
                }
                return result
            }
        } catch {
            if (error as? DatabaseError)?.resultCode == .SQLITE_FULL { giveBackLogSpace() }
            throw Tracker.storageError(error, doing: "write", path: path)
        }
        syncJournal = journal
        if !operations.isEmpty || sync.hasBacklog { onSyncOperations?(operations) }
        return result
    }

    /// What a write makes into operations (`writeOrThrow`).
    enum Stamping {
        /// The changes it made, with any recorded before them, up to `drainSlice`; none while
        /// a backlog waits.
        case ownChanges
        /// The backlog: at most `limit` (nil: all of it), or as many as `enough` allows.
        case backlog(limit: Int?, enough: (() -> Bool)?)
    }

    /// After a write refused for a full disk. The refused transaction's pages went to the
    /// write-ahead log as far as the disk let them: the log grew by up to all the space that
    /// was left, and SQLite keeps a log at its largest size, so the disk would stay full after
    /// the refusal — even across restarts (the daemon never closes the store, which would
    /// delete the log). A checkpoint that truncates the log gives that space back. It needs
    /// the database file to take the log's committed pages (none, or a few, when the log
    /// restarted at the last automatic checkpoint); if it cannot (a young store whose pages
    /// are all still in the log, on a disk with no byte left), it fails and leaves the log as
    /// it was, consistent, and the next refused write tries again.
    func giveBackLogSpace() {
        _ = try? database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// The machine's clock, for the hybrid clock's physical part (under libfaketime, the
    /// faked one).
    static func wallClock() -> Micros { Micros((Date().timeIntervalSince1970 * 1_000_000).rounded()) }
}

extension Tracker {
    /// Empties SQLite's page cache (`PRAGMA shrink_memory`) after bulk work: ten years read
    /// or written once need not stay cached. The daemon follows it with `malloc_trim(0)`.
    public func releaseMemory() {
        // Only a cache is dropped: a failure leaves it as it was, and nothing is lost.
        try? database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA shrink_memory") }
    }
}
