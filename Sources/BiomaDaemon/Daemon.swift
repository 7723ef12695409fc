import BiomaCore
import BiomaStore
import CSystem
import DBusKit
import Foundation

public struct DaemonOptions: Sendable {
    public var address: BusAddress = .session
    public var replace = false
    /// The settings file as read (command-line options applied): the data folder, the day's
    /// start and the week's, notifications, time away, the phase-end command, the calendar
    /// file, targets, the sync folder. The store's `target set` values beat its targets.
    public var settings = Settings()
    /// The hooks folder (`Settings.hooksDirectory`).
    public var hooksDirectory = Settings.hooksDirectory()
    /// The settings file (`Settings.file`), which `CheckConfig` reads again.
    public var configFile = Settings.file().path
    public init() {}

    /// The day's start and the week's first day from the settings, in the local time zone.
    public var rules: DayRules {
        var rules = DayRules()
        rules.dayStartMinutes = settings.dayStartMinutes
        rules.firstWeekday = settings.firstWeekday
        return rules
    }
}

/// `biomatimerd`: one event loop thread owns the session-bus connection, the system-bus
/// connection (logind), the tracker, the deadlines and the signal descriptor. The main thread
/// only waits for the exit code.
public enum Daemon {
    /// Runs until SIGTERM/SIGINT, the loss of the name or of the bus. Returns the exit code.
    public static func run(_ options: DaemonOptions, log: @escaping @Sendable (String) -> Void) -> Int32 {
        let signalFD = blockTerminationSignals()
        // Before any thread opens the store.
        Tracker.prepareSQLiteForThisProcess()
        // Blocks of 128 KiB and more (an import's text, an export's reply, the rows between)
        // are mapped on their own and unmapped when freed. Left to itself, glibc raises this
        // threshold after the first such free, and later ones stay in the heap after use.
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        defer { Glibc.close(signalFD) }
        let clock = SystemClock()
        let directory = options.settings.dataDirectory ?? Tracker.defaultDataDirectory()
        let loop: EventLoop
        let bus: Bus
        do {
            loop = try EventLoop()
            bus = try Bus(options.address, loop: loop)
            bus.report = log
        } catch {
            log("\(error)")
            return 3
        }
        // Whatever the way out, the loop thread ends before the process does.
        defer { loop.stop() }
        let exit = ExitSignal()
        // One daemon per store, whatever the bus: the store lock is held for the process's life.
        let storeLock: StoreLock
        do {
            storeLock = try StoreLock(directory: directory)
        } catch {
            log("cannot open the store: \(error)")
            bus.close()
            return 1
        }
        let onLost: @Sendable () -> Void = {
            log("another daemon took over \(ContractNames.busName); exiting")
            exit.finish(0)
        }
        let startup = Startup(
            bus: bus, options: options, directory: directory, storeLock: storeLock, clock: clock, onLost: onLost, log: log)
        // Everything from taking the lock to publishing the object happens in one block on
        // the loop thread: no call is dispatched before the object exists, and with --replace
        // the store is read only after the old daemon has let go of it.
        let outcome =
            // The only error of `sync` is a stopped loop, which the fallback names.
            (try? bus.sync { () throws(BusError) in Result { () throws(DaemonStartError) in try startup.publish() } })
            ?? .failure(.message("the bus loop stopped", 1))
        guard case .success(let (tracker, object, timer)) = outcome else {
            bus.close()
            guard case .failure(.message(let text, let code)) = outcome else { return 1 }
            log(text)
            return code
        }
        bus.onDisconnect { reason in
            log("lost the bus (\(reason)); exiting")
            exit.finish(1)
        }
        // Served while bulk work holds the loop too, which a signal ends at once (rolled
        // back: all or nothing); the loop then runs what it kept, and the exit below.
        loop.watch(fd: signalFD, whileHeld: true) { _ in
            var info = signalfd_siginfo()
            guard read(signalFD, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size else { return }
            if timer.bulk.interrupt() { log("\(Daemon.signalName(Int32(info.ssi_signo))): the work under way is stopped and nothing of it is kept") }
            exit.finish(0)
        }
        // Not created: logged below; the next call still notices the day (nothing is lost).
        let deadlines = try? bus.sync { () throws(BusError) in
            let deadlines = try loop.deadlines()
            object.attach(deadlines)
            return deadlines
        }
        if deadlines == nil { log("cannot create the loop's timer; day boundaries are noticed only at the next call") }
        // Sleep, lock and idle from logind, on a connection to the system bus on the same loop.
        let logind = LogindWatcher(timer: timer, loop: loop, log: log)
        logind.start()
        let code = exit.wait()
        // Handlers run on the loop thread: once this block runs, none is in flight.
        // A stopped loop has no handler in flight: the heartbeat is then written here or not
        // at all, and a missed last heartbeat only bounds the lost time at the one before.
        _ = try? bus.sync { () throws(BusError) in
            if tracker.workTimer.running {
                do {
                    try tracker.heartbeat(at: clock.now())
                } catch {
                    log("cannot write the last heartbeat: \(error)")
                }
            }
        }
        // Exiting: the bus releases the name with the connection anyway.
        try? bus.releaseName(ContractNames.busName)
        bus.close()
        logind.stop()
        loop.stop()
        withExtendedLifetime((storeLock, deadlines, logind)) {}
        return code
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP before any thread exists, so every thread inherits the
    /// mask and they arrive only through the returned signalfd, on the loop thread.
    static func blockTerminationSignals() -> Int32 {
        var signals = sigset_t()
        sigemptyset(&signals)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, s) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        return signalfd(-1, &signals, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
    }

    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }

    /// The kernel's id for this boot: a running interval recorded under another one was cut
    /// short by a reboot.
    static func bootID() -> String {
        // No /proc: "unknown" for every run, so no interval is taken for cut short by a reboot.
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
    }
}

/// Taking the store and publishing the object, in the order that keeps two daemons apart.
struct Startup: Sendable {
    let bus: Bus
    let options: DaemonOptions
    let directory: URL
    let storeLock: StoreLock
    let clock: SystemClock
    let onLost: @Sendable () -> Void
    let log: @Sendable (String) -> Void

    /// On the loop thread: the store lock (waiting for the old daemon with --replace), the
    /// tracker, the exported object, then the name.
    func publish() throws(DaemonStartError) -> (Tracker, DaemonObject, WorkService) {
        do throws(any Error) {
            if options.replace {
                try bus.requestName(ContractNames.busName, replace: true, onLost: onLost)
                guard storeLock.acquire(waitingUpTo: 10) else {
                    throw DaemonStartError.message(
                        "the running daemon did not let go of the store at \(directory.path) within 10 s", 1)
                }
            } else if !storeLock.acquire(waitingUpTo: 0) {
                // The usual case is a daemon on this bus: name it as the name's owner.
                try bus.requestName(ContractNames.busName, replace: false)
                // Only asked to name the owner; the process exits next, releasing it anyway.
                try? bus.releaseName(ContractNames.busName)
                throw DaemonStartError.message(
                    "another daemon (pid \(storeLock.holder ?? "?")) is using the store at \(directory.path); stop it or use --data-dir",
                    1)
            }
            let tracker: Tracker
            do {
                tracker = try Tracker(
                    dataDirectory: directory, rules: options.rules, now: clock.now(), bootID: Daemon.bootID())
            } catch {
                throw DaemonStartError.message("cannot open the store: \(error)", 1)
            }
            let parts = DaemonParts(
                tracker: tracker, bus: bus, clock: clock, settings: options.settings, hooksDirectory: options.hooksDirectory,
                configFile: options.configFile, log: log)
            let (object, timer, notifier) = (parts.object, parts.timer, parts.notifier)
            // Export first: calls queued while the bus activated us find the object.
            try object.export(on: bus)
            try notifier.start()
            if !options.replace { try bus.requestName(ContractNames.busName, replace: false, onLost: onLost) }
            return (tracker, object, timer)
        } catch let error as DaemonStartError {
            throw error
        } catch let error as BusError {
            if case .nameTaken(_, let owner) = error {
                throw DaemonStartError.message(
                    "another daemon is running: \(ContractNames.busName) is owned by \(owner). Use --replace to take over.", 1)
            }
            throw DaemonStartError.message("cannot publish \(ContractNames.busName): \(error)", 1)
        } catch {
            throw DaemonStartError.message("\(error)", 1)
        }
    }
}

/// Why the daemon could not start: the message to log and the exit code.
enum DaemonStartError: Error {
    case message(String, Int32)
}
