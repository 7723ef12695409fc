import DBusCore
import BiomaContract

/// The daemon's methods as a command calls them: over the bus (`biomatimer-tool`) or in the
/// daemon's own process, to the very handlers the bus dispatches to (`Run`).
public protocol DaemonAccess: AnyObject {
    func call(_ member: String, _ arguments: [DBusValue], interface: String) throws(ClientFailure) -> [DBusValue]
}

extension DaemonAccess {
    func call(_ member: String, _ arguments: [DBusValue] = []) throws(ClientFailure) -> [DBusValue] {
        try call(member, arguments, interface: ContractNames.interface)
    }

    /// The state `State`'s interface publishes now: one `GetAll`, decoded with its table.
    func state<State: PublishedState>(_: State.Type) throws(ClientFailure) -> State {
        let answer = try call("GetAll", [.string(State.table.interface)], interface: StandardNames.properties)
        return State.table.decode(answer.first?.vardict ?? [:], over: State())
    }
}

extension DaemonClient: DaemonAccess {}
