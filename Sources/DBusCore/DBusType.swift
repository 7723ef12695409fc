/// One complete D-Bus type, as written in a signature.
///
/// `DBusType.parse` is the only way from text to types and enforces every rule of the
/// specification (length, nesting depth, dict entries only inside arrays with a basic key),
/// so a type that exists here is one libdbus accepts.
public enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    indirect case array(DBusType)
    /// Only valid as the element of an array: `a{sv}` is `.array(.dictEntry(.string, .variant))`.
    indirect case dictEntry(DBusType, DBusType)
    case structure([DBusType])
    case variant

    /// The maximum length of a signature, in bytes.
    public static let maximumSignatureLength = 255
    /// The maximum nesting of arrays, and separately of structs and dict entries.
    public static let maximumContainerDepth = 32

    public var isBasic: Bool {
        switch self {
        case .array, .dictEntry, .structure, .variant: return false
        default: return true
        }
    }

    /// The type code libdbus uses for this type (`DBUS_TYPE_*`).
    public var code: Int32 {
        switch self {
        case .byte: return 121  // y
        case .boolean: return 98  // b
        case .int16: return 110  // n
        case .uint16: return 113  // q
        case .int32: return 105  // i
        case .uint32: return 117  // u
        case .int64: return 120  // x
        case .uint64: return 116  // t
        case .double: return 100  // d
        case .string: return 115  // s
        case .objectPath: return 111  // o
        case .signature: return 103  // g
        case .unixFD: return 104  // h
        case .array: return 97  // a
        case .dictEntry: return 101  // e
        case .structure: return 114  // r
        case .variant: return 118  // v
        }
    }

    public var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .variant: return "v"
        case .array(let element): return "a" + element.signature
        case .dictEntry(let key, let value): return "{" + key.signature + value.signature + "}"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        }
    }

    public var description: String { signature }

    /// Parses a signature: zero or more complete types.
    public static func parse(_ text: String) throws(BusError) -> [DBusType] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumSignatureLength else {
            throw .invalidSignature(text, "longer than \(maximumSignatureLength) bytes")
        }
        var parser = SignatureParser(bytes: bytes, text: text)
        var types: [DBusType] = []
        while parser.index < bytes.count {
            types.append(try parser.parseComplete(arrayDepth: 0, structDepth: 0, inArray: false))
        }
        return types
    }

    /// Parses a signature that must hold exactly one complete type (as a variant's does).
    public static func parseSingle(_ text: String) throws(BusError) -> DBusType {
        let types = try parse(text)
        guard types.count == 1 else {
            throw .invalidSignature(text, "expected exactly one complete type, found \(types.count)")
        }
        return types[0]
    }

    /// The signature of a sequence of types, validated against the length limit.
    public static func signature(of types: [DBusType]) -> String {
        types.map(\.signature).joined()
    }
}

private struct SignatureParser {
    let bytes: [UInt8]
    let text: String
    var index = 0

    mutating func parseComplete(arrayDepth: Int, structDepth: Int, inArray: Bool) throws(BusError) -> DBusType {
        guard index < bytes.count else { throw .invalidSignature(text, "ends in the middle of a type") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrayDepth < DBusType.maximumContainerDepth else {
                throw .invalidSignature(text, "arrays nested deeper than \(DBusType.maximumContainerDepth)")
            }
            return .array(try parseComplete(arrayDepth: arrayDepth + 1, structDepth: structDepth, inArray: true))
        case UInt8(ascii: "("):
            guard structDepth < DBusType.maximumContainerDepth else {
                throw .invalidSignature(text, "structs nested deeper than \(DBusType.maximumContainerDepth)")
            }
            var fields: [DBusType] = []
            while true {
                guard index < bytes.count else { throw .invalidSignature(text, "a struct is not closed") }
                if bytes[index] == UInt8(ascii: ")") {
                    index += 1
                    break
                }
                fields.append(try parseComplete(arrayDepth: arrayDepth, structDepth: structDepth + 1, inArray: false))
            }
            guard !fields.isEmpty else { throw .invalidSignature(text, "a struct has no fields") }
            return .structure(fields)
        case UInt8(ascii: "{"):
            guard inArray else { throw .invalidSignature(text, "a dict entry outside an array") }
            guard structDepth < DBusType.maximumContainerDepth else {
                throw .invalidSignature(text, "structs nested deeper than \(DBusType.maximumContainerDepth)")
            }
            let key = try parseComplete(arrayDepth: arrayDepth, structDepth: structDepth + 1, inArray: false)
            guard key.isBasic else { throw .invalidSignature(text, "a dict entry key must be a basic type") }
            let value = try parseComplete(arrayDepth: arrayDepth, structDepth: structDepth + 1, inArray: false)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                throw .invalidSignature(text, "a dict entry must hold exactly a key and a value")
            }
            index += 1
            return .dictEntry(key, value)
        default:
            let shown =
                c >= 0x20 && c < 0x7F
                ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x" + String(c, radix: 16, uppercase: true)
            throw .invalidSignature(text, "\(shown) is not a type code here")
        }
    }
}
