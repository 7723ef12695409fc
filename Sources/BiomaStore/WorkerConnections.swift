import BiomaCore
import BiomaSystem
import Foundation
import GRDB

/// The connections bulk work runs on (`Tracker(workerFor:)`), lent and taken back rather than
/// opened and closed for each piece of work.
///
/// Why they are kept: a GRDB connection serializes on a `DispatchQueue` that carries
/// queue-specific values, and libdispatch releases those on one of its worker threads when the
/// queue goes. The first such thread starts libdispatch's pool monitor, a 1 s timer that then
/// wakes the process every second for the rest of its life — a daemon that had made one month's
/// report or one import would never sleep again. A connection that is never let go starts no
/// such thread. What an idle connection keeps is small: its page cache, prepared statements and
/// schema cache are given back (`releaseMemory`) when it is taken back.
///
/// At most `kept` idle connections are kept (more are lent only while more work runs at once);
/// one taken back beyond them is closed.
final class WorkerConnections: @unchecked Sendable {
    static let kept = 4
    private let lock = Lock()
    private var idle: [WorkerConnection] = []
    private var opened = 0

    /// An idle connection, or a new one to `path`, lent to work that `stopped` may end.
    func lend(path: String, stopped: @escaping @Sendable () -> Bool) throws -> WorkerConnection {
        let reused = lock.locked {
            let reused = idle.popLast()
            if reused == nil { opened += 1 }
            return reused
        }
        let connection = try reused ?? WorkerConnection(path: path)
        connection.stopped = stopped
        return connection
    }

    /// Takes back a connection whose work has ended (no statement runs on it).
    func takeBack(_ connection: WorkerConnection) {
        connection.stopped = { true }
        // What it holds for speed is given back: SQLite's page cache, GRDB's prepared
        // statements and schema cache (the next work prepares what it needs again).
        connection.queue.releaseMemory()
        let keep = lock.locked {
            let keep = idle.count < Self.kept
            if keep { idle.append(connection) }
            return keep
        }
        if !keep { try? connection.queue.close() }
    }

    /// Connections opened so far (tests).
    var openedCount: Int { lock.locked { opened } }
}

/// One worker connection: its queue, and what says whether the work it is lent to was told to
/// stop (read by its busy handler while the store is busy).
final class WorkerConnection: @unchecked Sendable {
    let queue: DatabaseQueue
    /// Whether its triggers are off (`Tracker.writeOrThrow(triggers:)`): set by the work it is
    /// lent to, one piece of work at a time.
    var triggersOff = false
    private let lock = Lock()
    private var stoppedNow: @Sendable () -> Bool = { true }

    var stopped: @Sendable () -> Bool {
        get { lock.locked { stoppedNow } }
        set { lock.locked { stoppedNow = newValue } }
    }

    init(path: String) throws {
        var configuration = Tracker.configuration
        let pause: UInt32 = 2_000  // µs between tries
        let tries = Int(Tracker.workerBusyWait / Micros(pause))
        // The busy handler runs on the worker's thread, while the work it is lent to runs.
        let box = WeakConnection()
        configuration.busyMode = .callback { count in
            guard count < tries, let stopped = box.connection?.stopped, !stopped() else { return false }
            usleep(pause)
            return true
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        box.connection = self
    }
}

/// The busy handler's way back to its connection (which owns the handler).
private final class WeakConnection: @unchecked Sendable {
    weak var connection: WorkerConnection?
}
