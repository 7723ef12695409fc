import BiomaCore
import BiomaReports
import BiomaStore
import BiomaText
import BiomaWidgets
import CContract
import DBusKit

/// The tracker published as `/org/biomatimer/Timer1`.
///
/// Every handler runs on the bus's loop thread, one at a time, so the tracker is only ever
/// used from that thread. Each state-changing method takes one instant, applies the change in
/// one store transaction, and the object's publication step then emits one
/// `PropertiesChanged` per interface carrying what changed and fresh time values.
///
/// Its deadlines in the bus loop: the next day boundary (always scheduled; with cancel-on-set
/// it also fires after a clock change or a resume, when the suspend gap is looked at), a
/// heartbeat every `Tracker.heartbeatInterval` while the timer runs. The concerns with state of
/// their own (`AwayTime`, `DailyTargets` and `ProjectBudgets` with their `GoalNotices`,
/// `CalendarFile`) are made here and register their own deadlines when it attaches.
public final class WorkService: ObjectInterface, @unchecked Sendable {
    public let tracker: Tracker
    let bus: Bus
    let clock: any TimeSource
    let log: @Sendable (String) -> Void
    /// Set by `DaemonObject`; handed on to the concerns that change or report through it.
    public var publication: Publication {
        didSet { (away.publication, goalNotices.publication) = (publication, publication) }
    }
    /// The day last published, to notice a day boundary however it is discovered.
    var publishedDay: Day
    /// What Timer1 said at the instant of the change in progress, to diff against.
    var before: WorkStatus?
    var deadlines: Deadlines?
    var dayBoundary: Deadlines.Handle?
    var heartbeatDue: Deadlines.Handle?
    /// The settings file and its problems as read at start (WorkService+Config.swift).
    let config: ConfigFileState

    /// Time away: the absence, the suspend gap, `KeepAway`, logind's entry points.
    public let away: AwayTime
    /// The targets' and budgets' notices and wake-ups.
    let goalNotices: GoalNotices
    /// The daily targets, the balance and the target-reached notice.
    let dailyTargets: DailyTargets
    /// Project budgets' use and their notices.
    let budgets: ProjectBudgets
    /// `export_ics`, when set.
    let calendar: CalendarFile?
    /// Imports, resets and exports, on a worker thread (`BulkWork`).
    let bulk: BulkWork

    public init(
        tracker: Tracker, bus: Bus, clock: any TimeSource, away: AwayRules = AwayRules(), notifier: Notifier? = nil,
        suspendClock: any SuspendClock = SystemSuspendClock(), goals: TargetSettings = TargetSettings(),
        calendarPath: String? = nil, config: ConfigFileState = ConfigFileState(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        (self.log, self.tracker, self.bus, self.clock, self.config) = (log, tracker, bus, clock, config)
        bulk = BulkWork(loop: bus.loop, tracker: tracker)
        publishedDay = tracker.rules.day(containing: clock.now())
        // The part's own publication until it joins an object.
        let publication = Publication()
        self.publication = publication
        self.away = AwayTime(
            tracker: tracker, clock: clock, publication: publication, rules: away, notifier: notifier, suspendClock: suspendClock,
            log: log)
        goalNotices = GoalNotices(clock: clock, publication: publication, notifier: notifier)
        dailyTargets = DailyTargets(tracker: tracker, notices: goalNotices, settings: goals, today: publishedDay, log: log)
        budgets = ProjectBudgets(tracker: tracker, notices: goalNotices, log: log)
        calendar = calendarPath.map { CalendarFile(path: $0, tracker: tracker, clock: clock, log: log) }
        publication.join(self)
    }

    // MARK: - Deadlines

    public func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        // A clock change or a resume may have crossed the day boundary: check it either way.
        dayBoundary = deadlines.add { [self] _ in
            away.checkSuspend()
            checkDayBoundary()
        }
        away.attach(deadlines)
        goalNotices.attach(deadlines)
        dailyTargets.attach()
        budgets.attach()
        heartbeatDue = deadlines.add { [self] reason in
            if reason == .due { heartbeat() }
            do {
                scheduleDeadlines(try tracker.history.snapshot(at: clock.now()), restartHeartbeat: true)
            } catch {
                log("cannot read today's work (\(error)); the heartbeat waits for the next change")
            }
        }
        calendar?.attach(deadlines)
        checkDayBoundary()
        away.resumeSaved()
    }

    /// The day boundary at the snapshot's; the heartbeat while running, left as it is when it
    /// is already scheduled unless `restartHeartbeat`.
    func scheduleDeadlines(_ snapshot: TrackerSnapshot, restartHeartbeat: Bool = false) {
        guard let deadlines, let dayBoundary, let heartbeatDue else { return }
        deadlines.schedule(dayBoundary, at: snapshot.nextDayBoundary)
        if !snapshot.running {
            deadlines.schedule(heartbeatDue, at: nil)
        } else if restartHeartbeat || deadlines.instant(of: heartbeatDue) == nil {
            deadlines.schedule(heartbeatDue, at: clock.now() + Tracker.heartbeatInterval)
        }
    }

    /// The published state at the current instant.
    func status() throws -> WorkStatus {
        do {
            return published(try tracker.history.snapshot(at: clock.now()))
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// What `org.biomatimer.Timer1` publishes for a snapshot and the current absence, with the
    /// targets that hold (read from the store when not given).
    func published(_ snapshot: TrackerSnapshot, targets: WorkTargets? = nil) -> WorkStatus {
        var status = DaemonAPI.status(of: snapshot)
        if let absence = away.current {
            status.away = absence.reason.rawValue
            status.awaySince = absence.since
        }
        dailyTargets.add(to: &status, snapshot, targets: targets ?? dailyTargets.current)
        budgets.add(to: &status, snapshot)
        if let project = snapshot.activeProject { status.activeClient = tracker.catalog.clientName(ofProject: project.id) ?? "" }
        status.configProblems = config.problems
        return status
    }

    // MARK: - Changes

    /// Runs one state-changing operation at one instant, on the object's one change path
    /// (`Publication.change`, with this part's rules); every part then publishes what changed.
    func change<T>(_ body: (Micros) throws -> T) throws -> T {
        try publication.change(clock, body)
    }

    /// `change` for bulk work (an import, a history reset): the same path, with `body` run on
    /// a worker tracker while the loop is held (`BulkWork`), and `reply` finished with
    /// `answer` of its result once the loop has the worker's state and has published it.
    /// `size`: the bytes the work takes in (an import's data), for the memory given back after.
    func changeInBulk<T: Sendable>(
        reply: PendingReply, size: Int, _ body: @escaping @Sendable (Tracker, Micros) throws -> T,
        answer: @escaping @Sendable (T) -> [DBusValue]
    ) {
        // A caller that leaves the bus meanwhile (the front killed, Ctrl-C) takes the work
        // with it: rolled back, nothing of it applied.
        let gone = try? bus.whenGone(reply.sender) { [bulk] in bulk.interrupt() }
        publication.changeInBulk(
            clock, on: bulk, start: { now in { worker in try body(worker, now) } }, then: { try $0.get() },
            answered: { [self] result in
                if let gone { bus.unsubscribe(gone) }
                releaseMemoryAfterBulkWork(bytes: size)
                reply.finish(result.map(answer).mapError(DaemonAPI.dbusError))
            })
    }

    public func willChange(at now: Micros) {
        do {
            before = published(try tracker.history.snapshot(at: now))
        } catch {
            before = nil
            log("cannot read today's work before a change (\(error)); the next publication sends every value")
        }
    }

    /// Emits Timer1's `PropertiesChanged` once: what differs from before the change, or on a
    /// new day every value but the project list (unless that changed too); then moves the day
    /// boundary and the heartbeat.
    public func publish(at now: Micros) {
        defer { before = nil }
        let snapshot: TrackerSnapshot
        do {
            snapshot = try tracker.history.snapshot(at: now)
        } catch {
            return log("cannot read today's work (\(error)); nothing published")
        }
        // The targets read once for the state published and the notice's check.
        let targets = dailyTargets.current
        let after = published(snapshot, targets: targets)
        if snapshot.day != publishedDay || before == nil {
            publishedDay = snapshot.day
            let projectsChanged = before.map { $0.projects != after.projects } ?? true
            let entries = WorkStatus.table.entries(of: after).filter { $0.0 != "Projects" || projectsChanged }
            do {
                try bus.emitPropertiesChanged(path: ContractNames.objectPath, interface: ContractNames.interface, changed: entries)
            } catch {
                log("cannot publish Timer1's state: \(error)")
            }
        } else if let before {
            bus.emitChanges(WorkStatus.table, path: ContractNames.objectPath, from: before, to: after)
        }
        scheduleDeadlines(snapshot)
        calendar?.changed(at: now)
        dailyTargets.check(snapshot, targets: targets)
        budgets.check(snapshot)
    }

    /// Called when the day may have changed (the day timer fired, the clock jumped, the
    /// machine resumed): publishes the new day and its totals once, with every part.
    public func checkDayBoundary() {
        let now = clock.now()
        publication.change(at: now) {}
        // After the signal, so bars see the new day at once.
        tracker.backups.takeDailyBackupIfDue(at: now)
    }

    /// Writes the heartbeat that bounds lost time after a crash or power cut.
    public func heartbeat() {
        do {
            try tracker.heartbeat(at: clock.now())
        } catch {
            log("cannot write the heartbeat (\(error)); a crash now loses the time since the last one")
        }
    }
}

/// The rules of every change on the object (`Publication.change`), whichever part makes it.
extension WorkService: ChangeRules {
    /// A sleep not yet noticed is recorded first, on its own; today's work must be readable
    /// before anything changes (else a `Storage` answer).
    func instantOfChange() throws -> Micros {
        away.checkSuspend()
        let now = clock.now()
        _ = try tracker.history.snapshot(at: now)
        return now
    }

    /// A rule tied to a deadline is applied at every change too (the deadline is only a
    /// wake-up): an absence that counts by now is removed before anything else.
    func beginningChange(at now: Micros) throws { try away.applyAway(at: now) }
}

/// Quotes a caller's text for a message, with control characters made visible.
func quoted(_ text: String) -> String { BusError.quote(text, limit: 80) }
