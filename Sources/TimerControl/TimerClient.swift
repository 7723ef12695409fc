import DBusCore

/// The fixed names of the D-Bus contract (`../shared/spec/dbus-api.md`).
public enum TimerNames {
    public static let busName = "org.biomatimer.Timer1"
    public static let objectPath = "/org/biomatimer/Timer1"
    public static let interface = "org.biomatimer.Timer1"
    public static let errorPrefix = "org.biomatimer.Timer1.Error."
}

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
        case .remote(let name, let message) where name.hasPrefix(TimerNames.errorPrefix):
            self.init(exitCode: 1, message)
        case .remote(let name, _)
        where name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner":
            self.init(exitCode: 3, "the biomatimer daemon is not running. \(Self.howToStart)")
        case .remote(let name, let message)
        where name == "org.freedesktop.DBus.Error.Spawn.ChildExited" || name.hasPrefix("org.freedesktop.DBus.Error.Spawn"):
            self.init(exitCode: 3, "the bus could not start the biomatimer daemon: \(message)")
        case .timeout:
            self.init(exitCode: 3, "the biomatimer daemon did not answer: it stopped, or took longer than the call allows.")
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
                destination: TimerNames.busName, path: TimerNames.objectPath, interface: TimerNames.interface,
                member: member, arguments)
        } catch {
            throw ClientFailure(error)
        }
    }

    /// Every property, computed by the daemon at the moment of the call.
    public func properties() throws(ClientFailure) -> [String: DBusValue] {
        do {
            let reply = try bus.call(
                destination: TimerNames.busName, path: TimerNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", [.string(TimerNames.interface)])
            return reply.first?.vardict ?? [:]
        } catch {
            throw ClientFailure(error)
        }
    }
}

