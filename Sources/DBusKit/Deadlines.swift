import CSystem
import Glibc

/// Deadlines on an event loop's thread, the loop's one source of timers: any number of
/// instants on the wall clock (`CLOCK_REALTIME`, in one timerfd armed at the earliest of them,
/// with `TFD_TIMER_CANCEL_ON_SET`) and on the monotonic clock (a second timerfd, for a span
/// from now that no clock change moves: a time limit, a silence, a pause).
///
/// A deadline's handler runs on the loop thread when its instant has come (`.due`; it is then
/// no longer scheduled), and every wall-clock handler runs with `.clockChanged` when the
/// wall clock is set or the machine resumes from suspend (the kernel cancels the timer then),
/// so each one re-checks what it waits for and schedules itself again. While nothing is
/// scheduled on a clock its timerfd is disarmed and the loop does not wake for it at all.
///
/// Use it from the loop thread only (handlers, `EventLoop.perform` and `Bus.perform` blocks).
public final class Deadlines: @unchecked Sendable {
    public enum Reason: Sendable, Equatable {
        /// The deadline's instant has come.
        case due
        /// The wall clock was set, or the machine resumed: re-check and schedule again.
        case clockChanged
    }

    /// The clock a deadline's instants are read on.
    public enum Clock: Sendable {
        /// µs since the Unix epoch; set by the user or NTP, stopped across a suspend.
        case wall
        /// µs since an unspecified start; never set. Its handlers see only `.due`.
        case monotonic

        var id: clockid_t { self == .wall ? CLOCK_REALTIME : CLOCK_MONOTONIC }
    }

    public typealias Handler = @Sendable (Reason) -> Void

    /// One registered deadline.
    public struct Handle: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct Entry {
        let clock: Clock
        var instant: Int64?
        let handler: Handler
    }

    /// One clock's timerfd, and the instant it is armed at (nil when disarmed).
    private struct Timer {
        let fd: Int32
        var watch: EventLoop.WatchHandle?
        var armed: Int64?
    }

    private let loop: EventLoop
    private var timers: [Clock: Timer] = [:]
    private var entries: [Int: Entry] = [:]
    private var nextID = 0

    /// Creates the two timerfds and watches them on `loop`.
    public init(loop: EventLoop) throws(BusError) {
        self.loop = loop
        for clock in [Clock.wall, .monotonic] {
            let fd = timerfd_create(clock.id, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
            guard fd >= 0 else {
                for timer in timers.values { close(timer.fd) }
                throw .outOfMemory
            }
            timers[clock] = Timer(fd: fd)
        }
        for clock in [Clock.wall, .monotonic] {
            timers[clock]!.watch = loop.watch(fd: timers[clock]!.fd) { [weak self] _ in self?.fired(clock) }
        }
    }

    /// Creates the timerfds and watches them on `bus`'s loop.
    public convenience init(bus: Bus) throws(BusError) {
        try self.init(loop: bus.loop)
    }

    deinit {
        for timer in timers.values {
            if let watch = timer.watch { loop.unwatch(watch) }
            close(timer.fd)
        }
    }

    /// Registers a deadline on `clock`, not yet scheduled.
    public func add(_ clock: Clock = .wall, _ handler: @escaping Handler) -> Handle {
        nextID += 1
        entries[nextID] = Entry(clock: clock, instant: nil, handler: handler)
        return Handle(id: nextID)
    }

    /// Schedules `handle` at `instant` (µs on its clock: since the Unix epoch on the wall
    /// clock), or cancels it with nil. An instant already past is due at once.
    public func schedule(_ handle: Handle, at instant: Int64?) {
        guard let entry = entries[handle.id] else { return }
        entries[handle.id]?.instant = instant
        rearm(entry.clock)
    }

    /// Schedules `handle` `microseconds` from now on its clock.
    public func schedule(_ handle: Handle, after microseconds: Int64) {
        guard let entry = entries[handle.id] else { return }
        schedule(handle, at: Self.now(entry.clock) + microseconds)
    }

    /// When `handle` is scheduled, or nil.
    public func instant(of handle: Handle) -> Int64? { entries[handle.id]?.instant }

    /// Removes a deadline for good.
    public func remove(_ handle: Handle) {
        guard let entry = entries.removeValue(forKey: handle.id) else { return }
        rearm(entry.clock)
    }

    /// The current wall-clock time, µs since the Unix epoch.
    public static func now() -> Int64 { now(.wall) }

    /// `clock`'s reading, µs.
    public static func now(_ clock: Clock) -> Int64 { csystem_clock_us(clock.id) }

    private func fired(_ clock: Clock) {
        guard let fd = timers[clock]?.fd else { return }
        var expirations: UInt64 = 0
        let n = read(fd, &expirations, 8)
        let clockChanged = clock == .wall && n < 0 && errno == ECANCELED
        timers[clock]?.armed = nil
        if clockChanged {
            // Every wall-clock deadline re-checks, in registration order.
            for id in entries.keys.sorted() {
                guard let entry = entries[id], entry.clock == .wall else { continue }
                entry.handler(.clockChanged)
            }
        } else {
            let now = Self.now(clock)
            let due = entries.filter { $0.value.clock == clock && ($0.value.instant ?? .max) <= now }.keys.sorted()
            for id in due {
                guard let entry = entries[id], let instant = entry.instant, instant <= now else { continue }
                entries[id]?.instant = nil
                entry.handler(.due)
            }
        }
        rearm(clock)
    }

    /// Arms `clock`'s timerfd at its earliest scheduled instant, or disarms it.
    private func rearm(_ clock: Clock) {
        guard let timer = timers[clock] else { return }
        let earliest = entries.values.filter { $0.clock == clock }.compactMap(\.instant).min()
        // A timer armed with cancel-on-set must be re-armed after a cancellation even at the
        // same instant; `armed` is cleared in `fired` for that.
        guard earliest != timer.armed else { return }
        timers[clock]?.armed = earliest
        var spec = itimerspec()
        // The wall clock's instant is absolute; the monotonic one is armed as the span from
        // now, read on the same clock the instant was computed on (a clock a preloaded library
        // such as libfaketime offsets for this process, but not for the kernel's timers).
        // An instant at or before zero would disarm the timer: one µs is as good as now.
        let at = earliest.map { Swift.max(clock == .wall ? $0 : $0 - Self.now(clock), 1) }
        if let at { spec.it_value = timespec(tv_sec: Int(at / 1_000_000), tv_nsec: Int(at % 1_000_000) * 1000) }
        if clock == .wall {
            timerfd_settime(timer.fd, Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET), &spec, nil)
        } else {
            timerfd_settime(timer.fd, 0, &spec, nil)
        }
    }
}
