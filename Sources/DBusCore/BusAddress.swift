import BiomaSystem
import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// Which bus to connect to.
public enum BusAddress: Sendable, Equatable, CustomStringConvertible {
    /// `$DBUS_SESSION_BUS_ADDRESS`, or `$XDG_RUNTIME_DIR/bus` when that is unset (the systemd user bus).
    case session
    /// A bus address, as printed by `dbus-daemon --print-address`.
    case address(String)

    /// The concrete address, or an error that says how to get a bus.
    public func resolve(environment: [String: String] = processEnvironment()) throws(BusError)
        -> String
    {
        switch self {
        case .address(let a):
            guard !a.isEmpty, !a.utf8.contains(0) else { throw .connectionFailed("the bus address is empty or invalid") }
            return a
        case .session:
            if let a = environment["DBUS_SESSION_BUS_ADDRESS"], !a.isEmpty, !a.utf8.contains(0) { return a }
            if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
                let socket = runtime + "/bus"
                var info = stat()
                if stat(socket, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK { return "unix:path=" + socket }
            }
            throw .connectionFailed(
                "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
        }
    }

    public var description: String {
        switch self {
        case .session: return "the session bus"
        case .address(let a): return a
        }
    }
}

/// A timeout for a method call.
public struct CallTimeout: Sendable, Equatable {
    public var milliseconds: Int32
    public init(milliseconds: Int32) { self.milliseconds = max(1, milliseconds) }
    public static func seconds(_ s: Double) -> CallTimeout { CallTimeout(milliseconds: Int32(min(s * 1000, 2_147_483_000))) }
    /// libdbus's default, 25 seconds.
    public static let `default` = CallTimeout(milliseconds: 25_000)
}
