import BiomaSystem
import CSystem
import CDBus
import Glibc

/// One event loop per process, as mako has one: a single thread owns `poll`, the wake-up
/// eventfd, the work handed over from other threads, general descriptor watches
/// (`watch(fd:events:_:)`: a timerfd, a signalfd, stdin, inotify) and the bus connections
/// registered on it (`Bus(address, loop:)`: the session bus and the system bus alike), whose
/// libdbus watches and timeouts it polls beside everything else. `Deadlines` are the loop's
/// timers (`deadlines()`, one for the whole loop), two timerfds watched here.
///
/// Everything registered runs on the loop thread, one handler at a time, so what the handlers
/// share needs no lock.
public final class EventLoop: LoopRunner, @unchecked Sendable {
    /// A registered descriptor watch.
    public struct WatchHandle: Hashable, Sendable {
        let id: Int
    }

    let wakeFD: Int32
    private var thread: pthread_t?
    private var loopThread = pthread_t()

    // Shared with other threads: guarded by `lock`.
    let lock = Lock()
    private var queue: [(work: () -> Void, whileHeld: Bool)] = []
    private var stopping = false
    /// Set when the loop thread has returned; work handed over after that runs on the caller.
    private var finished = false
    private var nextWatchID = 0

    // Loop-thread only.
    private var watches: [Int: (fd: Int32, events: Int16, whileHeld: Bool, handler: @Sendable (Int16) -> Void)] = [:]
    var buses: [Bus] = []
    /// Set while bulk work owns the store on another thread (`hold`); read on the loop thread.
    public private(set) var held = false
    /// The loop's deadlines (`deadlines()`), made at the first use.
    private var shared: Deadlines?
    /// Work that arrived while the loop was held, in order, for after `release`.
    private var heldWork: [() -> Void] = []
    /// Calls made in process on the loop thread itself, under way (`Bus.callLocally`).
    var inPlace = 0
    /// Whether the loop thread is inside a call made in process on it, which cannot wait for
    /// a later turn: work that would be handed to another thread and answered later (bulk
    /// work) runs in place instead. On the loop thread.
    public var finishesInPlace: Bool { inPlace > 0 }

    /// Creates the eventfd and starts the loop thread.
    public init() throws(BusError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw .connectionFailed("eventfd: \(String(cString: strerror(errno)))") }
        wakeFD = fd
        startThread()
    }

    deinit {
        Glibc.close(wakeFD)
    }

    /// Makes the loop thread look again. On the loop thread itself there is nothing to do:
    /// every turn dispatches what libdbus holds and rebuilds its descriptors and deadlines
    /// before it polls, and polls without waiting when work was queued during the turn.
    /// (libdbus asks for a wake-up from inside the loop's own calls, e.g. each time it reads
    /// a message; writing the eventfd then cost a write, a poll and a read per message.)
    func wake() {
        guard !isLoopThread else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: - Running work on the loop

    /// Runs `work` on the loop thread. From the loop thread itself it runs at once.
    public func perform(_ work: @escaping @Sendable () -> Void) { perform(whileHeld: false, work) }

    /// `perform`; handed over from another thread while the loop is held, the work waits for
    /// `release`, unless `whileHeld` says it touches nothing bulk work owns (a reply, a read).
    public func perform(whileHeld: Bool, _ work: @escaping @Sendable () -> Void) {
        if isLoopThread {
            work()
            return
        }
        lock.lock()
        if finished {
            // No loop left to run it: whatever `work` calls on a closed connection fails at once.
            lock.unlock()
            work()
            return
        }
        queue.append((work, whileHeld))
        lock.unlock()
        wake()
    }

    /// `perform(whileHeld:)` for work that must run on the loop or not at all (a handler, the
    /// end of bulk work): once the loop has stopped, `work` is dropped and false returned,
    /// instead of being run on the caller's thread beside the process's tear-down.
    @discardableResult
    public func performIfRunning(whileHeld: Bool = false, _ work: @escaping @Sendable () -> Void) -> Bool {
        if isLoopThread {
            work()
            return true
        }
        lock.lock()
        if finished || stopping {
            lock.unlock()
            return false
        }
        queue.append((work, whileHeld))
        lock.unlock()
        wake()
        return true
    }

    /// Runs `work` on the loop thread at its next turn, even when called from the loop thread:
    /// after the handler running now has returned and its reply has been handed to libdbus.
    /// Dropped when the loop has stopped (there is no turn left to run it on).
    public func later(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        if finished {
            lock.unlock()
            return
        }
        queue.append((work, false))
        lock.unlock()
        wake()
    }

    /// The loop's one `Deadlines`, made at the first call: every part on the loop takes its
    /// timers there (the daemon's day boundary and focus phase, a hook's time limit, a caller's
    /// silence). On the loop thread.
    public func deadlines() throws(BusError) -> Deadlines {
        if let shared { return shared }
        let made = try Deadlines(loop: self)
        shared = made
        return made
    }

    // MARK: - Holding the loop for bulk work

    /// Holds the loop while bulk work owns the store on another thread: until `release`, the
    /// loop runs only what cannot touch the store — bus calls that only read (each bus
    /// admits them: `Bus.admittedWhileHeld`), replies, watches registered `whileHeld` (the
    /// signals) and work handed over `whileHeld` — and keeps everything else (other calls,
    /// signals, deadlines, watches, work) in the order it came, for after. On the loop thread.
    public func hold() {
        precondition(isLoopThread && !held, "hold() is for the loop thread, once at a time")
        held = true
    }

    /// Ends `hold`: what was kept runs now, in order, before anything that comes later — each
    /// bus's calls and signals first, as they would have been dispatched, then the work; the
    /// watches at the next turn. Something kept that holds the loop again keeps the rest for
    /// the next release.
    public func release() {
        precondition(isLoopThread && held, "release() without hold()")
        held = false
        for bus in buses {
            guard !held else { return }
            bus.dispatchKept()
        }
        while !held, !heldWork.isEmpty { heldWork.removeFirst()() }
    }

    /// Whether the caller runs on the loop thread.
    public var isLoopThread: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isLoopThreadLocked
    }

    /// Once the loop has finished its thread is gone, and a thread made later may be given
    /// the same id: no thread is the loop's then.
    var isLoopThreadLocked: Bool {
        !finished && pthread_equal(loopThread, pthread_self()) != 0
    }

    /// Polls `fd` for `events` (POLLIN by default) and runs `handler` on the loop thread with
    /// the returned events whenever any is ready. A watch made `whileHeld` is polled while
    /// the loop is held too (the signals).
    @discardableResult
    public func watch(
        fd: Int32, events: Int16 = Int16(POLLIN), whileHeld: Bool = false, _ handler: @escaping @Sendable (Int16) -> Void
    ) -> WatchHandle {
        lock.lock()
        nextWatchID += 1
        let handle = WatchHandle(id: nextWatchID)
        lock.unlock()
        perform(whileHeld: true) { [self] in watches[handle.id] = (fd, events, whileHeld, handler) }
        return handle
    }

    /// Stops watching; the handler is released on the loop thread.
    public func unwatch(_ handle: WatchHandle) {
        perform(whileHeld: true) { [self] in watches[handle.id] = nil }
    }

    /// Stops the loop: every bus on it is closed (without calling its disconnect handlers),
    /// queued work still runs, and the caller waits for the thread unless it is the thread.
    public func stop() {
        lock.lock()
        stopping = true
        let joinable = isLoopThreadLocked ? nil : thread
        if joinable != nil { thread = nil }
        lock.unlock()
        wake()
        if let joinable { pthread_join(joinable, nil) }
    }

    /// Blocks the calling thread until the loop has stopped.
    public func wait() {
        lock.lock()
        let joinable = isLoopThreadLocked ? nil : thread
        if joinable != nil { thread = nil }
        lock.unlock()
        if let joinable { pthread_join(joinable, nil) }
    }

    // MARK: - The thread

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        // The new thread waits for this lock before its first look at `loopThread`.
        lock.lock()
        let rc = pthread_create(
            &tid, nil,
            { context in
                let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        thread = tid
        loopThread = tid
        lock.unlock()
    }

    /// Adds a bus connection (on the loop thread).
    func register(_ bus: Bus) {
        buses.append(bus)
    }

    /// Removes a bus connection that is closed or lost (on the loop thread).
    func unregister(_ bus: Bus) {
        buses.removeAll { $0 === bus }
    }

    private func run() {
        lock.lock()
        lock.unlock()
        var fds: [pollfd] = []
        while true {
            // Queued work first: it may send, which libdbus writes at once where it can.
            lock.lock()
            var work = queue
            queue.removeAll(keepingCapacity: true)
            let stop = stopping
            lock.unlock()
            for item in work {
                // Checked per item: one of them may hold or release the loop.
                if held && !item.whileHeld { heldWork.append(item.work) } else { item.work() }
            }
            // Release the closures (and what they captured) now, not after the next poll: an
            // idle loop would otherwise keep them alive indefinitely.
            work.removeAll()

            for bus in buses { bus.dispatchPending() }
            for bus in buses where bus.isDone { bus.finish("the connection was closed") }
            if stop {
                for bus in buses { bus.closeNow() }
                lock.lock()
                let leftover = queue
                queue.removeAll()
                if leftover.isEmpty { finished = true }
                lock.unlock()
                if leftover.isEmpty { break }
                for item in leftover { item.work() }
                continue
            }

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            var polled: [(Bus, [OpaquePointer])] = []
            for bus in buses {
                let list = bus.pollDescriptors(into: &fds)
                polled.append((bus, list))
            }
            let watched = watches.sorted { $0.key < $1.key }.filter { !held || $0.value.whileHeld }
            for (_, entry) in watched { fds.append(pollfd(fd: entry.fd, events: entry.events, revents: 0)) }
            let now = Self.monotonicMilliseconds()
            var wait: Int32 = -1
            for bus in buses {
                if let remaining = bus.nextTimeout(now: now) { wait = wait < 0 ? remaining : min(wait, remaining) }
            }
            // Work queued or a stop asked for during this turn, on this thread, wrote no
            // wake-up (see `wake`): then the poll only collects what is ready.
            lock.lock()
            if !queue.isEmpty || stopping { wait = 0 }
            lock.unlock()
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 && errno != EINTR {
                // Cannot happen with valid descriptors; close rather than spin.
                for bus in buses { bus.closeNow() }
                continue
            }

            if fds[0].revents != 0 {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
            }
            var index = 1
            for (bus, list) in polled {
                bus.handle(list, revents: fds[index..<(index + list.count)].map(\.revents))
                index += list.count
            }
            for (id, entry) in watched {
                let revents = fds[index].revents
                index += 1
                // A handler may have removed a later watch: look each up again.
                guard revents != 0, watches[id] != nil else { continue }
                entry.handler(revents)
            }
            let after = Self.monotonicMilliseconds()
            for bus in buses { bus.runTimeouts(now: after) }
        }
        // Nothing handed to a stopped loop may keep objects alive (the deadlines hold the loop).
        shared = nil
        watches.removeAll()
        buses.removeAll()
    }

    static func monotonicMilliseconds() -> UInt64 { UInt64(csystem_clock_us(CLOCK_MONOTONIC) / 1000) }
}
