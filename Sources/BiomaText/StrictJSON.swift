/// A small, strict JSON reader (RFC 8259) for imported files: no comments, no trailing commas,
/// no duplicate keys, no control characters in strings, no lone surrogates, at most 64 levels
/// deep. Numbers keep their text, so an integer is never rounded through a `Double`. A syntax
/// error names the line and column.
public indirect enum StrictJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number as written, checked against the JSON grammar.
    case number(String)
    case string(String)
    case array([StrictJSON])
    /// Keys in the order written.
    case object([(key: String, value: StrictJSON)])

    public static func == (a: StrictJSON, b: StrictJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// A syntax error: where (1-based line and column, in characters) and what was expected.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var expected: String
        public var description: String { "line \(line), column \(column): \(expected)" }
    }

    public static let maxDepth = 64

    /// Parses one JSON text (white space around it allowed).
    public static func parse(_ text: String) throws(SyntaxError) -> StrictJSON {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.error("the end of the text after the value") }
        return value
    }

    /// Reads a JSON text that is an array one element at a time, so that the whole array is
    /// never held (`timew export` of years is a million values). `next()` checks the text as
    /// `parse` does, the end included.
    public struct ArrayReader {
        private var reader: Reader
        private var first = true
        private var done = false

        /// Nil when the text is not an array (`parse` then says what it is, or what is wrong).
        public init?(_ text: String) {
            reader = Reader(bytes: Array(text.utf8))
            reader.skipSpace()
            guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "[") else { return nil }
            reader.index += 1
        }

        /// The next element, nil after the last one.
        public mutating func next() throws(SyntaxError) -> StrictJSON? {
            if done { return nil }
            reader.skipSpace()
            if first {
                first = false
                if reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "]") {
                    return try finish()
                }
            } else {
                guard reader.index < reader.bytes.count else { throw reader.error("',' or ']'") }
                if reader.bytes[reader.index] == UInt8(ascii: "]") { return try finish() }
                guard reader.bytes[reader.index] == UInt8(ascii: ",") else { throw reader.error("',' or ']'") }
                reader.index += 1
                reader.skipSpace()
            }
            return try reader.value(depth: 1)
        }

        private mutating func finish() throws(SyntaxError) -> StrictJSON? {
            reader.index += 1
            reader.skipSpace()
            guard reader.index == reader.bytes.count else { throw reader.error("the end of the text after the value") }
            done = true
            return nil
        }
    }

    /// What kind of value this is, for messages ("a string", "an array", …).
    public var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value under `key` of an object; nil for a missing key or a non-object.
    public subscript(key: String) -> StrictJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// The text of a string, the value of a boolean, the items of an array; nil (or no items)
    /// for a value of another kind.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var items: [StrictJSON] { if case .array(let values) = self { values } else { [] } }

    fileprivate struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A byte-order mark at the start is tolerated (RFC 8259 §8.1 allows ignoring it).
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        func error(_ expected: String) -> SyntaxError {
            var line = 1
            var column = 1
            for byte in bytes[..<min(index, bytes.count)] {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            let found = index < bytes.count ? "" : " (found the end of the text)"
            return SyntaxError(line: line, column: column, expected: "expected \(expected)\(found)")
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> StrictJSON {
            guard index < bytes.count else { throw error("a value") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard depth < StrictJSON.maxDepth else { throw error("at most \(StrictJSON.maxDepth) nested arrays or objects") }
                return try object(depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < StrictJSON.maxDepth else { throw error("at most \(StrictJSON.maxDepth) nested arrays or objects") }
                return try array(depth: depth + 1)
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            default:
                throw error("a value (an object, array, string, number, true, false or null)")
            }
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let expected = word.utf8
            let count = expected.count
            let matches = index + count <= bytes.count && bytes[index..<index + count].elementsEqual(expected)
            guard matches else { throw error("a value (an object, array, string, number, true, false or null)") }
            index += count
        }

        mutating func object(depth: Int) throws(SyntaxError) -> StrictJSON {
            var members: [(key: String, value: StrictJSON)] = []
            if opensEmpty(closedBy: "}") { return .object(members) }
            // Small objects (the usual case) are searched; a set only for bigger ones.
            var keys: Set<String>?
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("a key in double quotes") }
                let keyStart = index
                let key = try string()
                let repeated: Bool
                if keys != nil {
                    repeated = !keys!.insert(key).inserted
                } else if members.count >= 12 {
                    keys = Set(members.map(\.key))
                    repeated = !keys!.insert(key).inserted
                } else {
                    repeated = members.contains { $0.key == key }
                }
                guard !repeated else {
                    index = keyStart
                    throw error("no key twice in one object (\"\(key)\" is repeated)")
                }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("':' after the key") }
                index += 1
                skipSpace()
                members.append((key, try value(depth: depth)))
                if try closes(with: "}") { return .object(members) }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> StrictJSON {
            var elements: [StrictJSON] = []
            if opensEmpty(closedBy: "]") { return .array(elements) }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                if try closes(with: "]") { return .array(elements) }
            }
        }

        /// Steps over the opening bracket; true when `bracket` closes the container at once
        /// (stepped over too).
        mutating func opensEmpty(closedBy bracket: Unicode.Scalar) -> Bool {
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: bracket) else { return false }
            index += 1
            return true
        }

        /// After a member or element: consumes the ',' that announces another (false) or the
        /// `bracket` that closes the container (true).
        mutating func closes(with bracket: Unicode.Scalar) throws(SyntaxError) -> Bool {
            skipSpace()
            guard index < bytes.count else { throw error("',' or '\(bracket)'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                return false
            }
            guard bytes[index] == UInt8(ascii: bracket) else { throw error("',' or '\(bracket)'") }
            index += 1
            return true
        }

        mutating func number() throws(SyntaxError) -> String {
            let start = index
            func digits() -> Int {
                let first = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                return index - first
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
                throw error("a digit")
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    throw error("no leading zero in a number")
                }
            } else {
                _ = digits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw error("a digit after the decimal point") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw error("a digit in the exponent") }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("four hexadecimal digits after \\u") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("four hexadecimal digits after \\u")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            let start = index
            // The common case: no escapes, one copy.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                guard bytes[index] >= 0x20 else { throw error("no control character inside a string (escape it)") }
                index += 1
            }
            guard index < bytes.count else { throw error("the closing '\"' of the string") }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            var out = Array(bytes[start..<index])
            while true {
                guard index < bytes.count else { throw error("the closing '\"' of the string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: out, as: UTF8.self)
                }
                guard byte >= 0x20 else { throw error("no control character inside a string (escape it)") }
                guard byte == UInt8(ascii: "\\") else {
                    out.append(byte)
                    index += 1
                    continue
                }
                index += 1
                guard index < bytes.count else { throw error("an escape after '\\'") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("a low surrogate (\\uDC00–\\uDFFF) after a high one") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw error("a low surrogate (\\uDC00–\\uDFFF) after a high one")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("no lone low surrogate")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    index -= 1
                    throw error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
                }
            }
        }
    }
}
