import BiomaText

/// An operation's line read without a JSON tree, when it is exactly as `SyncOperation.line`
/// writes it: the keys in their order, no spaces, strings without escapes. A peer's replay
/// reads every line of its log, and the tree (a string per key and value, a dictionary per
/// object) was a fifth of it. Anything else — another writer's spacing or order, an escape, a
/// value out of range, damage — is left to the general reader (`nil`), which accepts or
/// refuses it and says why: what this reads, the general reader reads the same.
enum SyncLineReader {
    static func operation(_ line: String) -> SyncOperation? {
        var line = line
        return line.withUTF8 { bytes in
            var reader = JSONByteCursor(bytes: bytes)
            return reader.operation()
        }
    }

    /// A `set` object's text (a recorded change's fields), as `fields(text:)` reads it.
    static func fields(_ text: String) -> [String: SyncValue]? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = JSONByteCursor(bytes: bytes)
            guard reader.literal("{"), let fields = reader.fields(), reader.literal("}"), reader.index == bytes.count else {
                return nil
            }
            return fields
        }
    }

    /// `StampedFields.utf8Text`'s form read back: `{"end":[1763629200000000,41],…}`.
    static func stampedFields(_ text: String) -> [String: StampedFields.Field]? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = JSONByteCursor(bytes: bytes)
            var fields: [String: StampedFields.Field] = [:]
            fields.reserveCapacity(12)
            guard reader.literal("{") else { return nil }
            if reader.peek != UInt8(ascii: "}") {
                while true {
                    // Any name the general reader takes (it is not checked there either), once.
                    guard let name = reader.string(), reader.literal(":["), let value = reader.value(),
                        reader.literal(","), let stamp = reader.integer(), reader.literal("]"),
                        fields.updateValue(StampedFields.Field(value: value, stamp: stamp), forKey: name) == nil
                    else { return nil }
                    if reader.peek == UInt8(ascii: "}") { break }
                    guard reader.literal(",") else { return nil }
                }
            }
            guard reader.literal("}"), reader.index == bytes.count else { return nil }
            return fields
        }
    }
}

/// The parts of an operation line.
extension JSONByteCursor {
    mutating func operation() -> SyncOperation? {
        guard literal("{\"v\":1,\"seq\":"), let sequence = integer(), sequence >= 1,
            literal(",\"op\":"), let id = uuid(),
            literal(",\"hlc\":["), let wall = integer(), wall >= 0, literal(","), peek != UInt8(ascii: "-"),
            let counterValue = integer(),
            counterValue >= 0, counterValue <= Int64(UInt32.max), literal("],\"dev\":"), let device = uuid(),
            literal(",\"kind\":"), let kind = string(), let entity = SyncEntity(rawValue: kind),
            literal(",\"id\":"), let entityID = uuid(),
            literal(",\"set\":{"), let fields = fields(), literal("}}"), index == bytes.count
        else { return nil }
        return SyncOperation(
            sequence: sequence, id: id, clock: HybridTime(wall: wall, counter: UInt32(counterValue), device: device),
            entity: entity, entityID: entityID, fields: fields)
    }

    /// The `set` object's members up to its closing brace (not taken).
    mutating func fields() -> [String: SyncValue]? {
        var fields: [String: SyncValue] = [:]
        if peek == UInt8(ascii: "}") { return fields }
        // An interval's operation sets six fields, a project's ten: room for them at once.
        fields.reserveCapacity(12)
        while true {
            guard let bytes = stringBytes(), SyncOperation.isFieldName(bytes: bytes), literal(":"), let value = value(),
                fields.updateValue(value, forKey: String(decoding: bytes, as: UTF8.self)) == nil
            else { return nil }
            guard fields.count <= SyncOperation.maxFields else { return nil }
            if peek == UInt8(ascii: "}") { return fields }
            guard literal(",") else { return nil }
        }
    }

    mutating func value() -> SyncValue? {
        switch peek {
        case UInt8(ascii: "\""): return string().map(SyncValue.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        default: return integer().map(SyncValue.int)
        }
    }

    /// A lowercase UUID string (`UUIDText.isValid`).
    mutating func uuid() -> String? {
        guard index + 38 <= bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[index + 37] == UInt8(ascii: "\"") else {
            return nil
        }
        for offset in 0..<36 {
            let byte = bytes[index + 1 + offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return nil }
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(index + 37)]), as: UTF8.self)
        index += 38
        return text
    }
}
