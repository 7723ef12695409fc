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
/// heartbeat every `Tracker.heartbeatInterval` while the timer runs, and the instant a lock or
/// idle absence starts to count.
public final class WorkService: ObjectInterface, @unchecked Sendable {
    public let tracker: Tracker
    let bus: Bus
    let clock: any TimeSource
    let log: @Sendable (String) -> Void
    public lazy var publication = Publication(self)
    /// The day last published, to notice a day boundary however it is discovered.
    var publishedDay: Day
    /// What Timer1 said at the instant of the change in progress, to diff against.
    var before: WorkStatus?
    var deadlines: Deadlines?
    var dayBoundary: Deadlines.Handle?
    var heartbeatDue: Deadlines.Handle?
    /// `export_ics` (WorkService+Calendar.swift): the file, and its debounced rewrite.
    public var calendarPath: String?
    var calendar = CalendarFileState()
    /// The settings file and its problems as read at start (WorkService+Config.swift).
    public var config = ConfigFileState()

    // Time away (WorkService+Away.swift).
    let awayRules: AwayRules
    let notifier: Notifier?
    let suspendClock: any SuspendClock
    var suspendGap: SuspendGap
    /// The current absence: why and since when, and the work removed for it so far. Saved in
    /// the store at every change, so a restart goes on with it.
    var away: (reason: AwayReason, since: Micros, removed: Interval?)? {
        didSet { saveAway() }
    }
    /// The work removed for the last absence, until counted (`KeepAway`) or superseded; saved.
    var lastRemoved: Interval? {
        didSet { saveAway() }
    }
    var awayDecision: Deadlines.Handle?
    /// The "welcome back" notification shown last; saved, so a restart replaces it.
    var awayNotice: UInt32 = 0 {
        didSet {
            do {
                try tracker.daemonState.saveShownNotification(awayNotice, for: "away")
            } catch {
                log("cannot record the away notification (\(error)); after a restart the next one shows beside it")
            }
        }
    }

    // Targets (WorkService+Targets.swift): the settings, the store's `target set` values, the
    // last day announced, and the deadline at the instant today's target will be reached.
    let goals: TargetSettings
    /// The settings file's targets, each from the day the daemon first read its value.
    var configTargets: WorkTargets
    var announcedTargetDay: Day?
    var targetDue: Deadlines.Handle?
    /// The instant the running project's budget crosses its next threshold (a wake-up; the
    /// rule runs at every publication), and the notices shown per project (`v9-budgets`).
    var budgetDue: Deadlines.Handle?
    var budgetsAnnounced: [String: (period: String, thresholds: Set<BudgetThreshold>)] = [:]

    /// Called when the machine went to sleep at an instant (a running focus phase pauses).
    var onSleep: ((Micros) -> Void)?
    /// Imports, resets and exports, on a worker thread (`BulkWork`).
    let bulk: BulkWork

    public init(
        tracker: Tracker, bus: Bus, clock: any TimeSource, away: AwayRules = AwayRules(), notifier: Notifier? = nil,
        suspendClock: any SuspendClock = SystemSuspendClock(), goals: TargetSettings = TargetSettings(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        (self.goals, self.log, self.tracker, self.bus) = (goals, log, tracker, bus)
        configTargets = goals.targets
        bulk = BulkWork(loop: bus.loop, tracker: tracker)
        (self.clock, self.awayRules, self.notifier) = (clock, away, notifier)
        self.suspendClock = suspendClock
        suspendGap = SuspendGap(suspendClock.gap())
        publishedDay = tracker.rules.day(containing: clock.now())
        // What a previous run saved (not readable: logged, and the daemon starts as not away
        // with nothing to give back, which is what a store without them means).
        do {
            let saved = try tracker.daemonState.savedAway()
            self.away = saved.current.map { ($0.reason, $0.since, $0.removed) }
            lastRemoved = saved.lastRemoved
        } catch {
            log("cannot read the saved absence (\(error)); starting as not away")
        }
        do {
            awayNotice = try tracker.daemonState.shownNotifications()["away"] ?? 0
        } catch {
            log("cannot read the away notification's id (\(error)); the next one shows beside it")
        }
        do {
            configTargets = try tracker.targets.configTargets(goals.targets, seenFrom: publishedDay)
        } catch {
            log("cannot record when the settings file's targets were first read (\(error)); they count always")
        }
        do {
            announcedTargetDay = try tracker.daemonState.targetAnnouncedDay()
        } catch {
            log("cannot read the day the target was last announced (\(error)); today's may show again")
        }
    }

    /// Writes the absence and the removed away time (in `didSet`, on the loop thread).
    func saveAway() {
        do {
            try tracker.daemonState.saveAway(
                current: away.map { AwayRecord(reason: $0.reason, since: $0.since, removed: $0.removed) },
                lastRemoved: lastRemoved)
        } catch {
            // The timers are right; only a restart before the next change would forget it.
            log("cannot save the absence (\(error)); a restart now would forget it")
        }
    }

    // MARK: - Deadlines

    public func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        // A clock change or a resume may have crossed the day boundary: check it either way.
        dayBoundary = deadlines.add { [self] _ in
            checkSuspend()
            checkDayBoundary()
        }
        awayDecision = deadlines.add { [self] _ in decideAway() }
        // A wake-up only: the publication checks the target and moves this deadline (after a
        // clock change or a resume the day boundary's handler publishes already).
        targetDue = deadlines.add { [self] reason in if reason == .due { publication.change(at: clock.now()) {} } }
        budgetDue = deadlines.add { [self] reason in if reason == .due { publication.change(at: clock.now()) {} } }
        heartbeatDue = deadlines.add { [self] reason in
            if reason == .due { heartbeat() }
            do {
                scheduleDeadlines(try tracker.history.snapshot(at: clock.now()), restartHeartbeat: true)
            } catch {
                log("cannot read today's work (\(error)); the heartbeat waits for the next change")
            }
        }
        attachCalendar(deadlines)
        checkDayBoundary()
        // An absence saved by the previous run: decided now, or its deadline set.
        if away != nil { decideAway() }
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
        if let away {
            status.away = away.reason.rawValue
            status.awaySince = away.since
        }
        addTargets(to: &status, snapshot, targets: targets ?? self.targets)
        addBudget(to: &status, snapshot)
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
        let targets = targets
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
        calendarChanged(at: now)
        checkTarget(snapshot, targets: targets)
        checkBudgets(snapshot)
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

/// Quotes a caller's text for a message, with control characters made visible.
func quoted(_ text: String) -> String { BusError.quote(text, limit: 80) }
