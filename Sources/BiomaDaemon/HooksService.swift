import BiomaCore
import BiomaStore
import BiomaText
import BiomaWidgets
import CContract
import CSystem
import DBusKit
import Foundation

/// Event hooks, and `org.biomatimer.Hooks1` on the daemon's object (`ListHooks`, `RunHooks`,
/// and the property `Folder`, the folder it reads).
///
/// The executables in the hooks folder (`$XDG_CONFIG_HOME/biomatimer/hooks/`) run when an
/// event happens, named by Taskwarrior's convention: every file whose name starts with the
/// event's name (`on-focus-start.dnd`, `on-focus-start.log`), in name order. Events come from
/// the one publication step of the object: this part observes it (`PublicationObserver`),
/// compares what held before a change with what holds after every part has published (work
/// started or stopped, the running project, a focus phase begun, the focus timer stopped,
/// away and back), and adds what the parts reported (`Occurrence`: a phase that ended, a
/// target reached, a budget crossed, a task due, a peer's changes merged). Each event's
/// payload is made at once — the event, its instant, what it is about, and the whole
/// published state as `status --json` prints it — so a hook run later still sees its event.
///
/// Hooks never hold the timer: each run is a `HookProcess` on the loop. Events reach one hook
/// in the order they happened (a queue per hook, one run of it at a time), a slow hook delays
/// only its own later events, and at most `concurrent` hooks run at once. A hook not owned by
/// the user, or writable by its group or others, is skipped with a message, as ssh treats its
/// configuration; so is a file not executable (the message says `chmod +x`). Every run's
/// outcome is kept (in memory) for `ListHooks`, with the start of the run going on, and a
/// failure is logged with the last lines of its stderr. While the folder holds no hook nothing
/// is looked at but the folder's modification time.
public final class HooksService: ObjectInterface, PublicationObserver, @unchecked Sendable {
    /// How many hooks run at once at most.
    static let concurrent = 4
    /// How many events may wait for one hook; past it the oldest is dropped (logged).
    static let queueLimit = 64

    let directory: String
    let limits: HookLimits
    let tracker: Tracker
    let bus: Bus
    let clock: any TimeSource
    let work: WorkService
    let stateParts: [any ObjectInterface]
    let log: @Sendable (String) -> Void
    public lazy var publication = Publication(self)

    /// The interfaces the published state is read from, made once.
    var stateInterfaces: [DBusInterface]?
    /// The folder's hook files as last listed, and the modification time they were listed at.
    var listing: (modified: timespec, names: [String])?
    /// What held before the change in progress; nil while the folder holds no hook.
    var before: Facts?

    struct Pending {
        var sequence: Int
        var event: HookEvent
        var payload: [UInt8]
    }
    var queues: [String: [Pending]] = [:]
    var running: [String: HookProcess] = [:]
    /// When each running hook's run started, for `ListHooks`.
    var runningSince: [String: Micros] = [:]
    var nextSequence = 0
    var pumpQueued = false
    /// `pumpAfterPause`'s deadline (monotonic, on the loop's `Deadlines`), and whether it is scheduled.
    var launchTimer: (deadlines: Deadlines, handle: Deadlines.Handle)?
    var launchArmed = false
    /// Each hook's last run since the daemon started.
    var lastRuns: [String: HookListing] = [:]
    /// The daemon's environment as it started, which hooks inherit (read once: building it
    /// from `environ` at every start cost more than the start itself).
    let environment = ProcessInfo.processInfo.environment.filter { $0.key != "BIOMATIMER_EVENT" }
        .map { "\($0.key)=\($0.value)" }

    public init(
        directory: String, limits: HookLimits = HookLimits(), tracker: Tracker, bus: Bus, clock: any TimeSource,
        work: WorkService, stateParts: [any ObjectInterface], log: @escaping @Sendable (String) -> Void
    ) {
        (self.directory, self.limits, self.tracker, self.bus, self.clock) = (directory, limits, tracker, bus, clock)
        (self.work, self.stateParts, self.log) = (work, stateParts, log)
        // A hook that does not read its input must not kill the daemon with SIGPIPE (libdbus
        // ignores it already; this says so here, where pipes are written).
        signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        if let launchTimer { bus.loop.perform { launchTimer.deadlines.remove(launchTimer.handle) } }
    }

    /// Hooks1's one property, `Folder`, never changes: nothing to publish.
    public func publish(at now: Micros) {}

    // MARK: - The interface

    public func interface() -> DBusInterface {
        DBusInterface(
            HooksStatus.table, state: { [directory] in HooksStatus(folder: directory) },
            methods: [
                DBusMethod(BIOMATIMER_HOOKS1_LIST_HOOKS, out: [.init("hooks", "aa{sv}")]) { [self] _ in
                    [HookListing.list(list())]
                },
                DBusMethod(BIOMATIMER_HOOKS1_RUN_HOOKS, in: [.init("event", "s")], out: [.init("started", "as")]) { [self] call in
                    let name = call.arguments[0].string!
                    guard let event = HookEvent(rawValue: name) else {
                        throw DaemonAPI.invalidArgument(
                            "Unknown event \(quoted(name)): use \(HookEvent.listed.map(\.rawValue).joined(separator: ", ")).")
                    }
                    return [.array(.string, runSample(event).map { .string($0) })]
                },
            ])
    }

    /// Every hook file of the folder with its event, what keeps it from running, its last run,
    /// and the start of the run going on now.
    func list() -> [HookListing] {
        hookNames().compactMap { name in
            guard let event = HookEvent.of(fileName: name) else { return nil }
            var row = lastRuns[name] ?? HookListing()
            (row.name, row.event) = (name, event.rawValue)
            row.problem = Self.problem(of: path(name)) ?? ""
            row.runningSince = runningSince[name] ?? 0
            return row
        }
    }

    /// `hooks run EVENT`: the event's hooks run now with a sample payload (`"sample": true`).
    func runSample(_ event: HookEvent) -> [String] {
        let names = hooks(for: event)
        guard !names.isEmpty else { return [] }
        let now = clock.now()
        let facts = facts(at: now)
        let about = Self.sampleAbout(event, facts, tracker: tracker, now: now)
        enqueue([(event, about)], at: now, sample: true, names: { _ in names })
        return names
    }

    // MARK: - Observing the publication

    public func willChange(at now: Micros) {
        before = hookNames().isEmpty ? nil : facts(at: now)
    }

    public func published(at now: Micros, occurrences: [Occurrence]) {
        defer { before = nil }
        guard let before else {
            // Hooks appeared during the change: its occurrences still run them.
            if !occurrences.isEmpty, !hookNames().isEmpty { emit(occurrences.map { about($0, at: now) }, at: now) }
            return
        }
        let after = facts(at: now)
        var events = Self.changes(from: before, to: after, tracker: tracker, at: now)
        events += occurrences.map { about($0, at: now) }
        emit(events, at: now)
    }

    public func occurred(_ occurrence: Occurrence, at now: Micros) {
        guard !hookNames().isEmpty else { return }
        emit([about(occurrence, at: now)], at: now)
    }

    /// The events of one change, in `HookEvent`'s order, queued for their hooks.
    func emit(_ events: [(HookEvent, JSON)], at now: Micros) {
        guard !events.isEmpty else { return }
        let order = HookEvent.allCases
        let sorted = events.enumerated().sorted {
            (order.firstIndex(of: $0.element.0)!, $0.offset) < (order.firstIndex(of: $1.element.0)!, $1.offset)
        }.map(\.element)
        enqueue(sorted, at: now, sample: false) { [self] event in hooks(for: event) }
    }

    /// Makes each event's payload (the state read once for all of them) and queues it for
    /// each of its hooks.
    func enqueue(_ events: [(HookEvent, JSON)], at now: Micros, sample: Bool, names: (HookEvent) -> [String]) {
        var state: JSON?
        for (event, about) in events {
            let targets = names(event)
            guard !targets.isEmpty else { continue }
            if state == nil { state = publishedState(at: now) }
            var fields: [(String, JSON)] = [
                ("event", .string(event.rawValue)), ("instant", .int(now)), ("about", about), ("state", state!),
            ]
            if sample { fields.append(("sample", .bool(true))) }
            var payload: [UInt8] = []
            JSON.fields(fields).write(to: &payload)
            payload.append(UInt8(ascii: "\n"))
            nextSequence += 1
            for name in targets {
                var queue = queues[name] ?? []
                if queue.count >= Self.queueLimit {
                    log("hook \(name): \(Self.queueLimit) events wait for it; the oldest (\(queue[0].event.rawValue)) is dropped")
                    queue.removeFirst()
                }
                queue.append(Pending(sequence: nextSequence, event: event, payload: payload))
                queues[name] = queue
            }
        }
        // After a pause: the call that made the change is answered, and its caller gone,
        // before the hooks' processes start beside it.
        pumpAfterPause()
    }

    // MARK: - Running

    /// Starts the oldest waiting event whose hook is free, if fewer than `concurrent` run, and
    /// comes back at the next turn for the next: one start a turn, so a call that arrives
    /// meanwhile is answered between two starts.
    func pump() {
        if running.count < Self.concurrent {
            var next: (name: String, sequence: Int)?
            for (name, queue) in queues where running[name] == nil {
                guard let first = queue.first else { continue }
                if next == nil || first.sequence < next!.sequence || (first.sequence == next!.sequence && name < next!.name) {
                    next = (name, first.sequence)
                }
            }
            guard let name = next?.name, var queue = queues[name] else { return }
            let pending = queue.removeFirst()
            queues[name] = queue.isEmpty ? nil : queue
            launch(name, pending)
            pumpLater()
        }
    }

    /// How long after an event its hooks start (µs). The call that made the change is answered
    /// at once; a pause this long lets its caller (a key's `biomatimer toggle`) take the answer
    /// and exit before five hooks' processes start beside it on the same cores. Started at the
    /// loop's next turn instead, five on-start hooks made a toggle 50 ms after the last 12–20 %
    /// slower (median) than with none.
    public static let launchPause: Int = 5_000

    /// The pump once `launchPause` has passed (a monotonic deadline of the loop's, registered
    /// at the first event); events meanwhile join the same start.
    func pumpAfterPause() {
        guard !launchArmed else { return }
        if launchTimer == nil {
            guard let deadlines = try? bus.loop.deadlines() else { return pumpLater() }
            launchTimer = (deadlines, deadlines.add(.monotonic) { [weak self] _ in self?.pauseEnded() })
        }
        guard let launchTimer else { return pumpLater() }
        launchTimer.deadlines.schedule(launchTimer.handle, after: Int64(Self.launchPause))
        launchArmed = true
    }

    private func pauseEnded() {
        launchArmed = false
        pump()
    }

    /// The pump at the loop's next turn: a run that ends inside `launch` does not re-enter it.
    func pumpLater() {
        guard !pumpQueued else { return }
        pumpQueued = true
        bus.loop.later { [self] in
            pumpQueued = false
            pump()
        }
    }

    func launch(_ name: String, _ pending: Pending) {
        let path = path(name)
        let startedAt = clock.now()
        let base = {
            var row = HookListing()
            (row.name, row.event, row.lastStart) = (name, pending.event.rawValue, startedAt)
            return row
        }()
        if let problem = Self.problem(of: path) {
            var row = base
            row.problem = problem
            row.lastOutcome = "skipped: \(problem)"
            lastRuns[name] = row
            let rule = Self.notExecutable(problem) ? "" : " (only your own files, not writable by others, run)"
            log("hook \(name) skipped: \(problem)\(rule)")
            return
        }
        let began = Self.monotonic()
        let process = HookProcess(path: path, payload: pending.payload, loop: bus.loop, limits: limits) { [self] result in
            running[name] = nil
            runningSince[name] = nil
            var row = base
            row.lastDuration = Self.monotonic() - began
            row.lastExit = result.exit.map { Int64($0) } ?? -1
            row.lastOutcome = result.outcome
            row.lastStderr = result.stderrTail
            lastRuns[name] = row
            if result.failed {
                log("hook \(name) failed on \(pending.event.rawValue): \(result.outcome)"
                    + (result.stderrTail.isEmpty ? "" : "; its stderr ends with:\n\(result.stderrTail)"))
            }
            pumpLater()
        }
        running[name] = process
        runningSince[name] = startedAt
        process.start(environment: environment + ["BIOMATIMER_EVENT=\(pending.event.rawValue)"])
    }

    /// Why the file at `path` is not run, or nil: only the user's own regular files, not
    /// writable by its group or others, and executable by the user (a file left without
    /// `chmod +x` is listed and skipped as such, not started to fail).
    static func problem(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return "not a regular file" }
        guard info.st_uid == geteuid() else { return "not owned by you" }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else { return "writable by others" }
        guard info.st_mode & S_IXUSR != 0 else { return "not executable: chmod +x \(shellWord(path)) to run it" }
        return nil
    }

    /// `path` as one word a shell reads back: as it is when it holds nothing a shell treats
    /// specially, else in single quotes.
    static func shellWord(_ path: String) -> String {
        let plain = !path.isEmpty && path.unicodeScalars.allSatisfy(plainScalars.contains)
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static let plainScalars = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-@%=:,".unicodeScalars)

    /// Whether `problem` is the one `chmod +x` mends.
    static func notExecutable(_ problem: String) -> Bool { problem.hasPrefix("not executable") }

    // MARK: - The folder

    func path(_ name: String) -> String { directory + "/" + name }

    /// The hook files of `event`, in name order.
    func hooks(for event: HookEvent) -> [String] {
        hookNames().filter { HookEvent.of(fileName: $0) == event }
    }

    /// The names in the folder that start with an event's name, sorted byte-wise; listed again
    /// only when the folder's modification time changed (or is too recent to tell).
    func hookNames() -> [String] {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            listing = nil
            return []
        }
        let modified = info.st_mtim
        let recent = Int64(modified.tv_sec) >= Int64(time(nil)) - 1
        if let listing, !recent, listing.modified.tv_sec == modified.tv_sec, listing.modified.tv_nsec == modified.tv_nsec {
            return listing.names
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { HookEvent.of(fileName: $0) != nil }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        listing = (modified, names)
        return names
    }
}
