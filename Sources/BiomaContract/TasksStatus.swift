import DBusCore

/// The state `org.biomatimer.Tasks1` publishes; `table` is that interface's list of properties.
public struct TasksStatus: PublishedState {
    /// `OpenTasks`: tasks not done.
    public var openTasks: UInt32 = 0
    /// `DueTasks`: open tasks whose due instant has passed.
    public var dueTasks: UInt32 = 0
    /// `NextDue`: the next reminder instant (µs since the epoch), 0 for none.
    public var nextDue: Int64 = 0

    public init() {}

    public static let table = PropertyTable<TasksStatus>(
        interface: ContractNames.tasksInterface,
        [
            .init("OpenTasks", \.openTasks),
            .init("DueTasks", \.dueTasks),
            .init("NextDue", \.nextDue),
        ])
}
