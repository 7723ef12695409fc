import CDBus

/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// Every constructor validates names, paths and arguments first, so nothing invalid reaches
/// libdbus. A message is immutable once built and may be handed between threads.
public final class BusMessage: @unchecked Sendable {
    public enum Kind: Int32, Sendable {
        case methodCall = 1, methodReturn = 2, error = 3, signal = 4
    }

    package let raw: OpaquePointer

    /// Takes ownership of one reference.
    package init(owning raw: OpaquePointer) { self.raw = raw }

    /// Adds a reference to a message libdbus lends us.
    package init(borrowing raw: OpaquePointer) {
        self.raw = raw
        dbus_message_ref(raw)
    }

    deinit { dbus_message_unref(raw) }

    // MARK: Constructors

    public static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = []
    ) throws(BusError) -> BusMessage {
        if let destination { try Validate.name(.busName, destination) }
        try Validate.name(.objectPath, path)
        if let interface { try Validate.name(.interfaceName, interface) }
        try Validate.name(.memberName, member)
        try Marshal.validate(arguments)
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else { throw .outOfMemory }
        let message = BusMessage(owning: raw)
        try message.append(arguments)
        return message
    }

    /// The checks `methodCall` makes of its arguments before libdbus sees them, without
    /// building a message: a call made in the service's own process hands its handler the
    /// values as they are (an import's megabytes are not copied into a message to be checked).
    public static func validateArguments(_ arguments: [DBusValue]) throws(BusError) {
        try Marshal.validate(arguments)
    }

    public static func signal(path: String, interface: String, member: String, arguments: [DBusValue] = [])
        throws(BusError) -> BusMessage
    {
        try Validate.name(.objectPath, path)
        try Validate.name(.interfaceName, interface)
        try Validate.name(.memberName, member)
        try Marshal.validate(arguments)
        guard let raw = dbus_message_new_signal(path, interface, member) else { throw .outOfMemory }
        let message = BusMessage(owning: raw)
        try message.append(arguments)
        return message
    }

    /// A reply to this method call.
    public func methodReturn(_ arguments: [DBusValue] = []) throws(BusError) -> BusMessage {
        // libdbus aborts on a reply to a message that was never sent (serial 0).
        guard kind == .methodCall, serial != 0 else { throw .typeMismatch(expected: "a received method call", actual: "an unsent message") }
        try Marshal.validate(arguments)
        guard let reply = dbus_message_new_method_return(raw) else { throw .outOfMemory }
        let message = BusMessage(owning: reply)
        try message.append(arguments)
        return message
    }

    /// An error reply to this method call. An invalid name becomes `org.freedesktop.DBus.Error.Failed`
    /// and the message is made safe, so an error reply can always be built.
    public func errorReply(name: String, message text: String) -> BusMessage? {
        guard kind == .methodCall, serial != 0 else { return nil }
        let safeName = (try? Validate.name(.errorName, name)) != nil ? name : StandardError.failed.name
        var safeText = Validate.sanitized(text)
        if (try? Validate.string(safeText)) == nil { safeText = "(message not representable)" }
        guard let reply = dbus_message_new_error(raw, safeName, safeText) else { return nil }
        return BusMessage(owning: reply)
    }

    // MARK: Header

    public var kind: Kind? { Kind(rawValue: dbus_message_get_type(raw)) }
    public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    public var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    public var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    public var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    public var noReply: Bool {
        get { dbus_message_get_no_reply(raw) != 0 }
        set { dbus_message_set_no_reply(raw, newValue ? 1 : 0) }
    }
    /// Whether the bus may start the destination by activation (default true).
    public var autoStart: Bool {
        get { dbus_message_get_auto_start(raw) != 0 }
        set { dbus_message_set_auto_start(raw, newValue ? 1 : 0) }
    }

    /// The arguments, decoded. libdbus has validated every received message, so reading cannot
    /// fail. Each `.unixFD` read is a new descriptor (libdbus dups it) that the reader owns and
    /// must close; a message carrying descriptors is decoded only where they are expected.
    public var arguments: [DBusValue] { Marshal.read(raw) }

    /// The first argument when it is a string (match rules' `arg0`), without decoding the rest.
    public var firstStringArgument: String? {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == DBusType.string.code else {
            return nil
        }
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) }
    }

    /// Whether the message carries file descriptors.
    public var carriesFileDescriptors: Bool { dbus_message_contains_unix_fds(raw) != 0 }

    private func append(_ arguments: [DBusValue]) throws(BusError) {
        guard !arguments.isEmpty else { return }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in arguments {
            guard Marshal.append(value, to: &iter) else { throw .outOfMemory }
        }
    }
}

/// Converts between `DBusValue` and libdbus's message iterators.
package enum Marshal {
    /// Deepest nesting of containers (arrays, structs, dict entries and variants together)
    /// that a receiver is guaranteed to accept.
    static let maximumTotalDepth = 64

    /// Checks that `values` can be written: every string, path and signature valid, every
    /// array's elements of its declared type, dict entries only in arrays, and the message
    /// signature within the specification's limits.
    static func validate(_ values: [DBusValue]) throws(BusError) {
        var checked = Set<DBusType>()
        for value in values {
            try validate(value, depth: 0, inArray: false, checked: &checked)
        }
        let signature = values.map(\.signature).joined()
        _ = try DBusType.parse(signature)
    }

    /// `checked`: the container types whose signatures were already parsed for this message
    /// (a menu's rows repeat the same few types hundreds of times).
    private static func validate(_ value: DBusValue, depth: Int, inArray: Bool, checked: inout Set<DBusType>) throws(BusError) {
        guard depth <= maximumTotalDepth else {
            throw .invalidSignature(value.signature, "values nested deeper than \(maximumTotalDepth) containers")
        }
        switch value {
        case .string(let s): try Validate.string(s)
        case .objectPath(let p): try Validate.name(.objectPath, p)
        case .signature(let g): try Validate.signature(g)
        case .array(let elementType, let elements):
            if case .dictEntry(let key, _) = elementType, !key.isBasic {
                throw .invalidSignature(DBusType.array(elementType).signature, "a dict entry key must be a basic type")
            }
            if checked.insert(value.type).inserted { _ = try DBusType.parseSingle(value.type.signature) }
            // Numbers (a PNG's bytes) need only their type checked, element by element.
            let numeric: Bool
            switch elementType {
            case .string, .objectPath, .signature: numeric = false
            default: numeric = elementType.isBasic
            }
            if numeric {
                // A basic type is its type code: no boxed DBusType compared per element.
                let code = elementType.code
                for element in elements where element.type.code != code {
                    throw .typeMismatch(expected: elementType.signature, actual: element.signature)
                }
                return
            }
            for element in elements {
                guard element.type == elementType else {
                    throw .typeMismatch(expected: elementType.signature, actual: element.signature)
                }
                try validate(element, depth: depth + 1, inArray: true, checked: &checked)
            }
        case .dictEntry(let key, let inner):
            guard inArray else {
                throw .invalidSignature(value.signature, "a dict entry outside an array")
            }
            guard key.type.isBasic else {
                throw .invalidSignature(value.signature, "a dict entry key must be a basic type")
            }
            try validate(key, depth: depth + 1, inArray: false, checked: &checked)
            try validate(inner, depth: depth + 1, inArray: false, checked: &checked)
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidSignature("()", "a struct has no fields") }
            for field in fields { try validate(field, depth: depth + 1, inArray: false, checked: &checked) }
        case .variant(let inner):
            // A basic value's signature is one valid letter; only containers need parsing.
            let type = inner.type
            if !type.isBasic && checked.insert(type).inserted { _ = try DBusType.parseSingle(type.signature) }
            try validate(inner, depth: depth + 1, inArray: false, checked: &checked)
        default: break
        }
    }

    // Containers' type codes, without making the container's whole DBusType to ask it.
    private static let arrayCode = Int32(UInt8(ascii: "a"))
    private static let dictEntryCode = Int32(UInt8(ascii: "e"))
    private static let structureCode = Int32(UInt8(ascii: "r"))

    /// Appends one validated value. Returns false only when libdbus is out of memory.
    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .boolean(let b):
            var v: dbus_bool_t = b ? 1 : 0
            return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .int16(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .uint16(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .int32(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .uint32(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .int64(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .uint64(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .double(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .unixFD(var v): return dbus_message_iter_append_basic(&iter, value.type.code, &v) != 0
        case .string(let s), .objectPath(let s), .signature(let s):
            return s.withCString { p in
                var ptr: UnsafePointer<CChar>? = p
                return dbus_message_iter_append_basic(&iter, value.type.code, &ptr) != 0
            }
        case .array(.byte, let elements):
            // Bytes (PNGs, pixmaps) in one copy: libdbus's append per element costs far more.
            let bytes: [UInt8] = elements.map { element -> UInt8 in
                guard case .byte(let byte) = element else { return 0 }
                return byte
            }
            return container(&iter, code: arrayCode, signature: DBusType.byte.signature) { sub in
                bytes.withUnsafeBufferPointer { buffer in
                    guard let start = buffer.baseAddress, buffer.count > 0 else { return true }
                    guard buffer.count <= Int(Int32.max) else { return false }
                    var base: UnsafePointer<UInt8>? = start
                    return withUnsafeMutablePointer(to: &base) { pointer in
                        dbus_message_iter_append_fixed_array(&sub, DBusType.byte.code, pointer, Int32(buffer.count)) != 0
                    }
                }
            }
        case .array(let elementType, let elements):
            return container(&iter, code: arrayCode, signature: elementType.signature) { sub in
                elements.allSatisfy { append($0, to: &sub) }
            }
        case .dictEntry(let key, let inner):
            return container(&iter, code: dictEntryCode, signature: nil) { sub in
                append(key, to: &sub) && append(inner, to: &sub)
            }
        case .structure(let fields):
            return container(&iter, code: structureCode, signature: nil) { sub in
                fields.allSatisfy { append($0, to: &sub) }
            }
        case .variant(let inner):
            return container(&iter, code: DBusType.variant.code, signature: inner.signature) { sub in
                append(inner, to: &sub)
            }
        }
    }

    private static func container(
        _ iter: inout DBusMessageIter, code: Int32, signature: String?, _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, code, $0, &sub) } != 0
        } else {
            opened = dbus_message_iter_open_container(&iter, code, nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }

    static func read(_ message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            guard let value = readOne(&iter) else { break }
            values.append(value)
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    /// Reads every value inside the container (array or structure) at the iterator.
    static func readContents(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        var values: [DBusValue] = []
        while let value = readOne(&sub) {
            values.append(value)
            if dbus_message_iter_next(&sub) == 0 { break }
        }
        return values
    }

    /// Reads the value at the iterator; nil at the end of a container.
    static func readOne(_ iter: inout DBusMessageIter) -> DBusValue? {
        let code = dbus_message_iter_get_arg_type(&iter)
        func basic<T: BitwiseCopyable>(_ initial: T) -> T {
            var v = initial
            dbus_message_iter_get_basic(&iter, &v)
            return v
        }
        switch UInt8(truncatingIfNeeded: code) {
        case UInt8(ascii: "y"): return .byte(basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(basic(dbus_bool_t(0)) != 0)
        case UInt8(ascii: "n"): return .int16(basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(basic(Double(0)))
        case UInt8(ascii: "h"): return .unixFD(basic(Int32(-1)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let p = basic(UnsafePointer<CChar>?.none)
            let s = p.map { String(cString: $0) } ?? ""
            switch UInt8(truncatingIfNeeded: code) {
            case UInt8(ascii: "o"): return .objectPath(s)
            case UInt8(ascii: "g"): return .signature(s)
            default: return .string(s)
            }
        case UInt8(ascii: "a"):
            // The array's own signature ("a…") gives the element type even when it is empty.
            guard let sigPointer = dbus_message_iter_get_signature(&iter) else { return nil }
            let arraySignature = String(cString: sigPointer)
            dbus_free(sigPointer)
            guard case .array(let elementType)? = try? DBusType.parseSingle(arraySignature) else { return nil }
            return .array(elementType, readContents(&iter))
        case UInt8(ascii: "e"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            guard let key = readOne(&sub), dbus_message_iter_next(&sub) != 0, let value = readOne(&sub) else {
                return nil
            }
            return .dictEntry(key, value)
        case UInt8(ascii: "r"):
            return .structure(readContents(&iter))
        case UInt8(ascii: "v"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return readOne(&sub).map { .variant($0) }
        default:
            return nil  // DBUS_TYPE_INVALID: the end of the container
        }
    }
}
