import CDBus
import Glibc

/// A bus connection owned by one event-loop thread, for long-lived processes (the daemon, a
/// widget following changes).
///
/// The loop thread is the only thread that touches libdbus for this connection: it polls the
/// connection's file descriptors (libdbus watches), runs libdbus timeouts, dispatches incoming
/// messages and runs work handed to it with `perform`, woken through an eventfd so that a
/// reply or signal sent from any task leaves at once. Method handlers and signal handlers run
/// on that thread, one at a time.
public final class Bus: @unchecked Sendable {
    // Set once in init, read-only afterwards.
    let connection: OpaquePointer
    /// This connection's unique name, e.g. `:1.42`.
    public let uniqueName: String
    let wakeFD: Int32
    /// The loop thread, for joining (nil once joined); `loopThread` stays for identity checks.
    var thread: pthread_t?
    var loopThread = pthread_t()

    // Shared with other threads: guarded by `lock`.
    let lock = Lock()
    var queue: [() -> Void] = []
    var stopping = false
    /// Set when the loop thread has returned; work handed over after that runs on the caller.
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
    var fdHandlers: [Int32: @Sendable () -> Void] = [:]

    /// Connects and starts the loop thread.
    public init(_ address: BusAddress = .session) throws(BusError) {
        // The eventfd first: once every property is set, a throw runs deinit, which must not
        // release a connection twice.
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw .connectionFailed("eventfd: \(String(cString: strerror(errno)))") }
        do {
            connection = try RawConnection.open(address)
        } catch {
            Glibc.close(fd)
            throw error
        }
        wakeFD = fd
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        installCallbacks()
        startThread()
    }

    deinit {
        // libdbus insists that a private connection is closed before its last reference goes.
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        Glibc.close(wakeFD)
    }

    // MARK: - Running work on the loop

    /// Runs `work` on the loop thread. From the loop thread itself it runs at once.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        if isLoopThread {
            work()
            return
        }
        lock.lock()
        if finished {
            // No loop left to run it: the connection is closed, so libdbus calls made by
            // `work` fail at once (sends report `.disconnected`) rather than waiting forever.
            lock.unlock()
            work()
            return
        }
        queue.append(work)
        lock.unlock()
        wake()
    }

    /// Runs `work` on the loop thread and waits for its result. Must not be called from a
    /// handler (it would wait for itself); from the loop thread it simply runs.
    public func sync<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) throws(BusError) -> T {
        if isLoopThread { return try work() }
        let box = ResultBox<T>()
        let done = Semaphore()
        perform {
            box.result = Result { () throws(BusError) -> T in try work() }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// Whether the caller runs on this bus's loop thread.
    public var isLoopThread: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isLoopThreadLocked
    }

    var isLoopThreadLocked: Bool {
        pthread_equal(loopThread, pthread_self()) != 0
    }

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

    /// Closes the connection and stops the loop thread; waits for it unless called from it.
    /// A deliberate close is not a lost bus: the disconnect handlers are not called.
    public func close() {
        lock.lock()
        let alreadyStopping = stopping
        stopping = true
        disconnectHandlers.removeAll()
        // Exactly one caller joins the loop thread.
        let joinable = isLoopThreadLocked ? nil : thread
        if joinable != nil { thread = nil }
        lock.unlock()
        if !alreadyStopping {
            perform { [self] in
                dbus_connection_close(connection)
            }
        }
        wake()
        if let joinable { pthread_join(joinable, nil) }
    }

    /// Polls `fd` in the loop and runs `handler` on the loop thread whenever it is readable
    /// (a timerfd, a signalfd, a pipe): one loop for everything the process waits on.
    public func watchReadable(fd: Int32, _ handler: @escaping @Sendable () -> Void) {
        perform { [self] in fdHandlers[fd] = handler }
    }

    public func unwatchReadable(fd: Int32) {
        perform { [self] in fdHandlers[fd] = nil }
    }
}
