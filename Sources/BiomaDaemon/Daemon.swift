import BiomaCore
import BiomaStore
import CSystem
import DBusKit
import Foundation

/// The wall clock.
public struct SystemClock: TimeSource {
    public init() {}
    public func now() -> Micros {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Micros(ts.tv_sec) * 1_000_000 + Micros(ts.tv_nsec / 1000)
    }
}

public struct DaemonOptions: Sendable {
    public var address: BusAddress = .session
    public var dataDirectory: URL?
    public var replace = false
    public var rules = DayRules()
    public init() {}
}

/// `biomatimer daemon`: one loop thread (the bus's) owns the connection, the tracker, the
/// day-boundary and heartbeat timers and the signal descriptor. The main thread only waits
/// for the exit code.
public enum Daemon {
    /// Runs until SIGTERM/SIGINT, the loss of the name or of the bus. Returns the exit code.
    public static func run(_ options: DaemonOptions, log: @escaping @Sendable (String) -> Void) -> Int32 {
        // Block the signals before any thread exists, so every thread inherits the mask and
        // they arrive only through the signalfd, on the loop thread.
        var signals = sigset_t()
        sigemptyset(&signals)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, s) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let signalFD = signalfd(-1, &signals, Int32(SFD_CLOEXEC | SFD_NONBLOCK))

        let clock = SystemClock()
        let directory = options.dataDirectory ?? Tracker.defaultDataDirectory()
        let tracker: Tracker
        do {
            tracker = try Tracker(dataDirectory: directory, rules: options.rules, now: clock.now(), bootID: bootID())
        } catch {
            log("cannot open the store: \(error)")
            return 1
        }
        let bus: Bus
        do {
            bus = try Bus(options.address)
        } catch {
            log("\(error)")
            return 3
        }
        let service = TimerService(tracker: tracker, bus: bus, clock: clock)
        let exit = ExitSignal()
        let timers = DaemonTimers(service: service, bus: bus)

        do {
            // Export first: calls queued while the bus activated us find the object.
            try service.export()
            try bus.requestName(TimerAPI.busName, replace: options.replace) {
                log("another daemon took over \(TimerAPI.busName); exiting")
                exit.finish(0)
            }
        } catch {
            if case .nameTaken(_, let owner) = error {
                log("another daemon is running: \(TimerAPI.busName) is owned by \(owner). Use --replace to take over.")
            } else {
                log("cannot publish \(TimerAPI.busName): \(error)")
            }
            bus.close()
            return 1
        }
        bus.onDisconnect { reason in
            log("lost the bus (\(reason)); exiting")
            exit.finish(1)
        }
        bus.watchReadable(fd: signalFD) {
            var info = signalfd_siginfo()
            _ = read(signalFD, &info, MemoryLayout<signalfd_siginfo>.size)
            exit.finish(0)
        }
        bus.perform {
            timers.install()
            service.onStateChange = { timers.update($0) }
            service.checkDayBoundary()
        }
        let code = exit.wait()
        // Handlers run on the loop thread: once this block runs, none is in flight.
        _ = try? bus.sync { () throws(BusError) in
            if tracker.timerState.running { service.heartbeat() }
        }
        try? bus.releaseName(TimerAPI.busName)
        bus.close()
        Glibc.close(signalFD)
        return code
    }

    /// The kernel's id for this boot: a running interval recorded under another one was cut
    /// short by a reboot.
    static func bootID() -> String {
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
    }
}

/// The first exit reason wins; the main thread waits for it.
final class ExitSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var code: Int32?

    func finish(_ value: Int32) {
        condition.lock()
        if code == nil { code = value }
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while code == nil { condition.wait() }
        return code!
    }
}

/// The daemon's only wake-ups: the next day boundary, and a heartbeat every few minutes while
/// the timer runs. Both are timerfds polled by the bus loop; loop thread only.
final class DaemonTimers: @unchecked Sendable {
    private let service: TimerService
    private let bus: Bus
    /// CLOCK_REALTIME, absolute, cancelled when the clock is set: fires at the boundary even
    /// after a suspend, and at once when the clock jumps.
    private let dayFD: Int32
    /// CLOCK_BOOTTIME, periodic while running.
    private let heartbeatFD: Int32
    private var heartbeatArmed = false

    init(service: TimerService, bus: Bus) {
        self.service = service
        self.bus = bus
        dayFD = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        heartbeatFD = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    }

    deinit {
        Glibc.close(dayFD)
        Glibc.close(heartbeatFD)
    }

    func install() {
        bus.watchReadable(fd: dayFD) { [self] in
            var expirations: UInt64 = 0
            _ = read(dayFD, &expirations, 8)  // ECANCELED after a clock jump: same response
            service.checkDayBoundary()
        }
        bus.watchReadable(fd: heartbeatFD) { [self] in
            var expirations: UInt64 = 0
            _ = read(heartbeatFD, &expirations, 8)
            service.heartbeat()
        }
    }

    func update(_ snapshot: TrackerSnapshot) {
        var day = itimerspec()
        day.it_value = Self.timespec(micros: snapshot.nextDayBoundary)
        timerfd_settime(dayFD, Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET), &day, nil)

        if snapshot.running != heartbeatArmed {
            heartbeatArmed = snapshot.running
            var beat = itimerspec()
            if snapshot.running {
                let interval = Self.timespec(micros: Tracker.heartbeatInterval)
                beat.it_value = interval
                beat.it_interval = interval
            }
            timerfd_settime(heartbeatFD, 0, &beat, nil)
        }
    }

    static func timespec(micros: Micros) -> Glibc.timespec {
        Glibc.timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
    }
}
