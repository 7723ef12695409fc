/// What a service exports: objects made of interfaces, each with methods, properties and
/// signals. Handlers run on the bus's loop thread, one at a time, so a service's state needs
/// no locks as long as only handlers and `Bus.perform` blocks touch it.

/// A named, typed argument of a method or signal.
public struct DBusArgument: Sendable, Equatable {
    public var name: String
    public var type: DBusType

    /// `signature` must be exactly one complete type; a bad one is a programming error caught
    /// when the interface is exported.
    public init(_ name: String, _ signature: String) {
        self.name = name
        // Nothing is lost: a bad signature is kept in `declared`, and `export` refuses the
        // interface with its parse error (`DBusInterface.validate`) before any call arrives.
        self.type = (try? DBusType.parseSingle(signature)) ?? .variant
        self.declared = signature
    }

    /// The text given, kept to report a bad declaration at export time.
    let declared: String
}

/// A method call as a handler sees it.
public struct MethodCall: Sendable {
    public let message: BusMessage
    public let arguments: [DBusValue]
    public var sender: String { message.sender ?? "" }
    public var member: String { message.member ?? "" }

    /// A call made in the service's own process (the daemon running a command line for `Run`).
    public init(message: BusMessage, arguments: [DBusValue]) {
        self.message = message
        self.arguments = arguments
    }
}

public struct DBusMethod: Sendable {
    public typealias Handler = @Sendable (MethodCall) throws -> [DBusValue]
    /// A method answered later: it starts the work and keeps `PendingReply`, which it finishes
    /// (on the loop thread, at any later turn) with the values or the error.
    public typealias DeferredHandler = @Sendable (MethodCall, PendingReply) throws -> Void
    public var name: String
    public var inputs: [DBusArgument]
    public var outputs: [DBusArgument]
    public var handler: Handler
    /// Set for a method whose reply comes at a later turn of the loop (`deferred`); the bus
    /// dispatches to it instead of `handler`.
    public var deferredHandler: DeferredHandler?
    /// Whether the method only reads: it is served while bulk work holds the loop
    /// (`EventLoop.hold`), where every other call waits for the work to end.
    public var reads = false

    public init(_ name: String, in inputs: [DBusArgument] = [], out outputs: [DBusArgument] = [], handler: @escaping Handler) {
        (self.name, self.inputs, self.outputs, self.handler) = (name, inputs, outputs, handler)
    }

    /// A method whose reply is sent when `start`'s work is done, while the loop serves every
    /// other call meanwhile (a command waiting for its caller's input). An error thrown by
    /// `start` is answered at once. It cannot be called in process: `handler` refuses.
    public static func deferred(
        _ name: String, in inputs: [DBusArgument] = [], out outputs: [DBusArgument] = [], _ start: @escaping DeferredHandler
    ) -> DBusMethod {
        var method = DBusMethod(name, in: inputs, out: outputs) { _ in
            throw DBusMethodError.failed("\(name) is answered later: call it over the bus")
        }
        method.deferredHandler = start
        return method
    }

    /// A method whose reply carries no values: `run` does the work, or throws the error that
    /// is answered instead.
    public static func action(
        _ name: String, in inputs: [DBusArgument] = [], _ run: @escaping @Sendable (MethodCall) throws -> Void
    ) -> DBusMethod {
        DBusMethod(name, in: inputs) { call in
            try run(call)
            return []
        }
    }

    /// This method, marked as one that only reads (`reads`).
    public func reading() -> DBusMethod {
        var method = self
        method.reads = true
        return method
    }

    var inputSignature: String { DBusType.signature(of: inputs.map(\.type)) }
    var outputSignature: String { DBusType.signature(of: outputs.map(\.type)) }
}

public struct DBusProperty: Sendable {
    public typealias Getter = @Sendable () throws -> DBusValue
    public typealias Setter = @Sendable (DBusValue) throws -> Void
    /// How `PropertiesChanged` covers this property, for the introspection annotation.
    public enum ChangeSignal: String, Sendable { case `true`, invalidates, `const`, `false` }

    public var name: String
    public var type: DBusType
    public var get: Getter
    public var set: Setter?
    public var changeSignal: ChangeSignal
    let declared: String

    public init(_ name: String, _ signature: String, changeSignal: ChangeSignal = .true, get: @escaping Getter, set: Setter? = nil) {
        self.name = name
        self.declared = signature
        // As for arguments: a bad signature is refused at export (`DBusInterface.validate`).
        self.type = (try? DBusType.parseSingle(signature)) ?? .variant
        (self.get, self.set, self.changeSignal) = (get, set, changeSignal)
    }
}

public struct DBusSignal: Sendable {
    public var name: String
    public var arguments: [DBusArgument]
    public init(_ name: String, _ arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

public struct DBusInterface: Sendable {
    public var name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignal]
    /// When set, `Get` and `GetAll` read every property from one call of this (values that
    /// must hold at the same instant); the properties' own getters are not used for them.
    public var propertyValues: (@Sendable () throws -> [String: DBusValue])?

    public init(
        _ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [], signals: [DBusSignal] = [],
        propertyValues: (@Sendable () throws -> [String: DBusValue])? = nil
    ) {
        (self.name, self.methods, self.properties) = (name, methods, properties)
        (self.signals, self.propertyValues) = (signals, propertyValues)
    }

    func method(_ member: String) -> DBusMethod? { methods.first { $0.name == member } }
    func property(_ name: String) -> DBusProperty? { properties.first { $0.name == name } }

    /// Checks every name and signature once, at export, so a typo fails loudly and early.
    func validate() throws(BusError) {
        try Validate.name(.interfaceName, name)
        for m in methods {
            try Validate.name(.memberName, m.name)
            for a in m.inputs + m.outputs { _ = try DBusType.parseSingle(a.declared) }
        }
        for p in properties {
            try Validate.name(.memberName, p.name)
            _ = try DBusType.parseSingle(p.declared)
        }
        for s in signals {
            try Validate.name(.memberName, s.name)
            for a in s.arguments { _ = try DBusType.parseSingle(a.declared) }
        }
    }
}

/// Introspection XML for an object, in the layout of `dbus/*.xml` files.
public enum Introspection {
    /// `org.freedesktop.DBus.Peer`, `Introspectable` and `Properties`, as every object has them
    /// (the dispatcher answers them; these descriptions are only written into the XML).
    static let standardInterfaces: String = {
        func described(_ name: String, in inputs: [DBusArgument] = [], out outputs: [DBusArgument] = []) -> DBusMethod {
            DBusMethod(name, in: inputs, out: outputs) { _ in [] }
        }
        let (interface, property) = (DBusArgument("interface_name", "s"), DBusArgument("property_name", "s"))
        return [
            DBusInterface(
                StandardNames.peer,
                methods: [described("Ping"), described("GetMachineId", out: [.init("machine_uuid", "s")])]),
            DBusInterface(
                StandardNames.introspectable, methods: [described("Introspect", out: [.init("xml_data", "s")])]),
            DBusInterface(
                StandardNames.properties,
                methods: [
                    described("Get", in: [interface, property], out: [.init("value", "v")]),
                    described("GetAll", in: [interface], out: [.init("properties", "a{sv}")]),
                    described("Set", in: [interface, property, .init("value", "v")]),
                ],
                signals: [
                    DBusSignal(
                        "PropertiesChanged",
                        [interface, .init("changed_properties", "a{sv}"), .init("invalidated_properties", "as")])
                ]),
        ].map(xml).joined()
    }()

    static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// The XML of one interface, indented for a `<node>`.
    public static func xml(_ interface: DBusInterface) -> String {
        var out = "  <interface name=\"\(interface.name)\">\n"
        for p in interface.properties {
            let access = p.set == nil ? "read" : "readwrite"
            if p.changeSignal == .true {
                out += "    <property name=\"\(p.name)\" type=\"\(escape(p.type.signature))\" access=\"\(access)\"/>\n"
            } else {
                out += "    <property name=\"\(p.name)\" type=\"\(escape(p.type.signature))\" access=\"\(access)\">\n"
                out += "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(p.changeSignal.rawValue)\"/>\n"
                out += "    </property>\n"
            }
        }
        for m in interface.methods {
            if m.inputs.isEmpty && m.outputs.isEmpty {
                out += "    <method name=\"\(m.name)\"/>\n"
                continue
            }
            out += "    <method name=\"\(m.name)\">\n"
            for a in m.inputs { out += "      <arg name=\"\(a.name)\" type=\"\(escape(a.type.signature))\" direction=\"in\"/>\n" }
            for a in m.outputs { out += "      <arg name=\"\(a.name)\" type=\"\(escape(a.type.signature))\" direction=\"out\"/>\n" }
            out += "    </method>\n"
        }
        for s in interface.signals {
            if s.arguments.isEmpty {
                out += "    <signal name=\"\(s.name)\"/>\n"
                continue
            }
            out += "    <signal name=\"\(s.name)\">\n"
            for a in s.arguments { out += "      <arg name=\"\(a.name)\" type=\"\(escape(a.type.signature))\"/>\n" }
            out += "    </signal>\n"
        }
        out += "  </interface>\n"
        return out
    }

    /// A whole `<node>`: the standard interfaces, the given ones, and child nodes.
    public static func node(interfaces: [DBusInterface], children: [String] = [], includeStandard: Bool = true) -> String {
        var out = header + "<node>\n"
        if includeStandard { out += standardInterfaces }
        for interface in interfaces { out += xml(interface) }
        for child in children { out += "  <node name=\"\(escape(child))\"/>\n" }
        out += "</node>\n"
        return out
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
