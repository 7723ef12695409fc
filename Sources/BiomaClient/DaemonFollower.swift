import BiomaContract
import BiomaWidgets
import DBusKit

/// Follows the daemon's published state on a bus connection, for any program that shows it
/// (`biomatimer watch`, the tray): its `PropertiesChanged` signals, its name owner (its absence
/// and return) and a `GetAll` of every followed interface (`WidgetState.interfaces`) whenever
/// it appears. Each change is handed to `handler` on the bus's loop thread with the whole
/// state, so a follower never polls and wakes only when the daemon says something.
///
/// The connection is the caller's: a program that exports objects of its own follows on the
/// same one, and decides what a lost bus means (the watch connects again, the tray exits).
public final class DaemonFollower: @unchecked Sendable {
    /// Why the state was handed over.
    public enum Cause: Sendable, Equatable {
        /// Every interface read (`first`: the read `start` made, which may have started the
        /// daemon); a read that failed in part hands over `WidgetState.offline`.
        case read(first: Bool)
        /// A `PropertiesChanged` of `interface`, applied.
        case changed(interface: String)
        /// The daemon left the bus.
        case gone
    }

    public typealias Handler = @Sendable (WidgetState, Cause) -> Void

    /// Held weakly: the bus's handlers hold the follower.
    private weak var bus: Bus?
    private let timeout: CallTimeout
    private let handler: Handler
    /// The daemon's state as last handed over. Loop thread only.
    public private(set) var state = WidgetState.offline

    public init(bus: Bus, timeout: CallTimeout = .seconds(10), handler: @escaping Handler) {
        (self.bus, self.timeout, self.handler) = (bus, timeout, handler)
    }

    /// Subscribes before reading, so no change between a read and the subscription is lost.
    /// The name owner's first answer reads the state when the daemon is there; `activating`
    /// reads it once more at once, letting the bus start the daemon (its answer, or failure
    /// after at most the call's timeout, is `.read(first: true)`).
    public func start(activating: Bool) throws(BusError) {
        guard let bus else { throw .disconnected("the bus is closed") }
        try bus.subscribe(
            // Only the name's owner: the bus resolves the well-known sender, so another
            // process cannot feed a fake state.
            MatchRule(
                sender: ContractNames.busName, path: ContractNames.objectPath, interface: StandardNames.properties,
                member: "PropertiesChanged")
        ) { [self] message in
            guard state.online, let interface = message.arguments.first?.string,
                let changed = message.arguments.dropFirst().first?.vardict
            else { return }
            state.apply(changed, interface: interface)
            handler(state, .changed(interface: interface))
        }
        try bus.watchNameOwner(ContractNames.busName) { [self] owner in
            if owner == nil {
                hand(.offline, .gone)
            } else {
                read(autoStart: false, first: false)
            }
        }
        if activating { read(autoStart: true, first: true) }
    }

    /// Reads every interface's properties (one `GetAll` each, sent together) and hands the
    /// state over when all have answered; a failure of any means offline.
    private func read(autoStart: Bool, first: Bool) {
        guard let bus else { return }
        let interfaces = WidgetState.interfaces
        let replies = ReadReplies(count: interfaces.count)
        for interface in interfaces {
            guard let message = WidgetState.getAll(interface, autoStart: autoStart) else {
                hand(.offline, .read(first: first))
                return
            }
            bus.send(message, timeout: timeout) { [self] result in
                guard let complete = replies.add(interface, result.map { $0.first?.vardict ?? [:] }) else { return }
                hand(complete.map { WidgetState(properties: $0) } ?? .offline, .read(first: first))
            }
        }
    }

    private func hand(_ new: WidgetState, _ cause: Cause) {
        state = new
        handler(new, cause)
    }
}

/// The `GetAll` answers of one read, collected until every interface has answered; on the
/// bus's loop thread, one at a time.
private final class ReadReplies: @unchecked Sendable {
    private var pending: Int
    private var failed = false
    private var properties: [String: [String: DBusValue]] = [:]

    init(count: Int) { pending = count }

    /// Records one answer; once all have come: the properties, or nil when any failed.
    func add(_ interface: String, _ result: Result<[String: DBusValue], BusError>) -> [String: [String: DBusValue]]?? {
        switch result {
        case .success(let values): properties[interface] = values
        case .failure: failed = true
        }
        pending -= 1
        guard pending == 0 else { return .none }
        return .some(failed ? nil : properties)
    }
}
