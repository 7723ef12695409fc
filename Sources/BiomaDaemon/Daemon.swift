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
        let bus: Bus
        do {
            bus = try Bus(options.address)
        } catch {
            log("\(error)")
            return 3
        }
        let exit = ExitSignal()
        let onLost: @Sendable () -> Void = {
            log("another daemon took over \(TimerAPI.busName); exiting")
            exit.finish(0)
        }
        // One daemon per store, whatever the bus: the store lock is held for the process's life.
        let storeLock: StoreLock
        do {
            storeLock = try StoreLock(directory: directory)
        } catch {
            log("cannot open the store: \(error)")
            bus.close()
            return 1
        }

        // Everything from taking the lock to publishing the object happens in one block on
        // the loop thread: no call is dispatched before the object exists, and with --replace
        // the store is read only after the old daemon has let go of it.
        let started = { @Sendable () throws(DaemonStartError) -> (Tracker, TimerService) in
            do throws(any Error) {
                if options.replace {
                    try bus.requestName(TimerAPI.busName, replace: true, onLost: onLost)
                    guard storeLock.acquire(waitingUpTo: 10) else {
                        throw DaemonStartError.message("the running daemon did not let go of the store at \(directory.path) within 10 s", 1)
                    }
                } else if !storeLock.acquire(waitingUpTo: 0) {
                    // The usual case is a daemon on this bus: name it as the name's owner.
                    try bus.requestName(TimerAPI.busName, replace: false)
                    try? bus.releaseName(TimerAPI.busName)
                    throw DaemonStartError.message(
                        "another daemon (pid \(storeLock.holder ?? "?")) is using the store at \(directory.path); stop it or use --data-dir",
                        1)
                }
                let tracker: Tracker
                do {
                    tracker = try Tracker(dataDirectory: directory, rules: options.rules, now: clock.now(), bootID: bootID())
                } catch {
                    throw DaemonStartError.message("cannot open the store: \(error)", 1)
                }
                let service = TimerService(tracker: tracker, bus: bus, clock: clock)
                // Export first: calls queued while the bus activated us find the object.
                try service.export()
                if !options.replace { try bus.requestName(TimerAPI.busName, replace: false, onLost: onLost) }
                return (tracker, service)
            } catch let error as DaemonStartError {
                throw error
            } catch let error as BusError {
                if case .nameTaken(_, let owner) = error {
                    throw DaemonStartError.message(
                        "another daemon is running: \(TimerAPI.busName) is owned by \(owner). Use --replace to take over.", 1)
                }
                throw DaemonStartError.message("cannot publish \(TimerAPI.busName): \(error)", 1)
            } catch {
                throw DaemonStartError.message("\(error)", 1)
            }
        }
        let outcome =
            (try? bus.sync { () throws(BusError) in Result { () throws(DaemonStartError) in try started() } })
            ?? .failure(.message("the bus loop stopped", 1))
        guard case .success(let (tracker, service)) = outcome else {
            bus.close()
            guard case .failure(.message(let text, let code)) = outcome else { return 1 }
            log(text)
            return code
        }
        let timers = DaemonTimers(service: service, bus: bus)
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
        withExtendedLifetime(storeLock) {}
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

/// Why the daemon could not start: the message to log and the exit code.
enum DaemonStartError: Error {
    case message(String, Int32)
}

/// `daemon.lock` in the data folder, held with flock(2) for the daemon's life, holding its pid.
final class StoreLock: @unchecked Sendable {
    private let fd: Int32
    private let path: String

    init(directory: URL) throws {
        if mkdir(directory.path, 0o700) != 0 && errno != EEXIST {
            // Parents missing: let FileManager make them, private like the store.
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        path = directory.appendingPathComponent("daemon.lock").path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot open \(path): \(String(cString: strerror(errno)))"])
        }
    }

    deinit { Glibc.close(fd) }  // closing releases the lock

    /// Takes the lock, trying every 20 ms for up to `seconds`; writes our pid on success.
    func acquire(waitingUpTo seconds: Double) -> Bool {
        let attempts = max(1, Int(seconds * 50))
        for attempt in 0..<attempts {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let pid = "\(getpid())\n"
                _ = ftruncate(fd, 0)
                _ = pwrite(fd, pid, pid.utf8.count, 0)
                return true
            }
            if attempt + 1 < attempts { usleep(20_000) }
        }
        return false
    }

    /// The pid written by the holder, if readable.
    var holder: String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
