import BiomaSystem
import CDBus
import Glibc

/// A bus connection on an event loop, for long-lived processes (the daemon, a widget following
/// changes).
///
/// The loop's thread is the only thread that touches libdbus for this connection: it polls the
/// connection's file descriptors (libdbus watches) beside everything else registered on the
/// `EventLoop`, runs libdbus timeouts, dispatches incoming messages and runs work handed to it
/// with `perform`, woken through the loop's eventfd so that a reply or signal sent from any task
/// leaves at once. Method handlers and signal handlers run on that thread, one at a time. Any
/// number of connections (the session bus and the system bus) share one loop; a bus made
/// without one gets a loop of its own, which stops when the bus closes.
public final class Bus: LoopRunner, @unchecked Sendable {
    // Set once in init, read-only afterwards.
    let connection: OpaquePointer
    /// This connection's unique name, e.g. `:1.42`.
    public let uniqueName: String
    /// The loop this connection is polled on.
    public let loop: EventLoop
    /// Whether the loop was made for this bus alone (it stops when the bus closes).
    let ownsLoop: Bool
    /// Where the bus tells what failed with nobody to answer (a signal that could not be sent):
    /// standard error unless the owner passes its log. Set before the loop runs.
    public var report: @Sendable (String) -> Void = { text in
        var line = Array(("dbuskit: " + text + "\n").utf8)
        _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    // Shared with other threads: guarded by `lock`.
    let lock = Lock()
    var stopping = false
    /// Set once the connection has left the loop; work handed over after that runs on the caller.
    var finished = false
    var disconnectHandlers: [@Sendable (String) -> Void] = []
    var closedReason: String?

    // Loop-thread only.
    var watches: [OpaquePointer] = []
    var timeouts: [OpaquePointer: UInt64] = [:]  // DBusTimeout* → deadline (ms, monotonic)
    var objects: [String: ExportedObject] = [:]
    var subscriptions: [Int: Subscription] = [:]
    var nextSubscriptionID = 1
    var nameLostHandlers: [String: @Sendable () -> Void] = [:]
    /// Messages kept while the loop is held (`EventLoop.hold`), in order.
    var kept: [BusMessage] = []

    /// Connects and registers the connection on `loop`, or on a loop of its own when nil.
    public init(_ address: BusAddress = .session, loop: EventLoop? = nil) throws(BusError) {
        let connection = try RawConnection.open(address)
        if let loop {
            self.loop = loop
            ownsLoop = false
        } else {
            do {
                self.loop = try EventLoop()
            } catch {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                throw error
            }
            ownsLoop = true
        }
        self.connection = connection
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        installCallbacks()
        self.loop.perform { [self] in self.loop.register(self) }
    }

    deinit {
        // libdbus insists that a private connection is closed before its last reference goes.
        dbus_connection_close(connection)
        // The connection can outlive this object (a pending call holds a reference to it):
        // libdbus must not call back with a pointer to it once it is gone. (It did: a daemon
        // whose bus went away died in swift_release on its main thread, now and then.)
        removeCallbacks()
        dbus_connection_unref(connection)
    }

    // MARK: - Running work on the loop

    /// Runs `work` on the loop thread. From the loop thread itself it runs at once.
    public func perform(_ work: @escaping @Sendable () -> Void) { perform(whileHeld: false, work) }

    /// `perform`, and with `whileHeld` run even while the loop is held (`EventLoop.hold`).
    ///
    /// A closed connection's work still goes to the loop while the loop runs (its libdbus calls
    /// then fail at once): run in place on another thread, it raced the loop taking the closed
    /// connection off (`finish`), and a daemon whose bus went away died in `releaseName`
    /// mutating `nameLostHandlers` beside it. Once the loop has stopped it runs in place.
    public func perform(whileHeld: Bool, _ work: @escaping @Sendable () -> Void) {
        loop.perform(whileHeld: whileHeld, work)
    }

    /// Whether the caller runs on this bus's loop thread.
    public var isLoopThread: Bool { loop.isLoopThread }

    /// Whether the connection is still open.
    public var isConnected: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closedReason == nil
    }

    /// Called once, on the loop thread, when the bus connection is lost or closed.
    public func onDisconnect(_ handler: @escaping @Sendable (String) -> Void) {
        lock.lock()
        if let reason = closedReason {
            lock.unlock()
            handler(reason)
            return
        }
        disconnectHandlers.append(handler)
        lock.unlock()
    }

    /// Closes the connection and takes it off the loop (stopping the loop when it is the
    /// bus's own); waits for that unless called from the loop thread. A deliberate close is
    /// not a lost bus: the disconnect handlers are not called.
    public func close() {
        lock.lock()
        stopping = true
        disconnectHandlers.removeAll()
        lock.unlock()
        if loop.isLoopThread {
            closeNow()
        } else {
            _ = try? loop.sync { [self] () throws(BusError) in closeNow() }
        }
        if ownsLoop { loop.stop() }
    }
}
