import CDBus
import Glibc

/// The connection as one source of its `EventLoop`: its libdbus watches and timeouts, the
/// dispatch of queued messages, and the end of the connection. All on the loop thread.
extension Bus {
    func wake() { loop.wake() }

    var closedReasonText: String {
        lock.lock()
        defer { lock.unlock() }
        return closedReason ?? "the connection is closed"
    }

    /// Dispatches every message libdbus has queued.
    func dispatchPending() {
        while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            _ = dbus_connection_dispatch(connection)
        }
    }

    /// The connection is closed or lost: it leaves the loop.
    var isDone: Bool { dbus_connection_get_is_connected(connection) == 0 }

    /// Appends the enabled libdbus watches to `fds`; returns them in the same order.
    func pollDescriptors(into fds: inout [pollfd]) -> [OpaquePointer] {
        var polled: [OpaquePointer] = []
        for watch in watches where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            polled.append(watch)
        }
        return polled
    }

    /// Hands what poll returned for `polled` to libdbus.
    func handle(_ polled: [OpaquePointer], revents: [Int16]) {
        for (watch, revents) in zip(polled, revents) {
            guard revents != 0, watches.contains(watch) else { continue }
            var flags: UInt32 = 0
            if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            _ = dbus_watch_handle(watch, flags)
        }
    }

    /// Milliseconds until the earliest enabled libdbus timeout, nil when none.
    func nextTimeout(now: UInt64) -> Int32? {
        var wait: Int32?
        for (timeout, deadline) in timeouts where dbus_timeout_get_enabled(timeout) != 0 {
            let remaining = deadline > now ? Int32(clamping: deadline - now) : 0
            wait = wait.map { min($0, remaining) } ?? remaining
        }
        return wait
    }

    /// Runs the libdbus timeouts that are due.
    func runTimeouts(now: UInt64) {
        // Handling one timeout may remove others (and free them): look each up again.
        let expired = timeouts.filter { dbus_timeout_get_enabled($0.key) != 0 && $0.value <= now }.map(\.key)
        for timeout in expired where timeouts[timeout] != nil {
            timeouts[timeout] = now + UInt64(max(0, dbus_timeout_get_interval(timeout)))
            _ = dbus_timeout_handle(timeout)
        }
    }

    /// Closes the connection now and takes it off the loop (on the loop thread).
    func closeNow() {
        dbus_connection_close(connection)
        dispatchPending()
        finish("the connection was closed")
    }

    /// Takes the closed connection off the loop, once: nothing handed to it may keep objects
    /// (or the bus itself) alive, and the disconnect handlers run.
    func finish(_ reason: String) {
        lock.lock()
        let already = finished
        finished = true
        lock.unlock()
        guard !already else { return }
        loop.unregister(self)
        subscriptions.removeAll()
        objects.removeAll()
        nameLostHandlers.removeAll()
        markClosed(reason)
    }

    func markClosed(_ reason: String) {
        lock.lock()
        guard closedReason == nil else {
            lock.unlock()
            return
        }
        closedReason = reason
        let handlers = disconnectHandlers
        disconnectHandlers.removeAll()
        lock.unlock()
        for handler in handlers { handler(reason) }
    }

    static func monotonicMilliseconds() -> UInt64 { EventLoop.monotonicMilliseconds() }
}
