/// One D-Bus interface's properties, described once.
///
/// A table maps a plain Swift value (`Root`, the state an interface publishes) to its D-Bus
/// properties: each column names a property and the stored property of `Root` that holds it.
/// The column's D-Bus type comes from the Swift type of that stored property, so a property
/// cannot be declared with one type and sent with another, and one that is not in the table
/// does not exist on the bus at all.
///
/// Everything else is derived from the table: the service's introspection and `Get`/`GetAll`
/// answers (DBusKit builds a `DBusInterface` from it), the `PropertiesChanged` entries between
/// two states (`changes(from:to:)`), and a client's decoding of `GetAll` replies and signals
/// (`decode`, `apply`).
public struct PropertyTable<Root>: Sendable {
    public let interface: String
    public let columns: [PropertyColumn<Root>]

    public init(interface: String, _ columns: [PropertyColumn<Root>]) {
        var seen = Set<String>()
        for column in columns {
            precondition(seen.insert(column.name).inserted, "property \(column.name) is listed twice in \(interface)")
        }
        self.interface = interface
        self.columns = columns
    }

    public var names: [String] { columns.map(\.name) }

    public func column(_ name: String) -> PropertyColumn<Root>? { columns.first { $0.name == name } }

    /// Every property of `root`, in the table's order.
    public func entries(of root: Root) -> [(String, DBusValue)] {
        columns.map { ($0.name, $0.encode(root)) }
    }

    /// Every property of `root`, by name (a `GetAll` answer).
    public func values(of root: Root) -> [String: DBusValue] {
        Dictionary(uniqueKeysWithValues: entries(of: root))
    }

    /// The entries of a `PropertiesChanged` signal from `before` to `after`, two states taken at
    /// the same instant: every property whose value changed, plus every column marked
    /// `alwaysSent` (the time values that hold at the new state's instant), in the table's
    /// order; nil when nothing changed.
    public func changes(from before: Root, to after: Root) -> [(String, DBusValue)]? {
        var changed = false
        var out: [(String, DBusValue)] = []
        for column in columns {
            let new = column.encode(after)
            let differs = column.encode(before) != new
            changed = changed || differs
            if differs || column.alwaysSent { out.append((column.name, new)) }
        }
        return changed ? out : nil
    }

    /// A state decoded from a `GetAll` answer: `fallback` with every property the answer holds
    /// with the column's type. Unknown names and values of another type are ignored.
    public func decode(_ properties: [String: DBusValue], over fallback: Root) -> Root {
        var root = fallback
        apply(properties, to: &root)
        return root
    }

    /// A state decoded from an `a{sv}` value, as `decode(_:over:)` decodes its entries; nil
    /// when `value` is no `a{sv}`. Entries as `entries(of:)` writes them (the table's columns,
    /// in its order) are read in step with the columns, without a dictionary made on the way.
    public func decode(_ value: DBusValue, over fallback: Root) -> Root? {
        guard case .array(.dictEntry(.string, _), let items) = value.unwrapped else { return nil }
        if items.count == columns.count {
            var root = fallback
            // By index: this generic code is not specialized for `Root`, where `zip` costs more
            // than the decoding itself.
            var inStep = true
            for index in 0..<items.count {
                guard case .dictEntry(.string(let name), let entry) = items[index], name == columns[index].name else {
                    inStep = false
                    break
                }
                _ = columns[index].assign(entry.unwrapped, &root)
            }
            if inStep { return root }
        }
        return value.vardict.map { decode($0, over: fallback) }
    }

    /// Applies the entries of a `PropertiesChanged` signal (or a `GetAll` answer) to `root`.
    /// Unknown names and values of another type are ignored.
    public func apply(_ properties: [String: DBusValue], to root: inout Root) {
        for column in columns {
            if let value = properties[column.name] { _ = column.assign(value, &root) }
        }
    }
}

/// One property of a `PropertyTable`: its name and the stored property of `Root` that holds it.
public struct PropertyColumn<Root>: Sendable {
    public let name: String
    /// The property's type, fixed by the Swift type of the stored property.
    public let type: DBusType
    /// Sent with every `PropertiesChanged` of the interface, changed or not (values that only
    /// hold at an instant, like a stopwatch's reading and that instant).
    public let alwaysSent: Bool
    @usableFromInline let encode: @Sendable (Root) -> DBusValue
    /// False when the value has another type (nothing is assigned then).
    @usableFromInline let assign: @Sendable (DBusValue, inout Root) -> Bool

    /// Inlinable: made where the table is, with the key path a literal there, the compiler
    /// reads and writes the stored property directly rather than through the runtime's key
    /// path projection (each listing row encoded and decoded went through it, field by field).
    @inlinable
    public init<Value: DBusPropertyValue>(
        _ name: String, _ keyPath: WritableKeyPath<Root, Value> & Sendable, alwaysSent: Bool = false
    ) {
        self.name = name
        self.type = Value.dbusType
        self.alwaysSent = alwaysSent
        self.encode = { $0[keyPath: keyPath].dbusValue }
        self.assign = { value, root in
            guard let decoded = Value(dbusValue: value) else { return false }
            root[keyPath: keyPath] = decoded
            return true
        }
    }

    /// The property's value in `root`.
    public func value(of root: Root) -> DBusValue { encode(root) }
}

/// A Swift type that a D-Bus property holds; its D-Bus type is fixed by the Swift type.
public protocol DBusPropertyValue: Sendable {
    static var dbusType: DBusType { get }
    var dbusValue: DBusValue { get }
    /// Nil when `dbusValue` has another type.
    init?(dbusValue: DBusValue)
}

extension Bool: DBusPropertyValue {
    public static var dbusType: DBusType { .boolean }
    public var dbusValue: DBusValue { .boolean(self) }
    public init?(dbusValue: DBusValue) {
        guard case .boolean(let v) = dbusValue else { return nil }
        self = v
    }
}

extension Int64: DBusPropertyValue {
    public static var dbusType: DBusType { .int64 }
    public var dbusValue: DBusValue { .int64(self) }
    public init?(dbusValue: DBusValue) {
        guard case .int64(let v) = dbusValue else { return nil }
        self = v
    }
}

extension UInt32: DBusPropertyValue {
    public static var dbusType: DBusType { .uint32 }
    public var dbusValue: DBusValue { .uint32(self) }
    public init?(dbusValue: DBusValue) {
        guard case .uint32(let v) = dbusValue else { return nil }
        self = v
    }
}

extension Double: DBusPropertyValue {
    public static var dbusType: DBusType { .double }
    public var dbusValue: DBusValue { .double(self) }
    public init?(dbusValue: DBusValue) {
        guard case .double(let v) = dbusValue else { return nil }
        self = v
    }
}

extension String: DBusPropertyValue {
    public static var dbusType: DBusType { .string }
    public var dbusValue: DBusValue { .string(self) }
    public init?(dbusValue: DBusValue) {
        guard case .string(let v) = dbusValue else { return nil }
        self = v
    }
}

extension Array: DBusPropertyValue where Element: DBusPropertyValue {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    // A closure, not `map(\.dbusValue)`: in generic code that key path is made anew at each
    // call and read through the runtime (a sixth of a listing's encoding).
    public var dbusValue: DBusValue { .array(Element.dbusType, map { $0.dbusValue }) }
    public init?(dbusValue: DBusValue) {
        guard case .array(let type, let items) = dbusValue, type == Element.dbusType else { return nil }
        var out: [Element] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let element = Element(dbusValue: item) else { return nil }
            out.append(element)
        }
        self = out
    }
}
