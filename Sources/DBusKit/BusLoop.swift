import CDBus
import Glibc

/// The loop thread: the wake-up eventfd, poll over libdbus watches, timeouts and extra
/// descriptors, and the end of the connection.
extension Bus {
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    var closedReasonText: String {
        lock.lock()
        defer { lock.unlock() }
        return closedReason ?? "the connection is closed"
    }

    func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        // The new thread waits for this lock before its first look at `loopThread`.
        lock.lock()
        let rc = pthread_create(
            &tid, nil,
            { context in
                let bus = Unmanaged<Bus>.fromOpaque(context!).takeRetainedValue()
                bus.run()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        thread = tid
        loopThread = tid
        lock.unlock()
    }

    func run() {
        lock.lock()
        lock.unlock()
        defer {
            // Nothing handed to a closed bus may keep objects (or the bus itself) alive.
            subscriptions.removeAll()
            fdHandlers.removeAll()
            objects.removeAll()
            nameLostHandlers.removeAll()
        }
        var fds: [pollfd] = []
        while true {
            // Queued work first: it may send, which libdbus writes at once where it can.
            lock.lock()
            var work = queue
            queue.removeAll(keepingCapacity: true)
            let stop = stopping
            lock.unlock()
            for item in work { item() }
            // Release the closures (and what they captured) now, not after the next poll: an
            // idle loop would otherwise keep them alive indefinitely.
            work.removeAll()

            while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
                _ = dbus_connection_dispatch(connection)
            }
            if stop || dbus_connection_get_is_connected(connection) == 0 {
                lock.lock()
                let leftover = queue
                queue.removeAll()
                if leftover.isEmpty { finished = true }
                lock.unlock()
                if leftover.isEmpty { break }
                for item in leftover { item() }
                continue
            }

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            var polled: [OpaquePointer] = []
            for watch in watches where dbus_watch_get_enabled(watch) != 0 {
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
                polled.append(watch)
            }
            let extraFDs = Array(fdHandlers.keys)
            for fd in extraFDs { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let now = Self.monotonicMilliseconds()
            var wait: Int32 = -1
            for (timeout, deadline) in timeouts where dbus_timeout_get_enabled(timeout) != 0 {
                let remaining = deadline > now ? Int32(clamping: deadline - now) : 0
                wait = wait < 0 ? remaining : min(wait, remaining)
            }
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 && errno != EINTR {
                // Cannot happen with valid descriptors; close rather than spin.
                dbus_connection_close(connection)
                continue
            }

            if fds[0].revents != 0 {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
            }
            for (index, watch) in polled.enumerated() {
                let revents = fds[index + 1].revents
                guard revents != 0, watches.contains(watch) else { continue }
                var flags: UInt32 = 0
                if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                _ = dbus_watch_handle(watch, flags)
            }
            for (index, fd) in extraFDs.enumerated() where fds[polled.count + 1 + index].revents != 0 {
                fdHandlers[fd]?()
            }
            let after = Self.monotonicMilliseconds()
            // Handling one timeout may remove others (and free them): look each up again.
            let expired = timeouts.filter { dbus_timeout_get_enabled($0.key) != 0 && $0.value <= after }.map(\.key)
            for timeout in expired where timeouts[timeout] != nil {
                timeouts[timeout] = after + UInt64(max(0, dbus_timeout_get_interval(timeout)))
                _ = dbus_timeout_handle(timeout)
            }
        }
        markClosed("the connection was closed")
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

    static func monotonicMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }
}
