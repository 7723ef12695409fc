/// Every failure DBusKit reports. Invalid input is caught here, before libdbus sees it
/// (libdbus aborts the process on invalid strings, paths, names and signatures).
public enum BusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A string holds a NUL byte or is not valid UTF-8 for D-Bus.
    case invalidString(String)
    /// A name that breaks libdbus's rule for its kind.
    case invalidName(DBusName, String)
    /// The signature text and what is wrong with it.
    case invalidSignature(String, String)
    /// A value does not have the type its container or method demands.
    case typeMismatch(expected: String, actual: String)
    /// The peer answered with a D-Bus error.
    case remote(name: String, message: String)
    /// No reply within the timeout.
    case timeout(String)
    /// The connection to the bus is closed (or was never made).
    case disconnected(String)
    /// Could not connect or register with the bus.
    case connectionFailed(String)
    /// Another process owns the name and we did not ask to replace it.
    case nameTaken(name: String, owner: String)
    case outOfMemory

    public var description: String {
        switch self {
        case .invalidString(let why): return "invalid string: \(why)"
        case .invalidName(let kind, let n): return "invalid \(kind.rawValue) \(Self.quote(n))"
        case .invalidSignature(let s, let why): return "invalid signature \(Self.quote(s)): \(why)"
        case .typeMismatch(let expected, let actual): return "type mismatch: expected '\(expected)', got '\(actual)'"
        case .remote(let name, let message): return "\(name): \(message)"
        case .timeout(let what): return "no reply within the timeout: \(what)"
        case .disconnected(let why): return "not connected to the bus: \(why)"
        case .connectionFailed(let why): return "cannot connect to the bus: \(why)"
        case .nameTaken(let name, let owner): return "the name \(name) is owned by \(owner)"
        case .outOfMemory: return "out of memory"
        }
    }

    /// The D-Bus error name this failure should carry when it is sent back to a caller.
    public var dbusName: String {
        switch self {
        case .remote(let name, _): return name
        case .timeout: return StandardError.timeout.name
        case .disconnected: return StandardError.disconnected.name
        case .outOfMemory: return StandardError.noMemory.name
        default: return StandardError.invalidArgs.name
        }
    }

    /// Quotes a caller's value for a message, escaping what would garble a terminal.
    package static func quote(_ s: String, limit: Int = 200) -> String {
        var out = "'"
        for scalar in s.unicodeScalars.prefix(limit) {
            switch scalar.value {
            case 0: out += "\\0"
            case 0x01..<0x20, 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if s.unicodeScalars.count > limit { out += "…" }
        return out + "'"
    }
}

/// A failure a method handler reports to its caller as a named D-Bus error.
public protocol DBusErrorConvertible: Error {
    var dbusErrorName: String { get }
    var dbusErrorMessage: String { get }
}

/// A named D-Bus error a handler can throw directly.
public struct DBusMethodError: DBusErrorConvertible, Equatable, Sendable {
    public var dbusErrorName: String
    public var dbusErrorMessage: String
    public init(_ name: String, _ message: String) {
        dbusErrorName = name
        dbusErrorMessage = message
    }

    public static func invalidArgs(_ message: String) -> Self { Self(StandardError.invalidArgs.name, message) }
    public static func unknownMethod(_ message: String) -> Self { Self(StandardError.unknownMethod.name, message) }
    public static func unknownProperty(_ message: String) -> Self { Self(StandardError.unknownProperty.name, message) }
    public static func unknownInterface(_ message: String) -> Self { Self(StandardError.unknownInterface.name, message) }
    public static func propertyReadOnly(_ message: String) -> Self { Self(StandardError.propertyReadOnly.name, message) }
    public static func failed(_ message: String) -> Self { Self(StandardError.failed.name, message) }
}

extension BusError: DBusErrorConvertible {
    public var dbusErrorName: String { dbusName }
    public var dbusErrorMessage: String {
        if case .remote(_, let message) = self { return message }
        return description
    }
}
