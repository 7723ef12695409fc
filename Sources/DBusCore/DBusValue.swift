/// A D-Bus value of any type. Containers carry their element types, so an empty array
/// still knows what it is an array of.
///
/// Writing `a{sv}` maps and reading typed replies are the common cases, so there are
/// shorthands for both: `.vardict(["Name": .string("x")])` and `reply[0].vardict?["Name"]?.string`.
public enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    /// Checked when the value is written to a message.
    case objectPath(String)
    /// Checked when the value is written to a message.
    case signature(String)
    /// A file descriptor; sending one needs a connection that can pass them.
    case unixFD(Int32)
    /// An array with its element type; the elements must all have exactly that type.
    case array(DBusType, [DBusValue])
    /// Only valid as an element of an array.
    indirect case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    indirect case variant(DBusValue)

    /// The value's type. For containers it is the declared type, not inferred from elements.
    public var type: DBusType {
        switch self {
        case .byte: return .byte
        case .boolean: return .boolean
        case .int16: return .int16
        case .uint16: return .uint16
        case .int32: return .int32
        case .uint32: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .double: return .double
        case .string: return .string
        case .objectPath: return .objectPath
        case .signature: return .signature
        case .unixFD: return .unixFD
        case .array(let element, _): return .array(element)
        case .dictEntry(let k, let v): return .dictEntry(k.type, v.type)
        case .structure(let fields): return .structure(fields.map(\.type))
        case .variant: return .variant
        }
    }

    public var signature: String { type.signature }
}

// MARK: - Building

extension DBusValue {
    /// An `a{sv}` map, the usual shape for options and records. Keys are sorted so the
    /// encoding is deterministic.
    public static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .array(
            .dictEntry(.string, .variant),
            entries.keys.sorted().map { .dictEntry(.string($0), .variant(entries[$0]!)) })
    }

    /// An `a{sv}` map keeping the given order.
    public static func vardict(ordered entries: [(String, DBusValue)]) -> DBusValue {
        .array(.dictEntry(.string, .variant), entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// An `as` array.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(.string, values.map { .string($0) })
    }

    /// A dictionary with any basic key and value type, written `a{KV}`.
    public static func dictionary(key: DBusType, value: DBusType, _ entries: [(DBusValue, DBusValue)]) -> DBusValue {
        .array(.dictEntry(key, value), entries.map { .dictEntry($0.0, $0.1) })
    }
}

// MARK: - Reading

extension DBusValue {
    /// Looks through any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): return s
        default: return nil
        }
    }
    public var bool: Bool? {
        if case .boolean(let b) = unwrapped { return b }
        return nil
    }
    public var double: Double? {
        if case .double(let d) = unwrapped { return d }
        return nil
    }
    /// Any integer type that fits in `Int64`.
    public var int64: Int64? {
        switch unwrapped {
        case .byte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .uint16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .uint32(let v): return Int64(v)
        case .int64(let v): return v
        case .uint64(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        default: return nil
        }
    }
    public var int: Int? { int64.flatMap { Int(exactly: $0) } }

    /// The elements of an array (dict entries included).
    public var array: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }
    public var fields: [DBusValue]? {
        if case .structure(let f) = unwrapped { return f }
        return nil
    }
    /// An `a{s*}` map with the values' variants removed. Nil for any other type.
    public var vardict: [String: DBusValue]? {
        guard case .array(.dictEntry(.string, _), let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for case .dictEntry(.string(let k), let v) in entries { out[k] = v.unwrapped }
        return out
    }
}

extension DBusValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension DBusValue: CustomStringConvertible {
    /// A compact, GVariant-like rendering for logs and test failures.
    public var description: String {
        switch self {
        case .byte(let v): return "byte \(v)"
        case .boolean(let v): return v ? "true" : "false"
        case .int16(let v): return "int16 \(v)"
        case .uint16(let v): return "uint16 \(v)"
        case .int32(let v): return "\(v)"
        case .uint32(let v): return "uint32 \(v)"
        case .int64(let v): return "int64 \(v)"
        case .uint64(let v): return "uint64 \(v)"
        case .double(let v): return "\(v)"
        case .string(let s): return BusError.quote(s)
        case .objectPath(let s): return "objectpath \(BusError.quote(s))"
        case .signature(let s): return "signature \(BusError.quote(s))"
        case .unixFD(let v): return "handle \(v)"
        case .array(let t, let elements):
            if elements.isEmpty { return "@a\(t.signature) []" }
            if case .dictEntry = t { return "{" + elements.map(\.description).joined(separator: ", ") + "}" }
            return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictEntry(let k, let v): return "\(k): \(v)"
        case .structure(let f): return "(" + f.map(\.description).joined(separator: ", ") + ")"
        case .variant(let v): return "<\(v)>"
        }
    }
}
