import BiomaCore
import BiomaStore
import BiomaSystem
import DBusKit
import CSystem
import Foundation

/// Bulk work (an import of years, a history reset, an export of all of it) on a thread of
/// its own, so that the loop never waits behind it.
///
/// Work that writes (`write`) runs on a worker tracker (`Tracker(workerFor:)`: the same store
/// through its own connection) while the loop is held (`EventLoop.hold`): the loop keeps
/// answering what only reads — property reads, `reads` methods — from its own connection,
/// which sees the last commit, and keeps every other call, signal and deadline in order for
/// after. When the work ends the loop adopts the worker's state, hands on the operations a
/// sync-on write stamped, reports the result (`done`: publication and reply) and releases
/// what it kept, so a toggle made during an import is applied after it and nothing is lost.
/// Work that only reads (`read`) runs the same way without holding the loop.
///
/// A write's worker is kept for the next write when one starts at the loop's next turn (the
/// next slice of a peer's merge or of a backlog): a job of many slices takes one connection,
/// prepares its statements once and keeps its page cache warm, taking the loop's state again
/// at each slice (`Tracker.resume`), so whatever the loop changed between two slices (a
/// toggle) is the worker's too. A turn that starts no write ends it (`Tracker.close`: its
/// connection given back, its cache let go; after long work on a thread of its own).
///
/// One write at a time (a second waits its turn: `queued`); reads run beside anything, each
/// on its own connection. `interrupt` (any thread) ends the write that runs: its transaction
/// is rolled back — the statement running fails, or the commit is refused — and `done` gets
/// the error.
final class BulkWork: @unchecked Sendable {
    private let loop: EventLoop
    private let tracker: Tracker
    // Loop thread only.
    private var writing = false
    /// How many pieces of work that only read have gone to a worker.
    private(set) var readsStarted = 0
    private var queued: [() -> Void] = []
    /// The last write's worker, for the next write (see above), and how long (µs) the work
    /// it did since it was opened took.
    private var kept: (worker: Tracker, work: Int64)?
    /// How many times a worker was kept: the turn that ends a kept worker ends only the one it
    /// was queued for (one queued while a write ran comes after the next write has begun).
    private var keptCount = 0
    /// How many workers writes have opened (the slices of one job share one), and whether one
    /// is kept now.
    private(set) var writersOpened = 0
    var keepsAWorker: Bool { kept != nil }
    // Any thread.
    private let lock = Lock()
    private var worker: Tracker?
    private var stopped = false

    /// Work longer than this (µs) gives its pages back when it ends.
    static let long: Int64 = 100_000

    init(loop: EventLoop, tracker: Tracker) { (self.loop, self.tracker) = (loop, tracker) }

    /// Runs `work` on a worker tracker while the loop is held; on the loop, `done` gets its
    /// result once the worker's state is the loop's, before anything kept runs. On the loop
    /// thread.
    func write<T: Sendable>(
        _ work: @escaping @Sendable (Tracker) throws -> T, done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        start(holding: true, work, done)
    }

    /// Runs `work` (reads only) on a worker tracker while the loop goes on; `done` gets its
    /// result on the loop. On the loop thread.
    func read<T: Sendable>(
        _ work: @escaping @Sendable (Tracker) throws -> T, done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        readsStarted += 1
        start(holding: false, work, done)
    }

    /// Ends the work that runs now, from any thread (the daemon exiting): its statement fails
    /// and its transaction is rolled back.
    /// Whether some work was running.
    @discardableResult
    func interrupt() -> Bool {
        lock.lock()
        let running = worker
        stopped = running != nil
        lock.unlock()
        running?.interrupt()
        return running != nil
    }

    /// Whether the work running now was told to stop (asked by its worker before it commits).
    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func start<T: Sendable>(
        holding: Bool, _ work: @escaping @Sendable (Tracker) throws -> T,
        _ done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let inPlace = loop.finishesInPlace
        guard !(holding && writing) || inPlace else {
            queued.append { [self] in start(holding: holding, work, done) }
            return
        }
        let worker: Tracker
        let workBefore: Int64
        if holding, !inPlace, let kept {
            self.kept = nil
            kept.worker.resume(from: tracker)
            (worker, workBefore) = kept
        } else {
            do {
                worker = try Tracker(workerFor: tracker) { [weak self] in self?.isStopped ?? true }
            } catch {
                return done(.failure(error))
            }
            workBefore = 0
            if holding { writersOpened += 1 }
        }
        let stamped = Stamped()
        worker.onSyncOperations = { stamped.add($0) }
        /// On the loop, once the work has ended: the worker's state is the loop's, the
        /// operations it stamped are handed on, and `done` is told.
        let ended: @Sendable (Result<T, any Error>, Tracker.State) -> Void = { [self] result, state in
            if holding {
                tracker.adopt(state)
                // As a write on the loop hands them over (`Tracker.onSyncOperations`): none
                // when a backlog waits, so that it is stamped on; not after a failure (a full
                // disk), which the next write tries again.
                let operations = stamped.taken()
                if !operations.isEmpty || (result.succeeded && tracker.sync.hasBacklog) {
                    tracker.onSyncOperations?(operations)
                }
            }
            done(result)
        }
        if inPlace {
            // A command run on the loop (one that needs the process's environment) cannot
            // wait for a later turn: its work runs here, holding the loop, as it always did.
            let result = Result { try work(worker) }
            worker.close()
            return ended(result, worker.state)
        }
        if holding {
            writing = true
            lock.lock()
            (self.worker, stopped) = (worker, false)
            lock.unlock()
            loop.hold()
        }
        let thread = Thread { [self] in
            let started = csystem_clock_us(CLOCK_MONOTONIC)
            let result = Result { try work(worker) }
            let work = workBefore + csystem_clock_us(CLOCK_MONOTONIC) - started
            let state = worker.state
            if holding {
                lock.lock()
                self.worker = nil
                lock.unlock()
            }
            // A write that succeeded keeps its worker for the next; otherwise the worker's
            // connection, its cache and what the work made are let go here, not on the loop.
            let keep = holding && result.succeeded
            if !keep { Self.close(worker, after: work) }
            // The answer is the one piece of work the held loop runs before it is released; a
            // loop that has stopped (the daemon exiting) takes none, and the work is left as it
            // ended (an interrupted write rolled back).
            let answered = loop.performIfRunning(whileHeld: true) { [self] in
                ended(result, state)
                guard holding else { return }
                writing = false
                if keep { keepForNextWrite(worker, work: work) }
                loop.release()
                if !queued.isEmpty { queued.removeFirst()() }
            }
            if !answered, keep { worker.close() }
        }
        thread.start()
    }

    /// Keeps `worker` for a write that starts before the loop's next turn ends; ends it at that
    /// turn otherwise. On the loop.
    private func keepForNextWrite(_ worker: Tracker, work: Int64) {
        if let kept { Self.end(kept) }
        kept = (worker, work)
        keptCount += 1
        let count = keptCount
        // After whatever the work's answer queued for that turn (the next slice). The same
        // worker, kept again by a later write, is that write's to end: an older turn's check,
        // kept back while the next write held the loop, runs only after it.
        loop.later { [self] in
            guard !writing, keptCount == count, let kept else { return }
            self.kept = nil
            Self.end(kept)
        }
    }

    /// Ends a kept worker: after long work on a thread of its own (its cache and the pages
    /// given back take a while), after short work here (no thread is started for it).
    private static func end(_ kept: (worker: Tracker, work: Int64)) {
        if kept.work > long {
            Thread { close(kept.worker, after: kept.work) }.start()
        } else {
            kept.worker.close()
        }
    }

    /// Ends a worker (`Tracker.close`), on a thread that is not the loop; after long work (`work` µs), the
    /// pages are given back to the system too (a short slice's few pages are not worth a walk
    /// of every arena).
    private static func close(_ worker: Tracker, after work: Int64) {
        worker.close()
        if work > long { malloc_trim(0) }
    }
}

/// The operations a worker's sync-on writes stamped, in order (written on the worker thread,
/// taken on the loop).
private final class Stamped: @unchecked Sendable {
    private let lock = Lock()
    private var operations: [SyncOperation] = []

    func add(_ more: [SyncOperation]) {
        lock.lock()
        operations += more
        lock.unlock()
    }

    func taken() -> [SyncOperation] {
        lock.lock()
        defer { lock.unlock() }
        return operations
    }
}

extension Result {
    var succeeded: Bool {
        if case .success = self { true } else { false }
    }
}
