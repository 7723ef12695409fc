import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// Checks for every kind of text libdbus would abort on. Each returns normally for a valid
/// value and throws a `BusError` naming the bad value otherwise. The rules are libdbus's own
/// (`dbus_validate_*`), called only after a NUL check, because a C string stops at NUL.
public enum Validate {
    public static func string(_ s: String) throws(BusError) {
        if containsNUL(s) { throw .invalidString("contains a NUL byte: \(BusError.quote(s))") }
        guard s.withCString({ dbus_validate_utf8($0, nil) }) != 0 else {
            throw .invalidString("not valid UTF-8 for D-Bus: \(BusError.quote(s))")
        }
    }

    /// Whether `s` holds a NUL byte: `memchr` over its bytes (an import's megabytes are
    /// scanned at memory speed, in a debug build too).
    public static func containsNUL(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
        } ?? s.utf8.contains(0)
    }

    /// A name of `kind`, by libdbus's rule for that kind.
    public static func name(_ kind: DBusName, _ s: String) throws(BusError) {
        guard valid(s, kind.rule) else { throw .invalidName(kind, s) }
    }

    /// A signature: zero or more complete types within the specification's limits.
    public static func signature(_ s: String) throws(BusError) {
        _ = try DBusType.parse(s)
    }

    /// Makes any text safe to carry as a D-Bus string (for error messages built from caller input):
    /// NUL bytes become U+FFFD.
    public static func sanitized(_ s: String) -> String {
        guard s.utf8.contains(0) else { return s }
        return String(s.unicodeScalars.map { $0.value == 0 ? "\u{FFFD}" : Character($0) })
    }

    /// A C string stops at NUL, so a NUL anywhere makes the value invalid before libdbus looks.
    private static func valid(
        _ s: String, _ check: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) -> Bool {
        !s.utf8.contains(0) && s.withCString { check($0, nil) } != 0
    }
}

/// The names D-Bus has a rule for, as a message calls them.
public enum DBusName: String, Sendable {
    case objectPath = "object path"
    case busName = "bus name"
    case interfaceName = "interface name"
    case memberName = "member name"
    case errorName = "error name"
}

extension DBusName {
    /// libdbus's check for the kind.
    fileprivate var rule: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t {
        switch self {
        case .objectPath: dbus_validate_path
        case .busName: dbus_validate_bus_name
        case .interfaceName: dbus_validate_interface
        case .memberName: dbus_validate_member
        case .errorName: dbus_validate_error_name
        }
    }
}
