import BiomaCore
import BiomaReports
import BiomaStore
import BiomaSystem
import CContract
import DBusKit
import Foundation

/// `org.biomatimer.Focus1` on the daemon's object: pomodoro, countdown and interval timers.
///
/// Handlers run on the bus's loop thread. The phase end is one deadline in the loop at
/// `PhaseEndsAt`; nothing else wakes the daemon for the focus timer. Each transition is one
/// store transaction (the focus state, the stretch that ran, and the work timer following it,
/// a rule of the store's transaction) and one publication step of the object; a phase that ends also emits `PhaseEnded`, raises one
/// notification (replacing the previous one) and runs the settings' phase-end command.
public final class FocusService: ObjectInterface, @unchecked Sendable {
    /// What the notification's "+1 min" adds.
    static let extension_: Micros = 60 * microsPerSecond

    let tracker: Tracker
    private let bus: Bus
    let clock: any TimeSource
    /// The work timer: focus changes go through its `change` (a sleep noticed first, the away
    /// rule applied at the same instant).
    let work: WorkService
    public lazy var publication = Publication(self)
    private let notifier: Notifier
    private let phaseEndCommand: String?
    private let log: @Sendable (String) -> Void
    /// What `PropertiesChanged` last said.
    private var published: FocusStatus
    private var deadlines: Deadlines?
    private var phaseEnd: Deadlines.Handle?
    /// The focus timer's notification, replaced at each phase end; saved, so a phase end
    /// after a restart replaces it too.
    private var notice: UInt32 = 0 {
        didSet {
            do {
                try tracker.daemonState.saveShownNotification(notice, for: "focus")
            } catch {
                log("cannot record the focus notification (\(error)); after a restart the next one shows beside it")
            }
        }
    }

    public init(
        tracker: Tracker, bus: Bus, clock: any TimeSource, timer: WorkService, notifier: Notifier,
        phaseEndCommand: String? = nil, log: @escaping @Sendable (String) -> Void
    ) {
        (self.tracker, self.bus, self.clock, self.work) = (tracker, bus, clock, timer)
        (self.notifier, self.phaseEndCommand, self.log) = (notifier, phaseEndCommand, log)
        published = FocusStatus()
        published = status(at: clock.now())
        do {
            notice = try tracker.daemonState.shownNotifications()["focus"] ?? 0
        } catch {
            log("cannot read the focus notification's id (\(error)); the next one shows beside it")
        }
    }

    /// The published state at `now`. When today's completed phases cannot be counted, the
    /// failure is logged and the count last published stands (a bar never shows a false 0).
    func status(at now: Micros) -> FocusStatus {
        let completed: UInt32
        do {
            completed = UInt32(clamping: try tracker.focus.completed(on: tracker.rules.day(containing: now)))
        } catch {
            log("cannot count today's completed focus phases (\(error)); CompletedToday stays \(published.completedToday)")
            completed = published.completedToday
        }
        return Self.status(of: tracker, at: now, completedToday: completed)
    }

    static func status(of tracker: Tracker, at now: Micros, completedToday: UInt32) -> FocusStatus {
        var status = FocusStatus()
        status.updatedAt = now
        status.completedToday = completedToday
        guard let focus = tracker.focus.timer else { return status }
        status.state = focus.state
        status.kind = focus.plan.kind.rawValue
        status.phase = focus.phase.rawValue
        status.label = focus.plan.label
        status.round = UInt32(clamping: focus.round)
        status.rounds = UInt32(clamping: focus.plan.plannedRounds)
        status.phaseDuration = focus.phaseDuration
        status.remaining = focus.remaining(at: now)
        status.phaseEndsAt = focus.state == .running ? focus.endsAt ?? 0 : 0
        status.project = focus.plan.project ?? ""
        return status
    }

    // MARK: - Deadlines

    public func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        phaseEnd = deadlines.add { [self] _ in
            // A sleep not yet noticed pauses a focus phase at its start, before anything ends.
            work.away.checkSuspend()
            advance()
        }
        work.away.onSleep = { [self] instant in sleep(at: instant) }
        // Phases that ended while the daemon was down end now, once, as late.
        advance()
    }

    /// Ends the phases whose end has passed, then waits for the next one.
    private func advance() {
        guard let focus = tracker.focus.timer, focus.state == .running, let endsAt = focus.endsAt, endsAt <= clock.now() else {
            return publish(at: clock.now())
        }
        do {
            try operate { now, focus, _ in focus?.advance(to: now, lateAfter: lateAfter) ?? FocusOutcome() }
        } catch {
            log("cannot end the focus phase: \(error)")
        }
    }

    /// The machine slept at `instant`: a running focus phase (work, countdown, active) pauses
    /// there; a break runs on in wall time.
    private func sleep(at instant: Micros) {
        guard let focus = tracker.focus.timer, focus.state == .running else { return }
        do {
            try operate { _, focus, _ in
                guard var running = focus else { return FocusOutcome() }
                var outcome = running.advance(to: instant, lateAfter: lateAfter)
                if running.state == .running && running.phase.isFocus {
                    outcome.records += try running.pause(at: instant).records
                }
                focus = running
                return outcome
            }
        } catch {
            log("cannot pause the focus phase for the sleep: \(error)")
        }
    }

    /// Emits Focus1's `PropertiesChanged` once, with what changed since the last publication,
    /// and moves the phase-end deadline.
    public func publish(at now: Micros) {
        let status = status(at: now)
        var before = published
        before.remaining = published.remaining(at: now)
        before.updatedAt = now
        bus.emitChanges(FocusStatus.table, path: ContractNames.objectPath, from: before, to: status)
        published = status
        if let deadlines, let phaseEnd {
            deadlines.schedule(phaseEnd, at: status.phaseEndsAt > 0 ? status.phaseEndsAt : nil)
        }
    }

    // MARK: - Changes

    /// One focus operation at one instant, in one store transaction through the work timer's
    /// change (the object then publishes every interface once); then the phase ends are
    /// announced.
    @discardableResult
    func operate(
        _ body: (Micros, inout FocusTimer?, [Project]) throws -> FocusOutcome
    ) throws -> FocusOutcome {
        let outcome = try work.change { now in
            let outcome = try tracker.focus.changeFocus(at: now) { try body(now, &$0, $1) }
            for end in outcome.ended { publication.occurred(.phaseEnded(end), at: now) }
            return outcome
        }
        for end in outcome.ended { announce(end) }
        return outcome
    }

    /// One operation on the focus timer there is.
    @discardableResult
    func operateOnFocus(_ body: (Micros, inout FocusTimer) throws -> FocusOutcome) throws -> FocusOutcome {
        try operate { now, focus, _ in
            var running = try requireFocus(focus)
            defer { focus = running }
            return try body(now, &running)
        }
    }

    func requireFocus(_ focus: FocusTimer?) throws -> FocusTimer {
        guard let focus else { throw FocusError.noFocus("There is no focus timer: start one with `biomatimer focus`.") }
        return focus
    }

    // MARK: - Phase ends

    private func announce(_ end: FocusPhaseEnd) {
        do {
            try bus.emit(
                path: ContractNames.objectPath, interface: ContractNames.focusInterface, member: BIOMATIMER_FOCUS1_PHASE_ENDED,
                [Self.encode(end, projects: tracker.projects)])
        } catch {
            log("cannot emit PhaseEnded: \(error)")
        }
        notify(end)
        runCommand(for: end)
    }

    private func notify(_ end: FocusPhaseEnd) {
        let text = FocusNotice.notice(end, plan: tracker.focus.timer?.plan, projects: tracker.projects)
        var message = Notifier.Notice(summary: text.summary, body: text.body)
        if end.next == nil {
            message.actions = end.kind == .countdown ? [(key: "extend", label: "+1 min")] : []
        } else if end.nextStarted {
            let isBreak = end.next.map { !$0.isFocus } ?? false
            message.actions = [(key: "skip", label: isBreak ? "Skip break" : "Skip"), (key: "extend", label: "+1 min")]
        } else {
            message.actions = [(key: "start", label: "Start"), (key: "skip", label: "Skip")]
        }
        if end.kind == .countdown && end.next == nil {
            // A countdown's end is an alarm.
            message.urgency = 2
            message.soundName = "alarm-clock-elapsed"
        } else {
            message.urgency = end.late ? 2 : 1
        }
        notifier.show(
            message, replacing: notice,
            onAction: { [self] key in action(key) },
            completion: { [self] id in if let id { notice = id } })
    }

    /// A clicked action: the method of that name (`Confirm`, `Skip`, `Extend`), published the
    /// same way.
    private func action(_ key: String) {
        do {
            switch key {
            case "start": try confirm()
            case "skip": try skip()
            case "extend": try extend(by: Self.extension_)
            default: return
            }
        } catch {
            log("the \(key) action on the focus timer failed: \(error)")
        }
    }

    /// The settings' `phase_end_command`, through `/bin/sh`, not waited for; the phase in
    /// `BIOMATIMER_*` environment variables.
    private func runCommand(for end: FocusPhaseEnd) {
        guard let command = phaseEndCommand, !command.isEmpty else { return }
        var environment = ProcessInfo.processInfo.environment
        environment["BIOMATIMER_KIND"] = end.kind.rawValue
        environment["BIOMATIMER_PHASE"] = end.phase.rawValue
        environment["BIOMATIMER_ROUND"] = String(end.round)
        environment["BIOMATIMER_LABEL"] = end.label
        environment["BIOMATIMER_PROJECT"] = end.project.flatMap { id in tracker.projects.first { $0.id == id }?.name } ?? ""
        environment["BIOMATIMER_COMPLETED"] = end.completed ? "1" : "0"
        environment["BIOMATIMER_LATE"] = end.late ? "1" : "0"
        environment["BIOMATIMER_NEXT"] = end.next?.rawValue ?? ""
        if let failure = Spawn.detached(["/bin/sh", "-c", command], environment: environment.map { "\($0.key)=\($0.value)" }) {
            log("cannot run the phase-end command: \(failure)")
        }
    }

    static func encode(_ end: FocusPhaseEnd, projects: [Project]) -> DBusValue {
        .vardict(ordered: [
            ("Kind", .string(end.kind.rawValue)), ("Phase", .string(end.phase.rawValue)),
            ("Round", .uint32(UInt32(clamping: end.round))), ("Label", .string(end.label)),
            ("Project", .string(end.project ?? "")), ("Start", .int64(end.start)), ("End", .int64(end.end)),
            ("Completed", .boolean(end.completed)), ("Late", .boolean(end.late)),
            ("Next", .string(end.next?.rawValue ?? "")),
        ])
    }
}
