// The one JSON writer: `--json` output and the bars' JSON lines. Its reader is `StrictJSON`.

/// A JSON value to write: compact; `object` with its keys sorted, `fields` in the order given.
public enum JSON: Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([String: JSON])
    /// An object whose keys keep the order written (the bars' JSON lines).
    case fields([(String, JSON)])

    /// An array of objects, one a row: a listing's `--json`.
    public static func objects<Row>(_ rows: [Row], _ fields: (Row) -> [String: JSON]) -> JSON {
        .array(rows.map { .object(fields($0)) })
    }

    /// Any integer, as `int`.
    public static func integer(_ value: some BinaryInteger) -> JSON { .int(Int64(value)) }

    public var text: String {
        switch self {
        case .string(let s): return Self.quoted(s)
        case .int(let n): return String(n)
        case .double(let d):
            guard d.isFinite else { return "null" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.keys.sorted().map { Self.quoted($0) + ":" + fields[$0]!.text }.joined(separator: ",") + "}"
        case .fields(let fields):
            return "{" + fields.map { Self.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal, quotes included: `"` and `\` escaped, every control character
    /// (C0, DEL, C1: U+0085 is a line break to some readers) and U+2028/U+2029 as `\uXXXX`,
    /// so no value can split a line. Everything else stays UTF-8.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            default:
                if isLineBreaking(scalar) {
                    result += "\\u" + hex4(scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// Control characters (C0, DEL, C1) and the Unicode line and paragraph separators.
    public static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(digits[Int((value >> UInt32(shift)) & 0xF)])
        }
        return out
    }
}
