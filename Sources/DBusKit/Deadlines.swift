import CSystem
import Glibc

/// Deadlines on an event loop's thread: any number of absolute `CLOCK_REALTIME` instants, kept
/// in one timerfd armed at the earliest of them, with `TFD_TIMER_CANCEL_ON_SET`.
///
/// A deadline's handler runs on the loop thread when its instant has come (`.due`; it is then
/// no longer scheduled), and every registered handler runs with `.clockChanged` when the
/// wall clock is set or the machine resumes from suspend (the kernel cancels the timer then),
/// so each one re-checks what it waits for and schedules itself again. While nothing is
/// scheduled the timerfd is disarmed and the loop does not wake for it at all.
///
/// Use it from the loop thread only (handlers, `EventLoop.perform` and `Bus.perform` blocks).
public final class Deadlines: @unchecked Sendable {
    public enum Reason: Sendable, Equatable {
        /// The deadline's instant has come.
        case due
        /// The wall clock was set, or the machine resumed: re-check and schedule again.
        case clockChanged
    }

    public typealias Handler = @Sendable (Reason) -> Void

    /// One registered deadline.
    public struct Handle: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct Entry {
        var instant: Int64?
        let handler: Handler
    }

    private let loop: EventLoop
    private let fd: Int32
    private var watch: EventLoop.WatchHandle?
    private var entries: [Int: Entry] = [:]
    private var nextID = 0
    /// The instant the timerfd is armed at, nil when disarmed.
    private var armed: Int64?

    /// Creates the timerfd and watches it on `loop`.
    public init(loop: EventLoop) throws(BusError) {
        let fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard fd >= 0 else { throw .outOfMemory }
        self.loop = loop
        self.fd = fd
        watch = loop.watch(fd: fd) { [weak self] _ in self?.fired() }
    }

    /// Creates the timerfd and watches it on `bus`'s loop.
    public convenience init(bus: Bus) throws(BusError) {
        try self.init(loop: bus.loop)
    }

    deinit {
        if let watch { loop.unwatch(watch) }
        close(fd)
    }

    /// Registers a deadline, not yet scheduled.
    public func add(_ handler: @escaping Handler) -> Handle {
        nextID += 1
        entries[nextID] = Entry(instant: nil, handler: handler)
        return Handle(id: nextID)
    }

    /// Schedules `handle` at `instant` (µs since the Unix epoch on the wall clock), or cancels
    /// it with nil. An instant already past is due at once.
    public func schedule(_ handle: Handle, at instant: Int64?) {
        guard entries[handle.id] != nil else { return }
        entries[handle.id]?.instant = instant
        rearm()
    }

    /// When `handle` is scheduled, or nil.
    public func instant(of handle: Handle) -> Int64? { entries[handle.id]?.instant }

    /// Removes a deadline for good.
    public func remove(_ handle: Handle) {
        entries[handle.id] = nil
        rearm()
    }

    /// The current wall-clock time, µs since the Unix epoch.
    public static func now() -> Int64 { csystem_clock_us(CLOCK_REALTIME) }

    private func fired() {
        var expirations: UInt64 = 0
        let n = read(fd, &expirations, 8)
        let clockChanged = n < 0 && errno == ECANCELED
        armed = nil
        if clockChanged {
            // Every deadline re-checks, in registration order.
            for id in entries.keys.sorted() {
                guard let entry = entries[id] else { continue }
                entry.handler(.clockChanged)
            }
        } else {
            let now = Self.now()
            let due = entries.filter { ($0.value.instant ?? .max) <= now }.keys.sorted()
            for id in due {
                guard let entry = entries[id], let instant = entry.instant, instant <= now else { continue }
                entries[id]?.instant = nil
                entry.handler(.due)
            }
        }
        rearm()
    }

    /// Arms the timerfd at the earliest scheduled instant, or disarms it.
    private func rearm() {
        let earliest = entries.values.compactMap(\.instant).min()
        // A timer armed with cancel-on-set must be re-armed after a cancellation even at the
        // same instant; `armed` is cleared in `fired` for that.
        guard earliest != armed else { return }
        armed = earliest
        var spec = itimerspec()
        if let earliest {
            // An instant at or before the epoch would disarm the timer: one µs after it is
            // as good as now.
            let at = Swift.max(earliest, 1)
            spec.it_value = timespec(tv_sec: Int(at / 1_000_000), tv_nsec: Int(at % 1_000_000) * 1000)
        }
        timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET), &spec, nil)
    }
}
