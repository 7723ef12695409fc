import DBusCore
import BiomaContract

extension WidgetState {
    /// The interfaces whose properties a bar follows, each decoded with its property table.
    public static let interfaces = [ContractNames.interface, ContractNames.tasksInterface, ContractNames.focusInterface]

    /// The `GetAll` call that reads `interface` of the daemon's object; `autoStart` says whether
    /// the bus may start the daemon for it. Nil when the message cannot be made.
    public static func getAll(_ interface: String, autoStart: Bool) -> BusMessage? {
        guard
            let message = try? BusMessage.methodCall(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: StandardNames.properties,
                member: "GetAll", arguments: [.string(interface)])
        else { return nil }
        message.autoStart = autoStart
        return message
    }

    /// The state from the `GetAll` answers of the daemon's interfaces, by interface name.
    public init(properties: [String: [String: DBusValue]]) {
        self.init(online: true, timer: WorkStatus())
        for (interface, values) in properties { apply(values, interface: interface) }
    }

    /// Applies a `PropertiesChanged` signal's (or a `GetAll` answer's) entries for `interface`;
    /// other interfaces are ignored.
    public mutating func apply(_ changed: [String: DBusValue], interface: String) {
        switch interface {
        case ContractNames.interface: WorkStatus.table.apply(changed, to: &timer)
        case ContractNames.tasksInterface: TasksStatus.table.apply(changed, to: &tasks)
        case ContractNames.focusInterface: FocusStatus.table.apply(changed, to: &focus)
        default: break
        }
    }
}
