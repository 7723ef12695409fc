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
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text's bytes appended to `bytes` (one buffer for the whole value: sync writes a
    /// line per operation, a hundred thousand for ten years).
    public func write(to bytes: inout [UInt8]) {
        switch self {
        case .string(let s): Self.quote(s, to: &bytes)
        case .int(let n): bytes.append(contentsOf: String(n).utf8)
        case .double(let d):
            if !d.isFinite {
                bytes.append(contentsOf: "null".utf8)
            } else if d == d.rounded(), abs(d) < 1e15 {
                bytes.append(contentsOf: String(Int64(d)).utf8)
            } else {
                bytes.append(contentsOf: String(d).utf8)
            }
        case .bool(let b): bytes.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.quote(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                fields[key]!.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .fields(let fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.quote(field.0, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                field.1.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string literal, quotes included: `"` and `\` escaped, every control character
    /// (C0, DEL, C1: U+0085 is a line break to some readers) and U+2028/U+2029 as `\uXXXX`,
    /// so no value can split a line. Everything else stays UTF-8.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        quote(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Lowercase hex digits, made once (`quote` runs for every string of every line).
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `quoted`, appended byte by byte. A Swift string is valid UTF-8, so the C1 controls are
    /// the pairs C2 80 … C2 9F, and the two separators E2 80 A8 and E2 80 A9.
    static func quote(_ text: String, to bytes: inout [UInt8]) {
        func escape(_ value: UInt32) {
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "u"))
            for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hexDigits[Int((value >> UInt32(shift)) & 0xF)]) }
        }
        func escaped(_ letter: Unicode.Scalar) {
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: letter))
        }
        // Most text needs no escape (ASCII from space on, no quote or backslash): copied as is.
        let plain = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            for byte in utf8 where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if plain == true { return }
        bytes.append(UInt8(ascii: "\""))
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): escaped("\"")
            case UInt8(ascii: "\\"): escaped("\\")
            case 0x0A: escaped("n")
            case 0x0D: escaped("r")
            case 0x09: escaped("t")
            case 0x08: escaped("b")
            case 0x0C: escaped("f")
            case 0x00..<0x20, 0x7F: escape(UInt32(byte))
            case 0xC2 where index < utf8.count && (0x80...0x9F).contains(utf8[index]):
                escape(UInt32(utf8[index]))
                index += 1
            case 0xE2 where index + 1 < utf8.count && utf8[index] == 0x80 && (utf8[index + 1] == 0xA8 || utf8[index + 1] == 0xA9):
                escape(utf8[index + 1] == 0xA8 ? 0x2028 : 0x2029)
                index += 2
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Control characters (C0, DEL, C1) and the Unicode line and paragraph separators.
    public static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

}
