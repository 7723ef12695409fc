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
    private var publishedDay: Day
    /// What Timer1 said at the instant of the change in progress, to diff against.
    private var before: WorkStatus?
    var deadlines: Deadlines?
    private var dayBoundary: Deadlines.Handle?
    private var heartbeatDue: Deadlines.Handle?
    /// `export_ics` (WorkService+Calendar.swift): the file, and its debounced rewrite.
    public var calendarPath: String?
    var calendar = CalendarFileState()

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
                try tracker.saveShownNotification(awayNotice, for: "away")
            } catch {
                log("cannot record the away notification (\(error)); after a restart the next one shows beside it")
            }
        }
    }

    // Targets (WorkService+Targets.swift): the settings, the store's `target set` values, the
    // last day announced, and the deadline at the instant today's target will be reached.
    let goals: TargetSettings
    var storedTargets: [Int: Micros] = [:]
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
        bulk = BulkWork(loop: bus.loop, tracker: tracker)
        (self.clock, self.awayRules, self.notifier) = (clock, away, notifier)
        self.suspendClock = suspendClock
        suspendGap = SuspendGap(suspendClock.gap())
        publishedDay = tracker.rules.day(containing: clock.now())
        // What a previous run saved (not readable: logged, and the daemon starts as not away
        // with nothing to give back, which is what a store without them means).
        do {
            let saved = try tracker.savedAway()
            self.away = saved.current.map { ($0.reason, $0.since, $0.removed) }
            lastRemoved = saved.lastRemoved
        } catch {
            log("cannot read the saved absence (\(error)); starting as not away")
        }
        do {
            awayNotice = try tracker.shownNotifications()["away"] ?? 0
        } catch {
            log("cannot read the away notification's id (\(error)); the next one shows beside it")
        }
        do {
            storedTargets = try tracker.storedTargets()
            announcedTargetDay = try tracker.targetAnnouncedDay()
        } catch {
            log("cannot read the stored targets (\(error)); the settings file's hold")
        }
    }

    /// Writes the absence and the removed away time (in `didSet`, on the loop thread).
    func saveAway() {
        do {
            try tracker.saveAway(
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
        targetDue = deadlines.add { [self] reason in if reason == .due { publishing(at: clock.now()) {} } }
        budgetDue = deadlines.add { [self] reason in if reason == .due { publishing(at: clock.now()) {} } }
        heartbeatDue = deadlines.add { [self] reason in
            if reason == .due { heartbeat() }
            do {
                scheduleDeadlines(try tracker.snapshot(at: clock.now()), restartHeartbeat: true)
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
    private func scheduleDeadlines(_ snapshot: TrackerSnapshot, restartHeartbeat: Bool = false) {
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
            return published(try tracker.snapshot(at: clock.now()))
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// What `org.biomatimer.Timer1` publishes for a snapshot and the current absence.
    func published(_ snapshot: TrackerSnapshot) -> WorkStatus {
        var status = DaemonAPI.status(of: snapshot)
        if let away {
            status.away = away.reason.rawValue
            status.awaySince = away.since
        }
        addTargets(to: &status, snapshot)
        addBudget(to: &status, snapshot)
        if let project = snapshot.activeProject { status.activeClient = tracker.clientName(ofProject: project.id) ?? "" }
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
        let now: Micros
        do {
            now = try publication.beginChange(clock)
        } catch {
            return reply.finish(.failure(error as? DBusMethodError ?? DaemonAPI.dbusError(error)))
        }
        // A caller that leaves the bus meanwhile (the front killed, Ctrl-C) takes the work
        // with it: rolled back, nothing of it applied.
        let gone = try? bus.whenGone(reply.sender) { [bulk] in bulk.interrupt() }
        bulk.write({ worker in try body(worker, now) }) { [self] result in
            if let gone { bus.unsubscribe(gone) }
            publication.end(at: now)
            releaseMemoryAfterBulkWork(bytes: size)
            reply.finish(result.map(answer).mapError { $0 as? DBusMethodError ?? DaemonAPI.dbusError($0) })
        }
    }

    public func willChange(at now: Micros) {
        do {
            before = published(try tracker.snapshot(at: now))
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
            snapshot = try tracker.snapshot(at: now)
        } catch {
            return log("cannot read today's work (\(error)); nothing published")
        }
        let after = published(snapshot)
        if snapshot.day != publishedDay || before == nil {
            publishedDay = snapshot.day
            let projectsChanged = before.map { $0.projects != after.projects } ?? true
            let entries = WorkStatus.table.entries(of: after).filter { $0.0 != "Projects" || projectsChanged }
            do {
                try bus.emitPropertiesChanged(path: DaemonAPI.objectPath, interface: DaemonAPI.interface, changed: entries)
            } catch {
                log("cannot publish Timer1's state: \(error)")
            }
        } else if let before {
            bus.emitChanges(WorkStatus.table, path: DaemonAPI.objectPath, from: before, to: after)
        }
        scheduleDeadlines(snapshot)
        calendarChanged(at: now)
        checkTarget(snapshot)
        checkBudgets(snapshot)
    }

    /// Called when the day may have changed (the day timer fired, the clock jumped, the
    /// machine resumed): publishes the new day and its totals once, with every part.
    public func checkDayBoundary() {
        let now = clock.now()
        publishing(at: now) {}
        // After the signal, so bars see the new day at once.
        tracker.takeDailyBackupIfDue(at: now)
    }

    /// Writes the heartbeat that bounds lost time after a crash or power cut.
    public func heartbeat() {
        do {
            try tracker.heartbeat(at: clock.now())
        } catch {
            log("cannot write the heartbeat (\(error)); a crash now loses the time since the last one")
        }
    }

    // MARK: - The interface

    /// `org.biomatimer.Timer1`: its properties from `WorkStatus.table`, read from one
    /// snapshot per `Get`/`GetAll`.
    public func interface() -> DBusInterface {
        DBusInterface(
            WorkStatus.table, state: { [self] in try status() },
            methods: [
                DBusMethod.action(BIOMATIMER_TIMER1_START) { [self] _ in
                    try start()
                },
                DBusMethod.action(BIOMATIMER_TIMER1_STOP) { [self] _ in
                    try change { try tracker.stop(at: $0) }
                },
                DBusMethod(BIOMATIMER_TIMER1_TOGGLE, out: [.init("running", "b")]) { [self] _ in
                    [.boolean(try change { try tracker.toggle(at: $0) })]
                },
                DBusMethod.action(BIOMATIMER_TIMER1_RESET) { [self] _ in
                    try change { try tracker.reset(at: $0) }
                },
                DBusMethod.action(BIOMATIMER_TIMER1_START_PROJECT, in: [.init("project", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try change { try tracker.startProject(ref, at: $0) }
                },
                DBusMethod.action(BIOMATIMER_TIMER1_STOP_PROJECT) { [self] _ in
                    try change { try tracker.stopProject(at: $0) }
                },
                DBusMethod(BIOMATIMER_TIMER1_TOGGLE_PROJECT, in: [.init("project", "s")], out: [.init("running", "b")]) { [self] call in
                    let ref = call.arguments[0].string!
                    return [.boolean(try change { try tracker.toggleProject(ref, at: $0) })]
                },
                DBusMethod(BIOMATIMER_TIMER1_CYCLE_PROJECT, in: [.init("step", "i")], out: [.init("project_id", "s")]) { [self] call in
                    let step = Int(call.arguments[0].int64!)
                    return [.string(try change { try tracker.cycleProject(step: step, at: $0) })]
                },
                DBusMethod.action(BIOMATIMER_TIMER1_RESET_PROJECT, in: [.init("project", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try change { try tracker.resetProject(ref, at: $0) }
                },
                DBusMethod(BIOMATIMER_TIMER1_LIST_PROJECTS, out: [.init("projects", "aa{sv}")]) { [self] _ in
                    [try listProjects()]
                },
                DBusMethod(BIOMATIMER_TIMER1_ADD_PROJECT, in: [.init("name", "s"), .init("color", "s")], out: [.init("project_id", "s")]) {
                    [self] call in
                    let name = call.arguments[0].string!
                    let color = call.arguments[1].string!
                    return [.string(try change { try tracker.addProject(name: name, color: color, at: $0) })]
                },
                DBusMethod.action(BIOMATIMER_TIMER1_UPDATE_PROJECT, in: [.init("project", "s"), .init("changes", "a{sv}")]) {
                    [self] in try updateProject($0)
                },
                DBusMethod.action(BIOMATIMER_TIMER1_DELETE_PROJECT, in: [.init("project", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try change { try tracker.deleteProject(ref, at: $0) }
                },
                DBusMethod.deferred(BIOMATIMER_TIMER1_REPORT, in: [.init("period", "s"), .init("day", "s")], out: [.init("report", "a{sv}")]) {
                    [self] call, reply in
                    let (period, day) = (call.arguments[0].string!, call.arguments[1].string!)
                    let bulk = Self.bulkPeriods.contains(period)
                    report(bulk: bulk, reply) { [Self.encode(try $0.report(period: period, day: day))] }
                },
                DBusMethod.deferred(BIOMATIMER_TIMER1_REPORT_TEXT, in: [.init("period", "s"), .init("day", "s"), .init("options", "a{sv}")],
                    out: [.init("text", "s")]
                ) { [self] call, reply in
                    let options = try Options(
                        call.arguments[2].vardict ?? [:], allowed: ReportMaker.tableKeys + ReportMaker.extraKeys + ReportMaker.timesheetKeys)
                    let (period, day) = (call.arguments[0].string!, call.arguments[1].string!)
                    report(bulk: ReportMaker.isBulk(period: period, options), reply) {
                        [.string(try $0.text(period: period, day: day, options))]
                    }
                },
                DBusMethod.deferred(BIOMATIMER_TIMER1_EXPORT_CSV, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("csv", "s")]) {
                    [self] call, reply in try export(call, reply) { try $0.exportCSV(from: $1, to: $2, at: $3) }
                }.reading(),
                DBusMethod.deferred(BIOMATIMER_TIMER1_IMPORT_CSV, in: [.init("csv", "s")], out: [.init("count", "u")]) {
                    [self] call, reply in
                    let text = call.arguments[0].string!
                    changeInBulk(reply: reply, size: text.utf8.count, { try $0.importCSV(text, at: $1) }) {
                        [.uint32(UInt32(clamping: $0))]
                    }
                },
                DBusMethod.deferred(BIOMATIMER_TIMER1_RESET_HISTORY) { [self] _, reply in
                    // Years of rows deleted: their pages given back after.
                    changeInBulk(reply: reply, size: 1 << 20, { try $0.resetHistory(at: $1) }) { _ in [] }
                },
                DBusMethod.action(BIOMATIMER_TIMER1_AWAY_BEGIN, in: [.init("reason", "s"), .init("since", "x")]) { [self] call in
                    try awayBegin(reason: call.arguments[0].string!, since: call.arguments[1].int64!)
                },
                DBusMethod.action(BIOMATIMER_TIMER1_AWAY_END) { [self] _ in
                    try awayEnd()
                },
                DBusMethod.action(BIOMATIMER_TIMER1_KEEP_AWAY) { [self] _ in
                    try keepAway()
                },
                DBusMethod.action(BIOMATIMER_TIMER1_KEEP_AWAY_FOR, in: [.init("project", "s")]) { [self] call in
                    try keepAway(for: call.arguments[0].string!)
                },
            ] + editMethods() + importMethods() + noteMethods() + [
                DBusMethod.action(BIOMATIMER_TIMER1_SET_TARGETS, in: [.init("targets", "a{sv}")]) { [self] in try setTargets($0) },
                DBusMethod(BIOMATIMER_TIMER1_LIST_TARGETS, out: [.init("targets", "a{sv}")]) { [self] _ in [listTargets()] },
            ] + clientMethods())
    }

    private func updateProject(_ call: MethodCall) throws {
        var changes = call.arguments[1].vardict ?? [:]
        let billing = try Self.billingChanges(&changes)
        let update = changes.isEmpty && !billing.isEmpty ? nil : try Self.projectUpdate(changes)
        try change {
            let ref = try tracker.projects.resolve(call.arguments[0].string!).id
            if !billing.isEmpty { try tracker.checkProjectBilling(ref, billing) }
            if let update {
                try tracker.updateProject(
                    ref, name: update.name, color: update.color, position: update.position, budget: update.budget, at: $0)
            }
            if !billing.isEmpty { try tracker.updateProjectBilling(ref, billing, at: $0) }
        }
    }

    static let bulkPeriods: Set<String> = [ReportPeriod.month.rawValue, ReportPeriod.year.rawValue]

    /// A report (`Report`, `ReportText`): `make` from a `ReportMaker` on the loop's tracker,
    /// or, for `bulk` work (a month or more, a timesheet), on a worker's while the loop
    /// answers others; what the work took is given back after the reply.
    private func report(
        bulk isBulk: Bool, _ reply: PendingReply, _ make: @escaping @Sendable (ReportMaker) throws -> [DBusValue]
    ) {
        let (now, targets) = (clock.now(), targets)
        let today = tracker.rules.day(containing: now)
        let context = ReportContext(now: now, targets: targets, balanceSince: targets.isSet ? balanceSince(today: today) : today)
        let answer: @Sendable (Result<[DBusValue], any Error>) -> Void = { result in
            reply.finish(result.mapError { $0 as? DBusMethodError ?? DaemonAPI.dbusError($0) })
        }
        guard isBulk else { return answer(Result { try make(ReportMaker(tracker: tracker, context: context)) }) }
        bulk.read({ try make(ReportMaker(tracker: $0, context: context)) }) { [self] result in
            answer(result)
            releaseMemoryAfterBulkWork(bytes: 1 << 20)
        }
    }

    /// `Start` (and the away notification's "Resume").
    func start() throws { try change { try tracker.start(at: $0) } }

    private func listProjects() throws -> DBusValue {
        let snapshot: TrackerSnapshot
        do {
            snapshot = try tracker.snapshot(at: clock.now())
        } catch {
            throw DaemonAPI.dbusError(error)
        }
        let billing = (try? tracker.billing()) ?? [:]
        let clients = Dictionary(((try? tracker.clients()) ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ProjectListing.list(
            snapshot.projects.map { p in
                let times = snapshot.projectTimes[p.id]
                var row = ProjectListing()
                (row.id, row.name, row.color, row.position) = (p.id, p.name, p.color, UInt32(clamping: p.position))
                row.running = times?.running ?? false
                (row.sessionTime, row.dailyTotal) = (times?.session ?? 0, times?.dailyTotal ?? 0)
                if let use = budgetUse(of: p, at: snapshot.updatedAt) {
                    (row.budget, row.budgetPeriod, row.budgetUsed) = (use.budget.amount, use.budget.period.rawValue, use.used)
                }
                addBilling(&row, billing[p.id], clients: clients)
                return row
            })
    }

    public static func encode(_ report: Report) -> DBusValue {
        var listing = ReportListing()
        (listing.from, listing.to) = (report.from.description, report.to.description)
        (listing.workTotal, listing.noProjectTotal) = (report.workTotal, report.noProjectTotal)
        listing.projects = report.projects.map { project in
            var row = ReportProjectRow()
            (row.id, row.name, row.color) = (project.id, project.name, project.color)
            (row.total, row.percent, row.completed) = (project.total, project.percent, UInt32(clamping: project.completed))
            return row
        }
        for day in report.days {
            var (work, focus) = (ReportDayRow(), ReportFocusRow())
            (work.day, work.workTotal) = (day.day.description, day.workTotal)
            (focus.day, focus.completed, focus.focusTime) = (day.day.description, UInt32(clamping: day.focusCompleted), day.focusTime)
            listing.days.append(work)
            listing.focus.append(focus)
        }
        return listing.dbusValue
    }

    static func optionalDay(_ text: String, _ what: String) throws -> Day? {
        if text.isEmpty { return nil }
        guard let day = Day(text) else {
            throw DaemonAPI.invalidArgument("\(what) \(quoted(text)) is not a day: use YYYY-MM-DD, or \"\" for today.")
        }
        return day
    }

    struct ProjectUpdate {
        var name: String?
        var color: String?
        var position: Int?
        /// `.some(nil)` removes the budget.
        var budget: Budget??
    }

    static func projectUpdate(_ changes: [String: DBusValue]) throws -> ProjectUpdate {
        var update = ProjectUpdate()
        var budget: Int64?
        var period: String?
        for (key, value) in changes {
            switch (key, value) {
            case ("Name", .string(let s)): update.name = s
            case ("Color", .string(let s)): update.color = s
            case ("Position", .uint32(let u)): update.position = Int(u)
            case ("Budget", .int64(let x)): budget = x
            case ("BudgetPeriod", .string(let s)): period = s
            case ("Name", _), ("Color", _), ("Position", _), ("Budget", _), ("BudgetPeriod", _):
                let type = ["Position": "u", "Budget": "x"][key] ?? "s"
                throw DaemonAPI.invalidArgument("\(key) must be of type \(type), not \(value.signature).")
            default:
                throw DaemonAPI.invalidArgument(
                    "Unknown key \(quoted(key)): use Name, Color, Position, Budget, BudgetPeriod, Client, Rate, Currency or Billable.")
            }
        }
        // Budget 0 removes it; a period needs a budget beside it.
        switch (budget, period) {
        case (nil, nil): break
        case (nil, _?): throw DaemonAPI.invalidArgument("BudgetPeriod needs a Budget beside it.")
        case (0?, let period):
            guard period?.isEmpty ?? true else { throw DaemonAPI.invalidArgument("Budget 0 removes the budget: give no BudgetPeriod.") }
            update.budget = .some(nil)
        case (let amount?, let period):
            guard amount > 0, amount <= Budget.maximum else {
                throw DaemonAPI.invalidArgument("A budget is more than 0 and at most 100000 hours (µs, x).")
            }
            do {
                update.budget = Budget(amount: amount, period: try BudgetPeriod.parse(period ?? "week"))
            } catch {
                throw DaemonAPI.dbusError(error)
            }
        }
        if update.name == nil && update.color == nil && update.position == nil && update.budget == nil {
            throw DaemonAPI.invalidArgument("No changes given: use the keys Name, Color, Position, Budget or BudgetPeriod.")
        }
        return update
    }
}

/// Quotes a caller's text for a message, with control characters made visible.
func quoted(_ text: String) -> String { BusError.quote(text, limit: 80) }
