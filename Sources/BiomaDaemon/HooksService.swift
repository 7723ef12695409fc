import BiomaCore
import BiomaStore
import BiomaText
import BiomaWidgets
import CContract
import CSystem
import DBusKit
import Foundation

/// Event hooks, and `org.biomatimer.Hooks1` on the daemon's object (`ListHooks`, `RunHooks`).
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
/// configuration. Every run's outcome is kept (in memory) for `ListHooks`, and a failure is
/// logged with the last lines of its stderr. While the folder holds no hook nothing is looked
/// at but the folder's modification time.
public final class HooksService: ObjectInterface, PublicationObserver, @unchecked Sendable {
    /// How many hooks run at once at most.
    static let concurrent = 4
    /// How many events may wait for one hook; past it the oldest is dropped (logged).
    static let queueLimit = 64

    private let directory: String
    private let limits: HookLimits
    private let tracker: Tracker
    private let bus: Bus
    private let clock: any TimeSource
    private let work: WorkService
    private let stateParts: [any ObjectInterface]
    private let log: @Sendable (String) -> Void
    public lazy var publication = Publication(self)

    /// The interfaces the published state is read from, made once.
    private var stateInterfaces: [DBusInterface]?
    /// The folder's hook files as last listed, and the modification time they were listed at.
    private var listing: (modified: timespec, names: [String])?
    /// What held before the change in progress; nil while the folder holds no hook.
    private var before: Facts?

    private struct Pending {
        var sequence: Int
        var event: HookEvent
        var payload: [UInt8]
    }
    private var queues: [String: [Pending]] = [:]
    private var running: [String: HookProcess] = [:]
    private var nextSequence = 0
    private var pumpQueued = false
    /// Each hook's last run since the daemon started.
    private var lastRuns: [String: HookListing] = [:]
    /// The daemon's environment as it started, which hooks inherit (read once: building it
    /// from `environ` at every start cost more than the start itself).
    private let environment = ProcessInfo.processInfo.environment.filter { $0.key != "BIOMATIMER_EVENT" }
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

    public func attach(_ deadlines: Deadlines) {}

    /// Hooks1 has no properties.
    public func publish(at now: Micros) {}

    // MARK: - The interface

    public func interface() -> DBusInterface {
        DBusInterface(
            ContractNames.hooksInterface,
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

    /// Every hook file of the folder with its event, what keeps it from running, its last run.
    func list() -> [HookListing] {
        hookNames().compactMap { name in
            guard let event = HookEvent.of(fileName: name) else { return nil }
            var row = lastRuns[name] ?? HookListing()
            (row.name, row.event) = (name, event.rawValue)
            row.problem = Self.problem(of: path(name)) ?? ""
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
    private func emit(_ events: [(HookEvent, JSON)], at now: Micros) {
        guard !events.isEmpty else { return }
        let order = HookEvent.allCases
        let sorted = events.enumerated().sorted {
            (order.firstIndex(of: $0.element.0)!, $0.offset) < (order.firstIndex(of: $1.element.0)!, $1.offset)
        }.map(\.element)
        enqueue(sorted, at: now, sample: false) { [self] event in hooks(for: event) }
    }

    /// Makes each event's payload (the state read once for all of them) and queues it for
    /// each of its hooks.
    private func enqueue(_ events: [(HookEvent, JSON)], at now: Micros, sample: Bool, names: (HookEvent) -> [String]) {
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
        // At the loop's next turn: the call that made the change is answered first.
        pumpLater()
    }

    // MARK: - Running

    /// Starts the oldest waiting event whose hook is free, if fewer than `concurrent` run, and
    /// comes back at the next turn for the next: one start a turn, so a call that arrives
    /// meanwhile is answered between two starts.
    private func pump() {
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

    /// The pump at the loop's next turn: a run that ends inside `launch` does not re-enter it.
    private func pumpLater() {
        guard !pumpQueued else { return }
        pumpQueued = true
        bus.loop.later { [self] in
            pumpQueued = false
            pump()
        }
    }

    private func launch(_ name: String, _ pending: Pending) {
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
            log("hook \(name) skipped: \(problem) (only your own files, not writable by others, run)")
            return
        }
        let began = Self.monotonic()
        let process = HookProcess(path: path, payload: pending.payload, loop: bus.loop, limits: limits) { [self] result in
            running[name] = nil
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
        process.start(environment: environment + ["BIOMATIMER_EVENT=\(pending.event.rawValue)"])
    }

    /// Why the file at `path` is not run, or nil: only the user's own regular files, not
    /// writable by its group or others.
    static func problem(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return "not a regular file" }
        guard info.st_uid == geteuid() else { return "not owned by you" }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else { return "writable by others" }
        return nil
    }

    // MARK: - The folder

    private func path(_ name: String) -> String { directory + "/" + name }

    /// The hook files of `event`, in name order.
    private func hooks(for event: HookEvent) -> [String] {
        hookNames().filter { HookEvent.of(fileName: $0) == event }
    }

    /// The names in the folder that start with an event's name, sorted byte-wise; listed again
    /// only when the folder's modification time changed (or is too recent to tell).
    private func hookNames() -> [String] {
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

    // MARK: - Events

    /// What the hooks compare before and after a change.
    struct Facts {
        var running: Bool
        var project: Project?
        var session: Micros
        var focus: FocusTimer?
        var away: (reason: AwayReason, since: Micros)?
    }

    private func facts(at now: Micros) -> Facts {
        let timer = tracker.workTimer
        let project = timer.activeProject.flatMap { id in tracker.projects.first { $0.id == id } }
        return Facts(
            running: timer.running, project: project, session: timer.workSessionTime(at: now), focus: tracker.focus,
            away: work.away.map { ($0.reason, $0.since) })
    }

    /// The events a change made, by comparing what held before and after it.
    static func changes(from before: Facts, to after: Facts, tracker: Tracker, at now: Micros) -> [(HookEvent, JSON)] {
        var events: [(HookEvent, JSON)] = []
        if let away = before.away, after.away == nil {
            let fields: [(String, JSON)] = [
                ("reason", .string(away.reason.rawValue)), ("since", .int(away.since)), ("away_time", .int(now - away.since)),
            ]
            events.append((.back, .fields(fields)))
        }
        if let focus = before.focus, after.focus == nil { events.append((.focusStop, focusAbout(focus))) }
        if before.away == nil, let away = after.away {
            events.append((.away, .fields([("reason", .string(away.reason.rawValue)), ("since", .int(away.since))])))
        }
        if before.running && !after.running {
            events.append((.stop, .fields(projectFields(before.project) + [("session_time", .int(before.session))])))
        }
        if before.project?.id != after.project?.id {
            let fields: [(String, JSON)] = [
                ("old", .fields(projectFields(before.project))), ("new", .fields(projectFields(after.project))),
            ]
            events.append((.project, .fields(fields)))
        }
        if !before.running && after.running { events.append((.start, .fields(projectFields(after.project)))) }
        if let focus = after.focus, focus.state == .running, focus.phase.isFocus, !samePhase(before.focus, focus) {
            events.append((.focusStart, focusAbout(focus)))
        }
        return events
    }

    /// Whether `before` is the phase `after` runs, already begun (a resume, an extension).
    private static func samePhase(_ before: FocusTimer?, _ after: FocusTimer) -> Bool {
        guard let before, before.state == .running || before.state == .paused else { return false }
        return before.phase == after.phase && before.round == after.round && before.plan.kind == after.plan.kind
            && before.phaseStart == after.phaseStart
    }

    static func projectFields(_ project: Project?) -> [(String, JSON)] {
        [("project", .string(project?.id ?? "")), ("project_name", .string(project?.name ?? ""))]
    }

    static func focusAbout(_ focus: FocusTimer) -> JSON {
        .fields([
            ("kind", .string(focus.plan.kind.rawValue)), ("phase", .string(focus.phase.rawValue)),
            ("round", .integer(focus.round)),
            ("label", .string(focus.plan.label)), ("project", .string(focus.plan.project ?? "")),
            ("phase_duration", .int(focus.phaseDuration)), ("ends_at", focus.endsAt.map { .int($0) } ?? .null),
        ])
    }

    /// An occurrence as an event and what it is about.
    private func about(_ occurrence: Occurrence, at now: Micros) -> (HookEvent, JSON) {
        switch occurrence {
        case .phaseEnded(let end):
            return (
                .phaseEnd,
                .fields([
                    ("kind", .string(end.kind.rawValue)), ("phase", .string(end.phase.rawValue)), ("round", .integer(end.round)),
                    ("label", .string(end.label)), ("project", .string(end.project ?? "")), ("start", .int(end.start)),
                    ("end", .int(end.end)), ("completed", .bool(end.completed)), ("late", .bool(end.late)),
                    ("next", .string(end.next?.rawValue ?? "")),
                ])
            )
        case .targetReached(let day, let target, let worked):
            let fields: [(String, JSON)] = [("day", .string(day.description)), ("target", .int(target)), ("worked", .int(worked))]
            return (.targetReached, .fields(fields))
        case .budget(let project, let threshold, let budget, let used):
            return (
                .budget,
                .fields(
                    Self.projectFields(project) + [
                        ("threshold", .integer(threshold.rawValue)), ("budget", .int(budget.amount)),
                        ("period", .string(budget.period.rawValue)), ("used", .int(used)),
                    ])
            )
        case .taskDue(let task, let late):
            return (.taskDue, Self.taskAbout(task, late: late))
        case .merged(let operations, let devices):
            return (.merge, .fields([("operations", .integer(operations)), ("devices", .array(devices.map { .string($0) }))]))
        }
    }

    static func taskAbout(_ task: TaskItem, late: Bool) -> JSON {
        .fields([
            ("id", .string(task.id)), ("title", .string(task.title)), ("project", .string(task.projectID ?? "")),
            ("due", task.due.map { .int($0) } ?? .null), ("late", .bool(late)),
        ])
    }

    /// What a sample event (`hooks run EVENT`) is about: the fields its real payload has, from
    /// the state there is where it says something, else made up.
    static func sampleAbout(_ event: HookEvent, _ facts: Facts, tracker: Tracker, now: Micros) -> JSON {
        let project = facts.project ?? tracker.projects.first
        switch event {
        case .start: return .fields(projectFields(project))
        case .stop: return .fields(projectFields(project) + [("session_time", .int(facts.session))])
        case .project: return .fields([("old", .fields(projectFields(nil))), ("new", .fields(projectFields(project)))])
        case .focusStart, .focusStop:
            let focus = facts.focus ?? (try? FocusTimer.start(FocusPlan(kind: .pomodoro), at: now))
            return focus.map(focusAbout) ?? .fields([])
        case .phaseEnd:
            return .fields([
                ("kind", .string("pomodoro")), ("phase", .string("work")), ("round", .int(1)), ("label", .string("")),
                ("project", .string(project?.id ?? "")), ("start", .int(now - 25 * 60 * microsPerSecond)), ("end", .int(now)),
                ("completed", .bool(true)), ("late", .bool(false)), ("next", .string("short-break")),
            ])
        case .targetReached:
            return .fields([
                ("day", .string(tracker.rules.day(containing: now).description)), ("target", .int(8 * 3600 * microsPerSecond)),
                ("worked", .int(8 * 3600 * microsPerSecond)),
            ])
        case .budget:
            return .fields(
                projectFields(project) + [
                    ("threshold", .int(80)), ("budget", .int(10 * 3600 * microsPerSecond)), ("period", .string("week")),
                    ("used", .int(8 * 3600 * microsPerSecond)),
                ])
        case .taskDue:
            let task = tracker.tasks.first { !$0.done } ?? TaskItem(id: "k0", title: "A sample task", due: now)
            return taskAbout(task, late: false)
        case .away: return .fields([("reason", .string("lock")), ("since", .int(now))])
        case .back:
            let away = 600 * microsPerSecond
            return .fields([("reason", .string("lock")), ("since", .int(now - away)), ("away_time", .int(away))])
        case .merge:
            return .fields([("operations", .int(1)), ("devices", .array([.string("00000000-0000-7000-8000-000000000000")]))])
        }
    }

    // MARK: - The published state

    /// The whole published state as `status --json` prints it: the bars' interfaces read as
    /// `GetAll` reads them, decoded into a `WidgetState`, rendered by the json format.
    private func publishedState(at now: Micros) -> JSON {
        if stateInterfaces == nil {
            stateInterfaces = stateParts.map { $0.interface() }.filter { WidgetState.interfaces.contains($0.name) }
        }
        var properties: [String: [String: DBusValue]] = [:]
        for interface in stateInterfaces ?? [] {
            do {
                let values = try interface.propertyValues?()
                var entries: [String: DBusValue] = [:]
                for property in interface.properties { entries[property.name] = try values?[property.name] ?? property.get() }
                properties[interface.name] = entries
            } catch {
                log("hooks: cannot read \(interface.name)'s properties (\(error)); the payload's state leaves them out")
            }
        }
        return JSONStateRenderer().object(WidgetState(properties: properties), now: now)
    }

    static func monotonic() -> Int64 { csystem_clock_us(CLOCK_MONOTONIC) }
}
