import DBusCore

/// Method results decoded through tables, as properties are: a result row is a struct with a
/// `PropertyTable`, travelling as an `a{sv}`; the daemon writes rows with `list`, clients read
/// them with `rows`, so no key is spelt at either end. A row may also be an element of a
/// property (`Sync1.Devices`) or of another row (`ListTargets`' days).
public protocol ResultRow: DBusPropertyValue, Equatable {
    static var table: PropertyTable<Self> { get }
    /// Every field at its default: what an entry missing from an answer keeps.
    init()
}

extension ResultRow {
    public static var dbusType: DBusType { .array(.dictEntry(.string, .variant)) }
    public var dbusValue: DBusValue { .vardict(ordered: Self.table.entries(of: self)) }

    /// A row from its `a{sv}`: an entry missing, unknown or of another type keeps `init()`'s value.
    public init?(dbusValue: DBusValue) {
        guard let row = Self.table.decode(dbusValue, over: Self()) else { return nil }
        self = row
    }

    /// `rows` as an `aa{sv}` result, each row's entries in the table's order.
    public static func list(_ rows: [Self]) -> DBusValue { rows.dbusValue }

    /// The rows of an `aa{sv}` result; none when the result is missing or of another type.
    public static func rows(_ result: DBusValue?) -> [Self] { (result?.array ?? []).compactMap(Self.init(dbusValue:)) }
}

/// One row of `ListProjects`: a project with today's times.
public struct ProjectListing: ResultRow, Sendable {
    public var id = ""
    public var name = ""
    /// `#RRGGBB`.
    public var color = ""
    /// Its place in the list, from 0.
    public var position: UInt32 = 0
    public var running = false
    /// Microseconds.
    public var sessionTime: Int64 = 0
    public var dailyTotal: Int64 = 0
    /// The budget (µs), 0 for none; its period `week`, `month` or `total` (`""` for none); the
    /// time used in the current period, the running interval counted up to the answer.
    public var budget: Int64 = 0
    public var budgetPeriod = ""
    public var budgetUsed: Int64 = 0
    /// Its client's id and name (`""` for none); the rate it is billed at (its own, else its
    /// client's: minor units of `currency` per hour, 0 for none); whether it is billed.
    public var client = ""
    public var clientName = ""
    public var rate: Int64 = 0
    public var currency = ""
    public var billable = true

    public init() {}

    public static let table = PropertyTable<ProjectListing>(
        interface: ContractNames.interface,
        [
            .init("Id", \.id), .init("Name", \.name), .init("Color", \.color), .init("Position", \.position),
            .init("Running", \.running), .init("SessionTime", \.sessionTime), .init("DailyTotal", \.dailyTotal),
            .init("Budget", \.budget), .init("BudgetPeriod", \.budgetPeriod), .init("BudgetUsed", \.budgetUsed),
            .init("Client", \.client), .init("ClientName", \.clientName), .init("Rate", \.rate), .init("Currency", \.currency),
            .init("Billable", \.billable),
        ])
}

/// The start of each `ListPresets` row: the preset's id and name. The plan's options follow,
/// named as the `Start…` methods take them (`Kind`, `Work`, `Duration`, …, `Label`, `Project`).
public struct PresetListing: ResultRow, Sendable {
    public var id = ""
    public var name = ""

    public init() {}

    public static let table = PropertyTable<PresetListing>(
        interface: ContractNames.focusInterface, [.init("Id", \.id), .init("Name", \.name)])
}

/// One row of `FocusHistory`: a focus phase that ended.
public struct PhaseListing: ResultRow, Sendable {
    /// `pomodoro`, `countdown` or `intervals`.
    public var kind = ""
    /// `work`, `short-break`, `long-break`, `countdown`, `active` or `rest`.
    public var phase = ""
    /// The work phase's or the round's number, from 1.
    public var round: UInt32 = 0
    public var label = ""
    /// The project's id, `""` for none.
    public var project = ""
    /// µs since the epoch.
    public var start: Int64 = 0
    public var end: Int64 = 0
    /// The planned length (µs), extensions included.
    public var planned: Int64 = 0
    /// Ran to its end (not skipped or stopped).
    public var completed = false

    public init() {}

    public static let table = PropertyTable<PhaseListing>(
        interface: ContractNames.focusInterface,
        [
            .init("Kind", \.kind), .init("Phase", \.phase), .init("Round", \.round), .init("Label", \.label),
            .init("Project", \.project), .init("Start", \.start), .init("End", \.end), .init("Planned", \.planned),
            .init("Completed", \.completed),
        ])
}

/// One row of `ListTasks`.
public struct TaskListing: ResultRow, Sendable {
    /// `t1`, `t2`, …
    public var id = ""
    public var title = ""
    /// The project's id, `""` for none.
    public var project = ""
    /// The due instant (µs since the epoch), 0 for none.
    public var due: Int64 = 0
    public var remind = false
    public var done = false
    /// When it was marked done (µs since the epoch), 0 while open.
    public var doneAt: Int64 = 0

    public init() {}

    public static let table = PropertyTable<TaskListing>(
        interface: ContractNames.tasksInterface,
        [
            .init("Id", \.id), .init("Title", \.title), .init("Project", \.project), .init("Due", \.due),
            .init("Remind", \.remind), .init("Done", \.done), .init("DoneAt", \.doneAt),
        ])
}

/// One row of `ListIntervals`.
public struct IntervalListing: ResultRow, Sendable {
    public var id = ""
    /// µs since the epoch; `end` 0 while running.
    public var start: Int64 = 0
    public var end: Int64 = 0
    /// The project's id, `""` for none.
    public var project = ""
    /// The interval's note, `""` for none.
    public var note = ""
    /// Its tags, in the order given.
    public var tags: [String] = []

    public init() {}

    public static let table = PropertyTable<IntervalListing>(
        interface: ContractNames.interface,
        [
            .init("Id", \.id), .init("Start", \.start), .init("End", \.end), .init("Project", \.project),
            .init("Note", \.note), .init("Tags", \.tags),
        ])
}

/// One row of `ListBackups` (newest first), and each of `RestoreBackup`'s two answers: a copy
/// of the store in the data folder's `backups/`.
public struct BackupListing: ResultRow, Sendable {
    /// The file's name: what `RestoreBackup` takes.
    public var name = ""
    /// When it was taken (µs since the epoch).
    public var taken: Int64 = 0
    /// Why: `daily`, `before-delete-project`, `before-reset-history` or `before-restore`.
    public var reason = ""
    /// Its size in bytes.
    public var size: Int64 = 0

    public init() {}

    public static let table = PropertyTable<BackupListing>(
        interface: ContractNames.interface,
        [.init("Name", \.name), .init("Taken", \.taken), .init("Reason", \.reason), .init("Size", \.size)])
}

/// `ListTargets`' answer: each weekday's target, and where the balance starts.
public struct TargetsListing: ResultRow, Sendable {
    /// Monday to Sunday.
    public var days: [TargetDayListing] = []
    /// The balance's first day, `YYYY-MM-DD`.
    public var balanceSince = ""
    /// Where that day comes from: `config`, `first-recorded-day` or `today`.
    public var balanceSinceSource = ""

    public init() {}

    public static let table = PropertyTable<TargetsListing>(
        interface: ContractNames.interface,
        [.init("Days", \.days), .init("BalanceSince", \.balanceSince), .init("BalanceSinceSource", \.balanceSinceSource)])
}

/// One weekday of `ListTargets`.
public struct TargetDayListing: ResultRow, Sendable {
    /// `Mon` … `Sun`.
    public var day = ""
    /// µs, 0 for none.
    public var target: Int64 = 0
    /// `store` (`SetTargets`), `config` (the config file) or `none`.
    public var source = ""
    /// `YYYY-MM-DD`: the day the value took effect (it counts from then); empty when it holds
    /// always or there is none.
    public var since = ""

    public init() {}

    public static let table = PropertyTable<TargetDayListing>(
        interface: ContractNames.interface,
        [.init("Day", \.day), .init("Target", \.target), .init("Source", \.source), .init("Since", \.since)])
}

/// `Report`'s answer: the totals of a range of days, by project and by day.
public struct ReportListing: ResultRow, Sendable {
    /// The range's first and last day, `YYYY-MM-DD`.
    public var from = ""
    public var to = ""
    /// µs of work in the range, and of work without a project.
    public var workTotal: Int64 = 0
    public var noProjectTotal: Int64 = 0
    /// Projects with time in the range, largest total first.
    public var projects: [ReportProjectRow] = []
    /// Every day of the range, in order.
    public var days: [ReportDayRow] = []
    /// Every day of the range, in order: the focus phases completed and their time.
    public var focus: [ReportFocusRow] = []

    public init() {}

    public static let table = PropertyTable<ReportListing>(
        interface: ContractNames.interface,
        [
            .init("From", \.from), .init("To", \.to), .init("WorkTotal", \.workTotal), .init("NoProjectTotal", \.noProjectTotal),
            .init("Projects", \.projects), .init("Days", \.days), .init("Focus", \.focus),
        ])
}

/// One project of a `Report`.
public struct ReportProjectRow: ResultRow, Sendable {
    public var id = ""
    public var name = ""
    public var color = ""
    /// µs in the range, and its share of the range's work, 0…100.
    public var total: Int64 = 0
    public var percent: Double = 0
    /// Focus work phases and rounds completed for it.
    public var completed: UInt32 = 0

    public init() {}

    public static let table = PropertyTable<ReportProjectRow>(
        interface: ContractNames.interface,
        [
            .init("Id", \.id), .init("Name", \.name), .init("Color", \.color), .init("Total", \.total),
            .init("Percent", \.percent), .init("Completed", \.completed),
        ])
}

/// One day of a `Report`: its work.
public struct ReportDayRow: ResultRow, Sendable {
    public var day = ""
    public var workTotal: Int64 = 0

    public init() {}

    public static let table = PropertyTable<ReportDayRow>(
        interface: ContractNames.interface, [.init("Day", \.day), .init("WorkTotal", \.workTotal)])
}

/// One day of a `Report`: its focus phases.
public struct ReportFocusRow: ResultRow, Sendable {
    public var day = ""
    /// Work phases and rounds completed.
    public var completed: UInt32 = 0
    /// µs spent in focus phases.
    public var focusTime: Int64 = 0

    public init() {}

    public static let table = PropertyTable<ReportFocusRow>(
        interface: ContractNames.interface,
        [.init("Day", \.day), .init("Completed", \.completed), .init("FocusTime", \.focusTime)])
}

/// One row of `ListHooks`: an executable of the hooks folder, the event it follows, and its
/// last run since the daemon started.
public struct HookListing: ResultRow, Sendable {
    /// The file's name (`on-focus-start.dnd`).
    public var name = ""
    /// The event it runs on (`on-focus-start`).
    public var event = ""
    /// Why it will not run as it is (`writable by others`, `not owned by you`, `not executable:
    /// chmod +x PATH to run it`), `""` when it will.
    public var problem = ""
    /// Its last run's start (µs since the epoch), 0 when it has not run.
    public var lastStart: Int64 = 0
    /// How long that run took (µs).
    public var lastDuration: Int64 = 0
    /// Its exit status, -1 when it was killed or did not start.
    public var lastExit: Int64 = -1
    /// What happened, in words: `ok`, `exit 3`, `killed by SIGKILL at the 10 s limit`, `cut: …`.
    public var lastOutcome = ""
    /// The last lines it wrote to standard error.
    public var lastStderr = ""
    /// When the run going on now started (µs since the epoch), 0 when none runs; the `last`
    /// fields are the run before it.
    public var runningSince: Int64 = 0

    public init() {}

    public static let table = PropertyTable<HookListing>(
        interface: ContractNames.hooksInterface,
        [
            .init("Name", \.name), .init("Event", \.event), .init("Problem", \.problem), .init("LastStart", \.lastStart),
            .init("LastDuration", \.lastDuration), .init("LastExit", \.lastExit), .init("LastOutcome", \.lastOutcome),
            .init("LastStderr", \.lastStderr), .init("RunningSince", \.runningSince),
        ])
}

/// The events hooks follow, named as their files begin (Taskwarrior's convention); the
/// events of one change run in this order.
public enum HookEvent: String, Sendable, CaseIterable {
    case merge = "on-merge"
    case back = "on-back"
    case phaseEnd = "on-phase-end"
    case focusStop = "on-focus-stop"
    case away = "on-away"
    case stop = "on-stop"
    case project = "on-project"
    case start = "on-start"
    case focusStart = "on-focus-start"
    case targetReached = "on-target-reached"
    case budget = "on-budget"
    case taskDue = "on-task-due"

    /// The events as the help and the completions list them: work, focus, goals, presence, sync.
    public static let listed: [HookEvent] = [
        .start, .stop, .project, .focusStart, .phaseEnd, .focusStop, .targetReached, .budget, .taskDue, .away, .back, .merge,
    ]

    /// The event a hook's file name runs on, nil for none.
    public static func of(fileName: String) -> HookEvent? {
        allCases.first { fileName.hasPrefix($0.rawValue) }
    }
}

/// One row of `ListClients`: a client, its rate and how many projects name it.
public struct ClientListing: ResultRow, Sendable {
    /// `c1`, `c2`, …
    public var id = ""
    public var name = ""
    /// Minor units of `currency` per hour, 0 for none.
    public var rate: Int64 = 0
    /// An ISO 4217 code, `""` for none.
    public var currency = ""
    public var projects: UInt32 = 0

    public init() {}

    public static let table = PropertyTable<ClientListing>(
        interface: ContractNames.interface,
        [.init("Id", \.id), .init("Name", \.name), .init("Rate", \.rate), .init("Currency", \.currency), .init("Projects", \.projects)])
}
