import BiomaText
import Testing

@testable import BiomaCore

/// The byte reader of operation lines (`SyncLineReader`) reads what the JSON tree reads: every
/// line it takes, the tree takes too and reads the same; lines it leaves (another spacing, an
/// escape, damage) go to the tree. Random operations, and those lines damaged at random.
@Suite struct SyncLineReaderTests {
    static let names = ["start", "end", "project", "note", "tags", "deleted", "name", "a_1"]
    static let pieces = ["a", "Z", "7", " ", "é", "€", "\u{1F600}", "\"", "\\", "\u{1}", "\n", "/", "{", "}", ",", ":"]
    static let extremes: [Int64] = [0, 1, -1, .max, .min, 1_763_629_200_000_000, -42]

    static func randomValue(_ generator: inout SystemRandomNumberGenerator) -> SyncValue {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(extremes.randomElement(using: &generator)!)
        case 3: return .int(Int64.random(in: .min ... .max, using: &generator))
        default:
            var text = ""
            for _ in 0..<Int.random(in: 0...6, using: &generator) { text += pieces.randomElement(using: &generator)! }
            return .string(text)
        }
    }

    static func randomUUID(_ generator: inout SystemRandomNumberGenerator) -> String {
        let hex = Array("0123456789abcdef")
        return String((0..<36).map { [8, 13, 18, 23].contains($0) ? "-" : hex.randomElement(using: &generator)! })
    }

    static func randomOperation(_ generator: inout SystemRandomNumberGenerator) -> SyncOperation {
        var fields: [String: SyncValue] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            fields[names.randomElement(using: &generator)!] = randomValue(&generator)
        }
        return SyncOperation(
            sequence: Int64.random(in: 1...Int64.max, using: &generator), id: randomUUID(&generator),
            clock: HybridTime(
                wall: Int64.random(in: 0...Int64.max, using: &generator), counter: UInt32.random(in: 0...UInt32.max, using: &generator),
                device: randomUUID(&generator)),
            entity: SyncEntity.allCases.randomElement(using: &generator)!, entityID: randomUUID(&generator), fields: fields)
    }

    /// The text with one byte inserted, removed or replaced, or a piece repeated; nil when that
    /// is not UTF-8.
    static func damaged(_ text: String, _ generator: inout SystemRandomNumberGenerator) -> String? {
        var bytes = Array(text.utf8)
        let swaps = Array(" 0-\"\\e.},1aF:[]n".utf8)
        let at = Int.random(in: 0...bytes.count, using: &generator)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: bytes.insert(swaps.randomElement(using: &generator)!, at: at)
        case 1: if at < bytes.count { bytes.remove(at: at) }
        case 2: if at < bytes.count { bytes[at] = swaps.randomElement(using: &generator)! }
        default:
            let end = min(bytes.count, at + Int.random(in: 1...8, using: &generator))
            bytes.insert(contentsOf: bytes[at..<end], at: at)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether every string of the operation is written without an escape (the byte reader's form).
    static func plain(_ operation: SyncOperation) -> Bool {
        operation.fields.values.allSatisfy {
            guard case .string(let text) = $0 else { return true }
            return !text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }
        }
    }

    @Test func linesReadTheSameAsThroughTheTree() throws {
        var generator = SystemRandomNumberGenerator()
        var taken = 0
        for _ in 0..<3000 {
            let operation = Self.randomOperation(&generator)
            let line = operation.line
            #expect(try SyncOperation(line: line) == operation)
            #expect(try SyncOperation(tree: line) == operation)
            if Self.plain(operation) {
                #expect(SyncLineReader.operation(line) == operation, "\(line)")
            }
            for _ in 0..<4 {
                guard let bad = Self.damaged(line, &generator) else { continue }
                let tree = Result { () throws(SyncLineError) in try SyncOperation(tree: bad) }
                if let read = SyncLineReader.operation(bad) {
                    taken += 1
                    #expect((try? tree.get()) == read, "\(bad)")
                }
                // Whichever reads it, the answer is the tree's.
                let either = Result { () throws(SyncLineError) in try SyncOperation(line: bad) }
                #expect((try? either.get()) == (try? tree.get()), "\(bad)")
            }
        }
        // Some damaged lines are still lines (a digit changed): the byte reader took those.
        #expect(taken > 0)
    }

    /// An operation's fields written ahead without their stamp (`StampedText`) and completed
    /// with it are the text its merged fields keep, whatever the values and the stamp.
    @Test func aStampedTextCompletedIsTheMergedFieldsText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let operation = Self.randomOperation(&generator)
            let stamp = Int64.random(in: -5...Int64.max, using: &generator)
            var text: [UInt8] = Array("kept before:".utf8)
            StampedText(operation.fields).write(stamp: stamp, to: &text)
            #expect(text == Array("kept before:".utf8) + StampedFields(operation.fields, stamp: stamp).utf8Text)
        }
        var empty: [UInt8] = []
        StampedText([:]).write(stamp: 7, to: &empty)
        #expect(String(decoding: empty, as: UTF8.self) == "{}")
    }

    @Test func fieldsAndStampedFieldsReadTheSameAsThroughTheTree() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let operation = Self.randomOperation(&generator)
            var stamped = StampedFields()
            stamped.set(operation.fields, stamp: Int64.random(in: -5...Int64.max, using: &generator))
            let texts = [
                JSON.fields(operation.fields.keys.sorted().map { ($0, operation.fields[$0]!.json) }).text, String(decoding: stamped.utf8Text, as: UTF8.self),
            ]
            #expect(try SyncOperation.fields(text: texts[0]) == operation.fields)
            #expect(try StampedFields(text: texts[1]) == stamped)
            for text in texts {
                for _ in 0..<4 {
                    guard let bad = Self.damaged(text, &generator) else { continue }
                    let fields = Result { () throws(SyncLineError) in try SyncOperation.fields(text: bad) }
                    let fieldsTree = Result { () throws(SyncLineError) in try SyncOperation.fields(tree: bad) }
                    #expect((try? fields.get()) == (try? fieldsTree.get()), "\(bad)")
                    let stampedRead = Result { () throws(SyncLineError) in try StampedFields(text: bad) }
                    let stampedTree = Result { () throws(SyncLineError) in try StampedFields(tree: bad) }
                    #expect((try? stampedRead.get()) == (try? stampedTree.get()), "\(bad)")
                }
            }
        }
    }
}

/// `timew export`'s own form read from the bytes (`TimewarriorImport.exportForm`) gives what the
/// JSON tree gives: random exports as Timewarrior writes them (ids, tags of every kind,
/// annotations with and without escapes, entries with no length, overlaps, a repeat), and the
/// same damaged at random; an export it refuses or does not take is read by the tree, so
/// `parse` answers exactly as the tree does.
@Suite struct TimewarriorReaderTests {
    static let tags = ["Project 1", "acme", "a\"b", "x\\y", "é€", "", "  ", "z.z", "\u{1}"]

    static func quoted(_ text: String) -> String { JSON.quoted(text) }

    static func export(_ generator: inout SystemRandomNumberGenerator) -> String {
        var entries: [String] = []
        var start: Int64 = 1_480_000_000
        for index in 0..<Int.random(in: 0...12, using: &generator) {
            start += Int64.random(in: -600...3_600, using: &generator)  // sometimes back: an overlap
            let end = start + Int64.random(in: 0...3_000, using: &generator)
            var parts: [String] = []
            if Bool.random(using: &generator) { parts.append("\"id\":\(Int.random(in: 0...5, using: &generator) == 0 ? -index : index + 1)") }
            parts.append("\"start\":\(quoted(TimewarriorImport.formatTime(start * 1_000_000)))")
            parts.append("\"end\":\(quoted(TimewarriorImport.formatTime(end * 1_000_000)))")
            if Bool.random(using: &generator) {
                let list = (0..<Int.random(in: 0...3, using: &generator)).map { _ in quoted(tags.randomElement(using: &generator)!) }
                parts.append("\"tags\":[\(list.joined(separator: ","))]")
            }
            if Int.random(in: 0..<3, using: &generator) == 0 {
                parts.append("\"annotation\":\(quoted(["call", "a \"quoted\" note", "line\nbreak", ""].randomElement(using: &generator)!))")
            }
            entries.append("{" + parts.joined(separator: ",") + "}")
            if Int.random(in: 0..<8, using: &generator) == 0 { entries.append(entries.last!) }
        }
        return "[\n" + entries.joined(separator: ",\n") + (entries.isEmpty ? "" : "\n") + "]\n"
    }

    static func answer(_ body: () throws(TrackerError) -> [ImportedInterval]) -> String {
        do { return "\(try body())" } catch { return "error: \(error.message)" }
    }

    @Test func exportsReadTheSameAsThroughTheTree() {
        var generator = SystemRandomNumberGenerator()
        var taken = 0
        for _ in 0..<2000 {
            let text = Self.export(&generator)
            let map = Bool.random(using: &generator) ? TagMap() : (try? TagMap(["acme": "ACME", "Project 1": ""])) ?? TagMap()
            let tree = Self.answer { () throws(TrackerError) in try TimewarriorImport.parse(tree: text, tagMap: map) }
            #expect(Self.answer { () throws(TrackerError) in try TimewarriorImport.parse(text, tagMap: map) } == tree, "\(text)")
            if let read = try? TimewarriorImport.exportForm(text, tagMap: map) {
                taken += 1
                #expect("\(read)" == tree, "\(text)")
            }
            for _ in 0..<3 {
                guard let bad = SyncLineReaderTests.damaged(text, &generator) else { continue }
                let badTree = Self.answer { () throws(TrackerError) in try TimewarriorImport.parse(tree: bad, tagMap: map) }
                #expect(Self.answer { () throws(TrackerError) in try TimewarriorImport.parse(bad, tagMap: map) } == badTree, "\(bad)")
            }
        }
        #expect(taken > 100)
    }
}
