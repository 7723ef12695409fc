import BiomaWidgets
import DBusKit

/// How a command failed, and the exit code that says so (0 done, 1 refused, 2 usage, 3 no bus
/// or no daemon).
public struct ClientFailure: Error, CustomStringConvertible {
    public var exitCode: Int32
    public var description: String

    public init(exitCode: Int32, _ description: String) {
        self.exitCode = exitCode
        self.description = description
    }

    static let howToStart =
        "Start it with `biomatimer daemon`, or run `biomatimer install` once so the bus starts it on demand."

    /// Classifies a bus failure: the daemon's own errors are refusals (1), a missing bus or
    /// daemon is 3.
    public init(_ error: BusError) {
        switch error {
        case .connectionFailed(let why):
            self.init(exitCode: 3, "cannot reach the D-Bus session bus: \(why). Is a desktop session running? (`make run` starts a private bus.)")
        case .disconnected(let why):
            self.init(exitCode: 3, "lost the D-Bus session bus: \(why)")
        case .remote(let name, let message) where name.hasPrefix(TimerAPI.errorPrefix):
            self.init(exitCode: 1, message)
        case .remote(let name, _)
        where name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner":
            self.init(exitCode: 3, "the biomatimer daemon is not running. \(Self.howToStart)")
        case .remote(let name, let message)
        where name == "org.freedesktop.DBus.Error.Spawn.ChildExited" || name.hasPrefix("org.freedesktop.DBus.Error.Spawn"):
            self.init(exitCode: 3, "the bus could not start the biomatimer daemon: \(message)")
        case .timeout:
            self.init(exitCode: 3, "the biomatimer daemon did not answer in time.")
        case .remote(_, let message):
            self.init(exitCode: 1, message)
        default:
            self.init(exitCode: 1, error.description)
        }
    }
}

/// One blocking connection to the daemon for a short-lived command: connect, call, print.
public final class TimerClient {
    let bus: BlockingBus

    public init(address: BusAddress = .session) throws(ClientFailure) {
        do {
            bus = try BlockingBus(address)
        } catch {
            throw ClientFailure(error)
        }
    }

    /// Calls a method of `org.biomatimer.Timer1`; the bus starts the daemon if it is not running.
    public func call(_ member: String, _ arguments: [DBusValue] = []) throws(ClientFailure) -> [DBusValue] {
        do {
            return try bus.call(
                destination: TimerAPI.busName, path: TimerAPI.objectPath, interface: TimerAPI.interface,
                member: member, arguments)
        } catch {
            throw ClientFailure(error)
        }
    }

    /// Every property, computed by the daemon at the moment of the call.
    public func properties() throws(ClientFailure) -> [String: DBusValue] {
        do {
            let reply = try bus.call(
                destination: TimerAPI.busName, path: TimerAPI.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", [.string(TimerAPI.interface)])
            return reply.first?.vardict ?? [:]
        } catch {
            throw ClientFailure(error)
        }
    }
}

extension WidgetState {
    /// The state as published in `org.biomatimer.Timer1`'s properties.
    public init(properties p: [String: DBusValue]) {
        self.init(
            online: true,
            running: p["Running"]?.bool ?? false,
            updatedAt: p["UpdatedAt"]?.int64 ?? 0,
            sessionTime: p["SessionTime"]?.int64 ?? 0,
            dailyTotal: p["DailyTotal"]?.int64 ?? 0,
            day: p["Day"]?.string ?? "",
            activeProject: p["ActiveProject"]?.string ?? "",
            activeProjectName: p["ActiveProjectName"]?.string ?? "",
            activeProjectColor: p["ActiveProjectColor"]?.string ?? "",
            projectSessionTime: p["ProjectSessionTime"]?.int64 ?? 0,
            projectDailyTotal: p["ProjectDailyTotal"]?.int64 ?? 0)
    }

    /// Applies the entries of a `PropertiesChanged` signal.
    public mutating func apply(_ changed: [String: DBusValue]) {
        if let v = changed["Running"]?.bool { running = v }
        if let v = changed["UpdatedAt"]?.int64 { updatedAt = v }
        if let v = changed["SessionTime"]?.int64 { sessionTime = v }
        if let v = changed["DailyTotal"]?.int64 { dailyTotal = v }
        if let v = changed["Day"]?.string { day = v }
        if let v = changed["ActiveProject"]?.string { activeProject = v }
        if let v = changed["ActiveProjectName"]?.string { activeProjectName = v }
        if let v = changed["ActiveProjectColor"]?.string { activeProjectColor = v }
        if let v = changed["ProjectSessionTime"]?.int64 { projectSessionTime = v }
        if let v = changed["ProjectDailyTotal"]?.int64 { projectDailyTotal = v }
    }
}
