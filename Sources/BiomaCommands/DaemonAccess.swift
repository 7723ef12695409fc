import DBusCore
import TimerControl

/// The daemon's methods as a command calls them: over the bus (`biomatimer-tool`) or in the
/// daemon's own process, to the very handlers the bus dispatches to (`Run`).
public protocol DaemonAccess: AnyObject {
    func call(_ member: String, _ arguments: [DBusValue], interface: String) throws(ClientFailure) -> [DBusValue]
}

extension DaemonAccess {
    func call(_ member: String, _ arguments: [DBusValue] = []) throws(ClientFailure) -> [DBusValue] {
        try call(member, arguments, interface: ContractNames.interface)
    }

    func properties(of interface: String = ContractNames.interface) throws(ClientFailure) -> [String: DBusValue] {
        try call("GetAll", [.string(interface)], interface: ContractNames.propertiesInterface).first?.vardict ?? [:]
    }

    func workStatus() throws(ClientFailure) -> WorkStatus {
        WorkStatus.table.decode(try properties(), over: WorkStatus())
    }

    func tasksStatus() throws(ClientFailure) -> TasksStatus {
        TasksStatus.table.decode(try properties(of: ContractNames.tasksInterface), over: TasksStatus())
    }
}

extension DaemonClient: DaemonAccess {}
