import DBusCore

/// The state `org.biomatimer.Timer1` publishes: one stored property per D-Bus property. The
/// daemon fills it from its tracker; clients decode it from `GetAll` and `PropertiesChanged`.
/// Both go through `table`, the interface's only list of properties.
///
/// Time values are microseconds and hold at `updatedAt`: while `running`, `sessionTime` and
/// `dailyTotal` advance at one second per second; while `activeProject` is not empty, so do
/// the two project values.
public struct WorkStatus: PublishedState {
    /// `Running`: the work timer is running.
    public var running = false
    /// `UpdatedAt`: µs since the Unix epoch at which the time values hold.
    public var updatedAt: Int64 = 0
    /// `SessionTime`: the work stopwatch.
    public var sessionTime: Int64 = 0
    /// `DailyTotal`: work time in the current day.
    public var dailyTotal: Int64 = 0
    /// `Day`: the current day, `YYYY-MM-DD`.
    public var day = ""
    /// `ActiveProject`: the running project's id, `""` when none.
    public var activeProject = ""
    /// `ActiveProjectName`: its name, `""` when none.
    public var activeProjectName = ""
    /// `ActiveProjectColor`: `#RRGGBB`, `""` when none.
    public var activeProjectColor = ""
    /// `ProjectSessionTime`: the running project's session value, 0 when none.
    public var projectSessionTime: Int64 = 0
    /// `ProjectDailyTotal`: the running project's time in the current day, 0 when none.
    public var projectDailyTotal: Int64 = 0
    /// `Projects`: every project, in list order.
    public var projects: [ProjectSummary] = []
    /// `Away`: `""`, or why the user is away now: `sleep`, `lock`, `idle`.
    public var away = ""
    /// `AwaySince`: when that began, 0 when not away.
    public var awaySince: Int64 = 0
    /// `DailyTarget`: today's work target, 0 when none.
    public var dailyTarget: Int64 = 0
    /// `TargetProgress`: `DailyTotal` over `DailyTarget` at `updatedAt` (0 with no target; may
    /// exceed 1). Grows while `running` at 1 s per second over the target.
    public var targetProgress: Double = 0
    /// `Balance`: work minus target over every day since the balance's first day, today's
    /// whole target counted, at `updatedAt` (negative: time owed). Grows while `running`.
    public var balance: Int64 = 0
    /// `ProjectBudget`: the running project's budget (`project edit --budget`), 0 when it has
    /// none or no project runs.
    public var projectBudget: Int64 = 0
    /// `ProjectBudgetUsed`: the running project's time in its budget's current period, at
    /// `updatedAt`, 0 with no budget. Grows while the project runs.
    public var projectBudgetUsed: Int64 = 0
    /// `ActiveClient`: the running project's client's name, `""` when none.
    public var activeClient = ""
    /// `ConfigProblems`: the lines of the settings file the daemon could not use when it
    /// started, each `FILE:LINE: what is wrong` (their settings keep their defaults); empty
    /// when there are none.
    public var configProblems: [String] = []

    public init() {}

    /// Each project's name by its id (what a listing that names projects by id shows).
    public var projectNames: [String: String] {
        Dictionary(projects.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The properties of `org.biomatimer.Timer1`, in the order of the contract and of
    /// dbus/org.biomatimer.Timer1.xml. The time values are sent with every change.
    public static let table = PropertyTable<WorkStatus>(
        interface: ContractNames.interface,
        [
            .init("Running", \.running),
            .init("UpdatedAt", \.updatedAt, alwaysSent: true),
            .init("SessionTime", \.sessionTime, alwaysSent: true),
            .init("DailyTotal", \.dailyTotal, alwaysSent: true),
            .init("Day", \.day),
            .init("ActiveProject", \.activeProject),
            .init("ActiveProjectName", \.activeProjectName),
            .init("ActiveProjectColor", \.activeProjectColor),
            .init("ProjectSessionTime", \.projectSessionTime, alwaysSent: true),
            .init("ProjectDailyTotal", \.projectDailyTotal, alwaysSent: true),
            .init("Projects", \.projects),
            .init("Away", \.away),
            .init("AwaySince", \.awaySince),
            .init("DailyTarget", \.dailyTarget),
            .init("TargetProgress", \.targetProgress, alwaysSent: true),
            .init("Balance", \.balance, alwaysSent: true),
            .init("ProjectBudget", \.projectBudget),
            .init("ProjectBudgetUsed", \.projectBudgetUsed, alwaysSent: true),
            .init("ActiveClient", \.activeClient),
            .init("ConfigProblems", \.configProblems),
        ])
}

/// One entry of `Projects`: `(sss)`, id, name and colour.
public struct ProjectSummary: Sendable, Equatable, DBusPropertyValue {
    public var id: String
    public var name: String
    public var color: String

    public init(id: String, name: String, color: String) {
        (self.id, self.name, self.color) = (id, name, color)
    }

    public static var dbusType: DBusType { .structure([.string, .string, .string]) }
    public var dbusValue: DBusValue { .structure([.string(id), .string(name), .string(color)]) }
    public init?(dbusValue: DBusValue) {
        guard case .structure(let fields) = dbusValue, fields.count == 3, case .string(let id) = fields[0],
            case .string(let name) = fields[1], case .string(let color) = fields[2]
        else { return nil }
        self.init(id: id, name: name, color: color)
    }
}
