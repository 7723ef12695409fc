import BiomaCore
import BiomaReports
import BiomaStore
import BiomaText
import BiomaWidgets
import CContract
import DBusKit

/// Timer1's member table and the handlers that are only its glue: the project list, the
/// project update's options, the reports handed to `ReportMaker`.
extension WorkService {
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
                    try change { try tracker.timers.stop(at: $0) }
                },
                DBusMethod(BIOMATIMER_TIMER1_TOGGLE, out: [.init("running", "b")]) { [self] _ in
                    [.boolean(try change { try tracker.timers.toggle(at: $0) })]
                },
                DBusMethod.action(BIOMATIMER_TIMER1_RESET) { [self] _ in
                    try change { try tracker.timers.reset(at: $0) }
                },
                DBusMethod.action(BIOMATIMER_TIMER1_START_PROJECT, in: [.init("project", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try change { try tracker.timers.startProject(ref, at: $0) }
                },
                DBusMethod.action(BIOMATIMER_TIMER1_STOP_PROJECT) { [self] _ in
                    try change { try tracker.timers.stopProject(at: $0) }
                },
                DBusMethod(BIOMATIMER_TIMER1_TOGGLE_PROJECT, in: [.init("project", "s")], out: [.init("running", "b")]) { [self] call in
                    let ref = call.arguments[0].string!
                    return [.boolean(try change { try tracker.timers.toggleProject(ref, at: $0) })]
                },
                DBusMethod(BIOMATIMER_TIMER1_CYCLE_PROJECT, in: [.init("step", "i")], out: [.init("project_id", "s")]) { [self] call in
                    let step = Int(call.arguments[0].int64!)
                    return [.string(try change { try tracker.timers.cycleProject(step: step, at: $0) })]
                },
                DBusMethod.action(BIOMATIMER_TIMER1_RESET_PROJECT, in: [.init("project", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try change { try tracker.timers.resetProject(ref, at: $0) }
                },
                DBusMethod(BIOMATIMER_TIMER1_LIST_PROJECTS, out: [.init("projects", "aa{sv}")]) { [self] _ in
                    [try listProjects()]
                },
                DBusMethod(BIOMATIMER_TIMER1_ADD_PROJECT, in: [.init("name", "s"), .init("color", "s")], out: [.init("project_id", "s")]) {
                    [self] call in
                    let name = call.arguments[0].string!
                    let color = call.arguments[1].string!
                    return [.string(try change { try tracker.catalog.addProject(name: name, color: color, at: $0) })]
                },
                DBusMethod.action(BIOMATIMER_TIMER1_UPDATE_PROJECT, in: [.init("project", "s"), .init("changes", "a{sv}")]) {
                    [self] in try updateProject($0)
                },
                DBusMethod.action(BIOMATIMER_TIMER1_DELETE_PROJECT, in: [.init("project", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try change { try tracker.catalog.deleteProject(ref, at: $0) }
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
                DBusMethod(BIOMATIMER_TIMER1_PERIOD_DAYS, in: [.init("period", "s"), .init("day", "s")],
                    out: [.init("from_day", "s"), .init("to_day", "s")]
                ) { [self] call in
                    let days = try periodDays(call.arguments[0].string!, call.arguments[1].string!)
                    return [.string(days.from.description), .string(days.to.description)]
                },
                DBusMethod.deferred(BIOMATIMER_TIMER1_EXPORT_CSV, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("csv", "s")]) {
                    [self] call, reply in try export(call, reply) { try $0.history.exportCSV(from: $1, to: $2, at: $3) }
                }.reading(),
                DBusMethod.deferred(BIOMATIMER_TIMER1_IMPORT_CSV, in: [.init("csv", "s")], out: [.init("count", "u")]) {
                    [self] call, reply in
                    let text = call.arguments[0].string!
                    changeInBulk(reply: reply, size: text.utf8.count, { try $0.imports.importCSV(text, at: $1) }) {
                        [.uint32(UInt32(clamping: $0))]
                    }
                },
                DBusMethod.deferred(BIOMATIMER_TIMER1_RESET_HISTORY) { [self] _, reply in
                    // Years of rows deleted: their pages given back after.
                    changeInBulk(reply: reply, size: 1 << 20, { try $0.history.reset(at: $1) }) { _ in [] }
                },
                DBusMethod.action(BIOMATIMER_TIMER1_AWAY_BEGIN, in: [.init("reason", "s"), .init("since", "x")]) { [self] call in
                    try away.awayBegin(reason: call.arguments[0].string!, since: call.arguments[1].int64!)
                },
                DBusMethod.action(BIOMATIMER_TIMER1_AWAY_END) { [self] _ in
                    try away.awayEnd()
                },
                DBusMethod.action(BIOMATIMER_TIMER1_KEEP_AWAY) { [self] _ in
                    try away.keepAway()
                },
                DBusMethod.action(BIOMATIMER_TIMER1_KEEP_AWAY_FOR, in: [.init("project", "s")]) { [self] call in
                    try away.keepAway(for: call.arguments[0].string!)
                },
            ] + editMethods() + importMethods() + noteMethods() + [
                DBusMethod.action(BIOMATIMER_TIMER1_SET_TARGETS, in: [.init("targets", "a{sv}")]) { [self] call in
                    let changes = try DailyTargets.targetChanges(call.arguments[0].vardict ?? [:])
                    try change { now in try tracker.targets.setTargets(changes, from: tracker.rules.day(containing: now)) }
                },
                DBusMethod(BIOMATIMER_TIMER1_LIST_TARGETS, out: [.init("targets", "a{sv}")]) { [self] _ in
                    [dailyTargets.listTargets(today: tracker.rules.day(containing: clock.now()))]
                },
            ] + clientMethods() + configMethods() + backupMethods())
    }

    func updateProject(_ call: MethodCall) throws {
        var changes = call.arguments[1].vardict ?? [:]
        let billing = try Self.billingChanges(&changes)
        let update = changes.isEmpty && !billing.isEmpty ? nil : try Self.projectUpdate(changes)
        try change {
            let ref = try tracker.projects.resolve(call.arguments[0].string!).id
            if !billing.isEmpty { try tracker.catalog.checkProjectBilling(ref, billing) }
            if let update {
                try tracker.catalog.updateProject(
                    ref, name: update.name, color: update.color, position: update.position, budget: update.budget, at: $0)
            }
            if !billing.isEmpty { try tracker.catalog.updateProjectBilling(ref, billing, at: $0) }
        }
    }

    static let bulkPeriods: Set<String> = [ReportPeriod.month.rawValue, ReportPeriod.year.rawValue]

    /// A report (`Report`, `ReportText`): `make` from a `ReportMaker` on the loop's tracker,
    /// or, for `bulk` work (a month or more, a timesheet), on a worker's while the loop
    /// answers others; what the work took is given back after the reply.
    func report(
        bulk isBulk: Bool, _ reply: PendingReply, _ make: @escaping @Sendable (ReportMaker) throws -> [DBusValue]
    ) {
        let (now, targets) = (clock.now(), dailyTargets.current)
        let today = tracker.rules.day(containing: now)
        let context = ReportContext(now: now, targets: targets, balanceSince: targets.isSet ? dailyTargets.balanceSince(today: today) : today)
        let answer: @Sendable (Result<[DBusValue], any Error>) -> Void = { result in
            reply.finish(result.mapError(DaemonAPI.dbusError))
        }
        guard isBulk else { return answer(Result { try make(ReportMaker(tracker: tracker, context: context)) }) }
        bulk.read({ try make(ReportMaker(tracker: $0, context: context)) }) { [self] result in
            answer(result)
            releaseMemoryAfterBulkWork(bytes: 1 << 20)
        }
    }

    /// `Start`.
    func start() throws { try change { try tracker.timers.start(at: $0) } }

    func listProjects() throws -> DBusValue {
        let snapshot: TrackerSnapshot
        do {
            snapshot = try tracker.history.snapshot(at: clock.now())
        } catch {
            throw DaemonAPI.dbusError(error)
        }
        let billing = (try? tracker.catalog.billing()) ?? [:]
        let clients = Dictionary(((try? tracker.catalog.clients()) ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ProjectListing.list(
            snapshot.projects.map { p in
                let times = snapshot.projectTimes[p.id]
                var row = ProjectListing()
                (row.id, row.name, row.color, row.position) = (p.id, p.name, p.color, UInt32(clamping: p.position))
                row.running = times?.running ?? false
                (row.sessionTime, row.dailyTotal) = (times?.session ?? 0, times?.dailyTotal ?? 0)
                if let use = budgets.budgetUse(of: p, at: snapshot.updatedAt) {
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

    /// A report's period by its name: `day`, `week`, `month` or `year`.
    static func period(_ text: String) throws -> ReportPeriod {
        guard let period = ReportPeriod(rawValue: text) else {
            throw DaemonAPI.invalidArgument("Unknown period \(quoted(text)): use day, week, month or year.")
        }
        return period
    }

    /// The days a report of `period` containing `day` (`""`: today) covers (`PeriodDays`).
    func periodDays(_ period: String, _ day: String) throws -> (from: Day, to: Day) {
        let period = try Self.period(period)
        let day = try Self.optionalDay(day, "day") ?? tracker.rules.day(containing: clock.now())
        return tracker.rules.period(period, containing: day)
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
