import BiomaText

// Sync, part 2: one operation, one line of a device's log.

/// What an operation changes.
public enum SyncEntity: String, Sendable, CaseIterable {
    case project, interval, task, preset, setting
    /// A client above projects (its name, rate and currency).
    case client
}

/// A field's value in an operation.
public enum SyncValue: Equatable, Hashable, Sendable {
    case null
    case int(Int64)
    case string(String)
    case bool(Bool)

    /// The value as JSON text (as the store keeps a field's value).
    public var text: String { json.text }

    /// Reads `text` written by `text`.
    public init(text: String) throws(SyncLineError) {
        let json: StrictJSON
        do { json = try StrictJSON.parse(text) } catch { throw SyncLineError("not JSON: \(error)") }
        try self.init(json, field: "value")
    }

    init(_ value: StrictJSON, field key: String) throws(SyncLineError) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        case .number(let text):
            guard let n = Int64(text) else { throw SyncLineError("field \(key): only whole numbers are stored") }
            self = .int(n)
        case .array, .object: throw SyncLineError("field \(key): \(value.kind) is not a field value")
        }
    }

    var json: JSON {
        switch self {
        case .null: return .null
        case .int(let n): return .int(n)
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        }
    }
}

/// One change, as a device writes it to its log: which entity (by UUID), the fields it sets,
/// and when (a hybrid logical clock reading, whose device is the writer). Deleting sets the
/// field `deleted` to true: a tombstone that merges like any other field.
public struct SyncOperation: Equatable, Sendable {
    /// The writer's sequence number, from 1, one more for each line it writes.
    public var sequence: Int64
    /// A UUIDv7: the operation's identity, recorded when applied so nothing applies twice.
    public var id: String
    public var clock: HybridTime
    public var entity: SyncEntity
    public var entityID: String
    /// Field names to values, written with the names sorted.
    public var fields: [String: SyncValue]

    public init(
        sequence: Int64, id: String, clock: HybridTime, entity: SyncEntity, entityID: String,
        fields: [String: SyncValue]
    ) {
        (self.sequence, self.id, self.clock, self.entity) = (sequence, id, clock, entity)
        (self.entityID, self.fields) = (entityID, fields)
    }

    public static let format: Int64 = 1
    /// The longest line read (a line longer than this is damage, not an operation).
    public static let maxLineBytes = 64 * 1024
    public static let maxFields = 64
    public static let deletedField = "deleted"

    public var isTombstone: Bool { fields[Self.deletedField] == .bool(true) }

    /// The line, without its newline: compact JSON, keys in a fixed order
    /// (`{"v":1,"seq":…,"op":…,"hlc":[…,…],"dev":…,"kind":…,"id":…,"set":{…}}`), written byte
    /// by byte (a bulk change writes one per row, a hundred thousand for ten years).
    public var line: String {
        var out: [UInt8] = []
        out.reserveCapacity(176 + 48 * fields.count)
        func raw(_ text: StaticString) { text.withUTF8Buffer { out.append(contentsOf: $0) } }
        func json(_ value: JSON) { value.write(to: &out) }
        raw(#"{"v":"#)
        json(.int(Self.format))
        raw(#","seq":"#)
        json(.int(sequence))
        raw(#","op":"#)
        json(.string(id))
        raw(#","hlc":["#)
        json(.int(clock.wall))
        raw(",")
        json(.int(Int64(clock.counter)))
        raw(#"],"dev":"#)
        json(.string(clock.device))
        raw(#","kind":"#)
        json(.string(entity.rawValue))
        raw(#","id":"#)
        json(.string(entityID))
        raw(#","set":{"#)
        for (index, name) in fields.keys.sorted().enumerated() {
            if index > 0 { raw(",") }
            json(.string(name))
            raw(":")
            json(fields[name]!.json)
        }
        raw("}}")
        return String(decoding: out, as: UTF8.self)
    }

    /// `line` through the JSON tree (what `line` must equal; for tests).
    var lineThroughTree: String {
        JSON.fields([
            ("v", .int(Self.format)), ("seq", .int(sequence)), ("op", .string(id)),
            ("hlc", .array([.int(clock.wall), .int(Int64(clock.counter))])), ("dev", .string(clock.device)),
            ("kind", .string(entity.rawValue)), ("id", .string(entityID)),
            ("set", .fields(fields.keys.sorted().map { ($0, fields[$0]!.json) })),
        ]).text
    }

    /// Reads a line written by `line`, checking every part; the error says what is wrong.
    public init(line: String) throws(SyncLineError) {
        guard line.utf8.count <= Self.maxLineBytes else { throw SyncLineError("the line is longer than 64 KiB") }
        // The form this program writes, read straight from the bytes; any other through the tree.
        if let read = SyncLineReader.operation(line) {
            self = read
            return
        }
        try self.init(tree: line)
    }

    /// Reads any line through the JSON tree, checking every part.
    init(tree line: String) throws(SyncLineError) {
        let json: StrictJSON
        do { json = try StrictJSON.parse(line) } catch { throw SyncLineError("not JSON: \(error)") }
        guard case .object = json else { throw SyncLineError("not a JSON object") }
        guard try Self.integer(json, "v") == Self.format else { throw SyncLineError("format \"v\" is not 1") }
        sequence = try Self.integer(json, "seq")
        guard sequence >= 1 else { throw SyncLineError("\"seq\" must be 1 or more") }
        id = try Self.uuid(json, "op")
        let device = try Self.uuid(json, "dev")
        guard case .array(let parts) = json["hlc"], parts.count == 2,
            case .number(let wallText) = parts[0], let wall = Int64(wallText), wall >= 0,
            case .number(let counterText) = parts[1], let counter = UInt32(counterText)
        else { throw SyncLineError("\"hlc\" must be [wall µs, counter]") }
        clock = HybridTime(wall: wall, counter: counter, device: device)
        guard case .string(let kind) = json["kind"], let entity = SyncEntity(rawValue: kind) else {
            throw SyncLineError("\"kind\" must be one of \(SyncEntity.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.entity = entity
        entityID = try Self.uuid(json, "id")
        fields = try Self.fields(json["set"])
    }

    /// The fields of an operation's `set` object, each name and value checked.
    static func fields(_ set: StrictJSON?) throws(SyncLineError) -> [String: SyncValue] {
        guard case .object(let members) = set else { throw SyncLineError("\"set\" must be an object") }
        guard members.count <= Self.maxFields else { throw SyncLineError("more than \(Self.maxFields) fields") }
        var fields: [String: SyncValue] = [:]
        for (key, value) in members {
            guard Self.isFieldName(key) else { throw SyncLineError("field name \(JSON.quoted(key)) is not [a-z][a-z0-9_]*") }
            fields[key] = try SyncValue(value, field: key)
        }
        return fields
    }

    /// Reads a `set` object's text (as the store keeps recorded changes).
    public static func fields(text: String) throws(SyncLineError) -> [String: SyncValue] {
        if let read = SyncLineReader.fields(text) { return read }
        return try fields(tree: text)
    }

    /// `fields(text:)` through the JSON tree.
    static func fields(tree text: String) throws(SyncLineError) -> [String: SyncValue] {
        let json: StrictJSON
        do { json = try StrictJSON.parse(text) } catch { throw SyncLineError("not JSON: \(error)") }
        return try fields(json)
    }

    private static func integer(_ json: StrictJSON, _ key: String) throws(SyncLineError) -> Int64 {
        guard case .number(let text) = json[key], let n = Int64(text) else {
            throw SyncLineError("\"\(key)\" must be a whole number")
        }
        return n
    }

    private static func uuid(_ json: StrictJSON, _ key: String) throws(SyncLineError) -> String {
        guard case .string(let text) = json[key], UUIDText.isValid(text) else {
            throw SyncLineError("\"\(key)\" must be a lowercase UUID")
        }
        return text
    }

    static func isFieldName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8(isFieldName(bytes:))
    }

    /// `isFieldName` of a name's UTF-8 bytes (read in place: a replay checks every field of
    /// every line).
    static func isFieldName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, (0x61...0x7A).contains(first), bytes.count <= 32 else { return false }
        return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") }
    }
}

/// Why a line is not an operation.
public struct SyncLineError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A device's log: segments `ops-000001.jsonl`, `ops-000002.jsonl`, … of whole lines.
public enum SyncLog {
    /// A new segment after this many lines.
    public static let linesPerSegment = 10_000

    public static func segmentName(_ index: Int) -> String {
        let digits = String(index)
        return "ops-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".jsonl"
    }

    /// The segment's number, or nil for a name that is not a segment (temporary files, a
    /// Syncthing conflict copy, anything else a user put there).
    public static func segmentIndex(_ name: String) -> Int? {
        guard name.hasPrefix("ops-"), name.hasSuffix(".jsonl") else { return nil }
        let digits = name.dropFirst(4).dropLast(6)
        guard digits.count >= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(digits), index >= 1
        else { return nil }
        return segmentName(index) == name ? index : nil
    }

    /// The whole lines in `bytes` (a file read from a cursor), each as its text or nil when it
    /// is not UTF-8 (damage, reported by the reader). A last line without its newline is not
    /// returned: a writer or a copy is still at it, and it is read once whole. `consumed` is
    /// how many bytes the returned lines take, newlines included: where the next read starts.
    public static func wholeLines(_ bytes: [UInt8]) -> (lines: [String?], consumed: Int) {
        var lines: [String?] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            lines.append(String(validating: bytes[start..<index], as: UTF8.self))
            start = index + 1
        }
        return (lines, start)
    }
}

/// An entity's merged fields as the store keeps them, in one row: each field's value and its
/// stamp (the store's number for the operation that set it). The text is one JSON object,
/// names sorted: `{"end":[1763629200000000,41],"note":["call",57]}`.
public struct StampedFields: Equatable, Sendable {
    public struct Field: Equatable, Sendable {
        public var value: SyncValue
        public var stamp: Int64

        public init(value: SyncValue, stamp: Int64) {
            self.value = value
            self.stamp = stamp
        }
    }

    public var fields: [String: Field]

    public init(_ fields: [String: Field] = [:]) { self.fields = fields }

    /// `values`, each with `stamp`.
    public init(_ values: [String: SyncValue], stamp: Int64) {
        fields = values.mapValues { Field(value: $0, stamp: stamp) }
    }

    /// Reads `text` written by `utf8Text`.
    public init(text: String) throws(SyncLineError) {
        if let read = SyncLineReader.stampedFields(text) {
            self.init(read)
            return
        }
        try self.init(tree: text)
    }

    /// `init(text:)` through the JSON tree.
    init(tree text: String) throws(SyncLineError) {
        let json: StrictJSON
        do { json = try StrictJSON.parse(text) } catch { throw SyncLineError("not JSON: \(error)") }
        guard case .object(let members) = json else { throw SyncLineError("stamped fields must be an object") }
        fields = [:]
        for (name, member) in members {
            guard case .array(let pair) = member, pair.count == 2, case .number(let stampText) = pair[1],
                let stamp = Int64(stampText)
            else { throw SyncLineError("field \(name): not [value, stamp]") }
            fields[name] = Field(value: try SyncValue(pair[0], field: name), stamp: stamp)
        }
    }

    /// The fields as `sync_entity` keeps them, `{"end":[1763629200000000,41],…}`: UTF-8 text
    /// written byte by byte (a merge writes one per operation it applies) and bound to the
    /// store as it is, without a string made and checked between.
    public var utf8Text: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(2 + 48 * fields.count)
        write(to: &out)
        return out
    }

    /// Appends `utf8Text` to `out`.
    public func write(to out: inout [UInt8]) {
        Self.write(fields, to: &out, value: \.value) { field, out in Self.write(field.stamp, to: &out) }
    }

    /// Writes `fields` as `utf8Text` does: names sorted, each value from `value`, and its
    /// stamp written by `stamp`.
    static func write<Value>(
        _ fields: [String: Value], to out: inout [UInt8], value: (Value) -> SyncValue, stamp: (Value, inout [UInt8]) -> Void
    ) {
        // The names sorted by their places in the table (no value copied to sort them).
        var order = Array(fields.indices)
        order.sort { fields[$0].key < fields[$1].key }
        out.append(UInt8(ascii: "{"))
        for (count, index) in order.enumerated() {
            let (name, field) = fields[index]
            if count > 0 { out.append(UInt8(ascii: ",")) }
            // An operation's field names need no escaping (`SyncOperation.isFieldName`).
            if name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") }) {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: name.utf8)
                out.append(UInt8(ascii: "\""))
            } else {
                out.append(contentsOf: JSON.quoted(name).utf8)
            }
            out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: "[")])
            if case .int(let n) = value(field) { write(n, to: &out) } else { value(field).json.write(to: &out) }
            out.append(UInt8(ascii: ","))
            stamp(field, &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `n` in decimal, as `String(n)` writes it, without a string of its own.
    static func write(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = n.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, 8 bits each
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    public var values: [String: SyncValue] { fields.mapValues(\.value) }

    /// Sets each of `values` with `stamp`.
    public mutating func set(_ values: [String: SyncValue], stamp: Int64) {
        for (name, value) in values { fields[name] = Field(value: value, stamp: stamp) }
    }
}

/// An operation's fields as `StampedFields.utf8Text` writes them when one stamp holds them
/// all, without the stamp: completed once the merge gives the operation its stamp. Made
/// ahead, off the merge's thread: most of a peer's history is entities that one operation
/// makes, whose merged fields are that operation's.
public struct StampedText: Sendable {
    /// The text without its stamps, and the places where they go.
    let bytes: [UInt8]
    let stamps: [Int]

    public init(_ values: [String: SyncValue]) {
        var bytes: [UInt8] = []
        var stamps: [Int] = []
        bytes.reserveCapacity(2 + 32 * values.count)
        stamps.reserveCapacity(values.count)
        StampedFields.write(values, to: &bytes, value: { $0 }) { _, out in stamps.append(out.count) }
        (self.bytes, self.stamps) = (bytes, stamps)
    }

    /// Appends the text with `stamp` to `out`: `StampedFields(values, stamp: stamp).utf8Text`.
    public func write(stamp: Int64, to out: inout [UInt8]) {
        var from = 0
        for place in stamps {
            out.append(contentsOf: bytes[from..<place])
            StampedFields.write(stamp, to: &out)
            from = place
        }
        out.append(contentsOf: bytes[from...])
    }
}
