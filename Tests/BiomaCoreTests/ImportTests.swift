import BiomaCore
import BiomaText
import Foundation
import PropertyBased
import Testing

/// The message of the error `body` throws, nil when it returns.
private func failure<T>(_ body: () throws -> T) -> TrackerError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? TrackerError ?? .storage("not a TrackerError: \(error)")
    }
}

private func importMessage<T>(_ body: () throws -> T) -> String? {
    guard let error = failure(body) else { return nil }
    guard case .invalidImport(let message) = error else { return "not invalidImport: \(error)" }
    return message
}

@Suite struct StrictJSONTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try StrictJSON.parse(
            #" { "a": [1, -0.5, 2e3, true, false, null], "b": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "c": {} } "#)
        #expect(
            value
                == .object([
                    ("a", .array([.number("1"), .number("-0.5"), .number("2e3"), .bool(true), .bool(false), .null])),
                    ("b", .string("x\"\\/\u{8}\u{C}\n\r\té😀")), ("c", .object([])),
                ]))
        #expect(try StrictJSON.parse("[]") == .array([]))
        #expect(try StrictJSON.parse("\u{FEFF}[\"Café ☕\"]") == .array([.string("Café ☕")]))
        #expect(try StrictJSON.parse("12345678901234567890") == .number("12345678901234567890"))
    }

    @Test func refusesWhatRFC8259Refuses() {
        let bad: [(String, String)] = [
            ("[1,]", "line 1, column 4: expected a value (an object, array, string, number, true, false or null)"),
            ("{\"a\":1,}", "line 1, column 8: expected a key in double quotes"),
            ("[1 2]", "line 1, column 4: expected ',' or ']'"),
            ("// c\n[]", "line 1, column 1: expected a value (an object, array, string, number, true, false or null)"),
            ("{\"a\":1,\"a\":2}", "line 1, column 8: expected no key twice in one object (\"a\" is repeated)"),
            ("[01]", "line 1, column 3: expected no leading zero in a number"),
            ("[1.]", "line 1, column 4: expected a digit after the decimal point"),
            ("[-]", "line 1, column 3: expected a digit"),
            ("[1e]", "line 1, column 4: expected a digit in the exponent"),
            ("['a']", "line 1, column 2: expected a value (an object, array, string, number, true, false or null)"),
            ("[NaN]", "line 1, column 2: expected a value (an object, array, string, number, true, false or null)"),
            ("[tru]", "line 1, column 2: expected a value (an object, array, string, number, true, false or null)"),
            ("[\"a\tb\"]", "line 1, column 4: expected no control character inside a string (escape it)"),
            ("[\"\\ud800\"]", "line 1, column 9: expected a low surrogate (\\uDC00–\\uDFFF) after a high one"),
            ("[\"\\udc00\"]", "line 1, column 9: expected no lone low surrogate"),
            ("[\"\\x\"]", "line 1, column 4: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"),
            ("[\"abc", "line 1, column 6: expected the closing '\"' of the string (found the end of the text)"),
            ("[]\n[]", "line 2, column 1: expected the end of the text after the value"),
            ("[\n  {\"é\": 1 x", "line 2, column 11: expected ',' or '}'"),
            ("", "line 1, column 1: expected a value (found the end of the text)"),
        ]
        for (text, expected) in bad {
            do {
                let value = try StrictJSON.parse(text)
                Issue.record("\(text.debugDescription) parsed as \(value)")
            } catch {
                #expect(error.description == expected, "\(text.debugDescription)")
            }
        }
    }

    @Test func repeatedKeysInBigObjects() throws {
        let keys = (0..<20).map { "\"k\($0)\":\($0)" }
        #expect(throws: Never.self) { try StrictJSON.parse("{" + keys.joined(separator: ",") + "}") }
        for repeated in [1, 11, 12, 13, 19] {
            let text = "{" + (keys + ["\"k\(repeated)\":0"]).joined(separator: ",") + "}"
            do {
                _ = try StrictJSON.parse(text)
                Issue.record("k\(repeated) twice was accepted")
            } catch {
                #expect(error.expected == "expected no key twice in one object (\"k\(repeated)\" is repeated)")
                #expect(error.column == text.count - "\"k\(repeated)\":0}".count + 1)
            }
        }
    }

    /// Reading an array element by element accepts and refuses exactly what `parse` does, with
    /// the same messages.
    @Test func arrayReaderAgreesWithParse() {
        let texts = [
            "[]", " [ ] \n", "[1]", "[1,2 , [3,{\"a\":[]}]]", "[1,]", "[,1]", "[1 2]", "[1", "[", "[1]]", "[1] x",
            "[\"a\", \"b\\u00e9\"]", "[{\"a\":1,\"a\":2}]", "[\n  {\"é\": 1 x", "[1,\n\n  tru]", "\u{FEFF}[true]",
        ]
        for text in texts {
            var collected: Result<[StrictJSON], StrictJSON.SyntaxError> = .success([])
            if var reader = StrictJSON.ArrayReader(text) {
                var elements: [StrictJSON] = []
                collected = Result { () throws(StrictJSON.SyntaxError) -> [StrictJSON] in
                    while let element = try reader.next() { elements.append(element) }
                    #expect(try reader.next() == nil)
                    return elements
                }
            } else {
                Issue.record("\(text.debugDescription) not read as an array")
            }
            let parsed = Result { () throws(StrictJSON.SyntaxError) -> [StrictJSON] in
                guard case .array(let elements) = try StrictJSON.parse(text) else { return [] }
                return elements
            }
            switch (collected, parsed) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(text.debugDescription)")
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(text.debugDescription)")
            default: Issue.record("\(text.debugDescription): \(collected) but parse gives \(parsed)")
            }
        }
        #expect(StrictJSON.ArrayReader(" {\"a\": []}") == nil)
        #expect(StrictJSON.ArrayReader("") == nil)
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: StrictJSON.maxDepth) + String(repeating: "]", count: StrictJSON.maxDepth)
        _ = try StrictJSON.parse(deep)
        let tooDeep = "[" + deep + "]"
        #expect(throws: StrictJSON.SyntaxError.self) { try StrictJSON.parse(tooDeep) }
        // A hostile depth is an error, not a stack overflow.
        #expect(throws: StrictJSON.SyntaxError.self) { try StrictJSON.parse(String(repeating: "[", count: 1_000_000)) }
    }
}

@Suite struct TimewarriorImportTests {
    @Test func intervalsTagsAndProjects() throws {
        // What `timew export` writes (Timewarrior 1.4): newest id first, tags sorted.
        let export = """
            [
            {"id":4,"start":"20240304T080000Z","end":"20240304T093000Z","tags":["acme","meeting"],"annotation":"kick-off"},
            {"id":3,"start":"20240304T100000Z","end":"20240304T110000Z","tags":["Café ☕"]},
            {"id":2,"start":"20240304T120000Z","end":"20240304T120000Z","tags":["empty"]},
            {"id":1,"start":"20240305T090000Z","end":"20240305T094500Z"}
            ]

            """
        let intervals = try TimewarriorImport.parse(export)
        // Every tag is kept as a tag; one that is not a word here is made one.
        #expect(intervals.map(\.tags) == [["acme", "meeting"], ["Café--"], []])
        #expect(
            intervals.map { var i = $0; i.tags = []; return i } == [
                ImportedInterval(
                    start: t("2024-03-04T08:00:00Z"), end: t("2024-03-04T09:30:00Z"), projectName: "acme", entry: 1, entryID: "@4",
                    note: "kick-off"),
                ImportedInterval(
                    start: t("2024-03-04T10:00:00Z"), end: t("2024-03-04T11:00:00Z"), projectName: "Café ☕", entry: 2,
                    entryID: "@3"),
                // Entry 3 has no length: it holds no time and is left out.
                ImportedInterval(
                    start: t("2024-03-05T09:00:00Z"), end: t("2024-03-05T09:45:00Z"), projectName: nil, entry: 4, entryID: "@1"),
            ])
        // The first tag the map names wins, wherever it is; "" means no project; unmapped
        // entries keep their first tag.
        let mapped = try TimewarriorImport.parse(export, tagMap: TagMap(["meeting": "Meetings", "Café ☕": ""]))
        #expect(mapped.map(\.projectName) == ["Meetings", nil, nil])
        let both = try TimewarriorImport.parse(export, tagMap: TagMap(["meeting": "Meetings", "acme": "ACME Corp"]))
        #expect(both.first?.projectName == "ACME Corp")
        #expect(try TimewarriorImport.parse("[\n]\n") == [])
        #expect(try TimewarriorImport.parse(#"[{"start":"20240101T000000Z","end":"20240101T000001Z","future":{"x":[1]}}]"#).count == 1)
    }

    @Test func timesAreStrict() {
        #expect(TimewarriorImport.parseTime("20240229T235959Z") == t("2024-02-29T23:59:59Z"))
        #expect(TimewarriorImport.formatTime(t("2024-02-29T23:59:59Z")) == "20240229T235959Z")
        for bad in [
            "20230229T000000Z", "20240101T240000Z", "20240101T006000Z", "20240101T000060Z", "20240101T000000",
            "2024-01-01T00:00:00Z", "20240101 000000Z", "20240101T000000+0100", "19691231T235959Z", "2024010T0000000Z",
            "20240101T00000aZ", "", "20241301T000000Z",
        ] {
            #expect(TimewarriorImport.parseTime(bad) == nil, "\(bad)")
        }
    }

    @Test func everyBrokenEntryIsNamed() {
        func entry(_ body: String) -> String { "[\n{\"id\":9,\"start\":\"20240101T090000Z\",\"end\":\"20240101T100000Z\"},\n\(body)\n]" }
        let cases: [(String, String)] = [
            (entry(#"{"id":8,"start":"2024-01-01T11:00:00Z","end":"20240101T120000Z"}"#),
             #"Timewarrior entry 2 (id @8): "start" "2024-01-01T11:00:00Z" is not a time like "20240131T090000Z". Nothing was imported."#),
            (entry(#"{"id":8,"start":"20240101T110000Z","end":20240101}"#),
             #"Timewarrior entry 2 (id @8): "end" 20240101 is not a time like "20240131T170000Z". Nothing was imported."#),
            (entry(#"{"id":8,"end":"20240101T120000Z"}"#), #"Timewarrior entry 2 (id @8): it has no "start". Nothing was imported."#),
            (entry(#"{"id":1,"start":"20240101T110000Z","tags":["acme"]}"#),
             #"Timewarrior entry 2 (id @1): it is still open (it has no "end"): stop it with `timew stop`, or leave it out, and import again. Nothing was imported."#),
            (entry(#"{"start":"20240101T120000Z","end":"20240101T110000Z"}"#),
             "Timewarrior entry 2: it ends (20240101T110000Z) before it starts (20240101T120000Z). Nothing was imported."),
            (entry(#"{"id":"8","start":"20240101T110000Z","end":"20240101T120000Z"}"#),
             #"Timewarrior entry 2: "id" must be a whole number, found "8". Nothing was imported."#),
            (entry(#"{"id":8,"start":"20240101T110000Z","end":"20240101T120000Z","tags":"acme"}"#),
             #"Timewarrior entry 2 (id @8): "tags" must be an array of strings, found a string. Nothing was imported."#),
            (entry(#"{"id":8,"start":"20240101T110000Z","end":"20240101T120000Z","tags":["a",7]}"#),
             #"Timewarrior entry 2 (id @8): "tags" must be an array of strings, and holds 7. Nothing was imported."#),
            (entry(#"{"id":8,"start":"20240101T110000Z","end":"20240101T120000Z","annotation":null}"#),
             #"Timewarrior entry 2 (id @8): "annotation" must be a string, found null. Nothing was imported."#),
            (entry(#"["20240101T110000Z","20240101T120000Z"]"#), "Timewarrior entry 2: expected an object, found an array. Nothing was imported."),
            (entry(#"{"id":8,"start":"20240101T093000Z","end":"20240101T120000Z"}"#),
             "Timewarrior entry 2 (id @8) (2024-01-01T09:30:00+00:00 – 2024-01-01T12:00:00+00:00) overlaps Timewarrior entry 1 (id @9) (2024-01-01T09:00:00+00:00 – 2024-01-01T10:00:00+00:00). Nothing was imported."),
            (entry(#"{"id":8,"start":"20240101T110000Z","end":"20240101T120000Z","tags":["a\tb"]}"#),
             #"Timewarrior entry 2 (id @8): its tag "a\tb" cannot be a project name (Project names cannot contain control characters (tabs, line breaks, …): "a\tb"); map it to one with --tag-map (TagMap). Nothing was imported."#),
            (entry("{\"id\":8,\"start\":\"20240101T110000Z\",\"end\":\"20240101T120000Z\",\"tags\":[\"\(String(repeating: "é", count: 65))\"]}"),
             #"Timewarrior entry 2 (id @8): its tag "éééééééééééééééééééééééééééééééééééééééé…" cannot be a project name (Project names are 1–64 characters after trimming; this one has 65); map it to one with --tag-map (TagMap). Nothing was imported."#),
            ("", "The Timewarrior export is empty: expected a JSON array as `timew export` writes ([] when there is nothing)."),
            ("  \n", "The Timewarrior export is empty: expected a JSON array as `timew export` writes ([] when there is nothing)."),
            (#"{"start":"20240101T110000Z"}"#, "The Timewarrior export must be a JSON array as `timew export` writes, not an object. Nothing was imported."),
            ("[\n{\"start\":\"20240101T110000Z\",}\n]",
             "The Timewarrior export is not valid JSON: line 2, column 29: expected a key in double quotes. Nothing was imported."),
        ]
        for (text, expected) in cases {
            #expect(importMessage { try TimewarriorImport.parse(text) } == expected, "\(text)")
        }
        // A name biomatimer cannot take is fine once the map gives another.
        let long = String(repeating: "x", count: 80)
        let text = "[{\"start\":\"20240101T110000Z\",\"end\":\"20240101T120000Z\",\"tags\":[\"\(long)\"]}]"
        #expect(try! TimewarriorImport.parse(text, tagMap: TagMap([long: "Long"])).first?.projectName == "Long")
        // An entry repeated exactly is not an overlap (the store adds it once).
        let twice = "[{\"start\":\"20240101T110000Z\",\"end\":\"20240101T120000Z\",\"tags\":[\"A\"]},{\"start\":\"20240101T110000Z\",\"end\":\"20240101T120000Z\",\"tags\":[\"a\"]}]"
        #expect(try! TimewarriorImport.parse(twice).count == 2)
    }

    /// Entries in any order are checked in start order: an overlap is found wherever its two
    /// entries are in the file, and named by their places; apart, they all import.
    @Test func entriesOutOfOrderAreCheckedInStartOrder() {
        func entry(_ id: Int, _ start: String, _ end: String) -> String {
            "{\"id\":\(id),\"start\":\"20240101T\(start)00Z\",\"end\":\"20240101T\(end)00Z\"}"
        }
        let overlapping = "[" + [entry(3, "1200", "1300"), entry(2, "0900", "1000"), entry(1, "0930", "1100")].joined(separator: ",") + "]"
        #expect(
            importMessage { try TimewarriorImport.parse(overlapping) }
                == "Timewarrior entry 3 (id @1) (2024-01-01T09:30:00+00:00 – 2024-01-01T11:00:00+00:00) overlaps Timewarrior entry 2 (id @2) (2024-01-01T09:00:00+00:00 – 2024-01-01T10:00:00+00:00). Nothing was imported.")
        // An earlier long entry listed after the one it covers.
        let covering = "[" + [entry(2, "1000", "1030"), entry(1, "0800", "1200")].joined(separator: ",") + "]"
        #expect(importMessage { try TimewarriorImport.parse(covering) }?.contains("Timewarrior entry 1 (id @2)") == true)
        let apart = "[" + [entry(3, "1200", "1300"), entry(2, "0900", "1000"), entry(1, "1000", "1100")].joined(separator: ",") + "]"
        #expect(try! TimewarriorImport.parse(apart).map(\.entry) == [1, 2, 3])
    }

    @Test func tagMapsAreChecked() {
        #expect(failure { try TagMap(["": "x"]) } == .invalidArgument("TagMap: a tag cannot be empty."))
        #expect(
            failure { try TagMap(["a": "b\nc"]) }?.message
                == #"TagMap: the project for tag "a" is not a valid name: Project names cannot contain control characters (tabs, line breaks, …): "b\nc"."#)
        #expect(failure { try TagMap(["a": "  Spaced  ", "b": ""]) } == nil)
    }
}

@Suite struct WatsonImportTests {
    @Test func framesProjectsAndTags() throws {
        // Watson's own layout (json.dump with indent=1), frames in any order.
        let frames = """
            [
             [
              1709539200,
              1709544600,
              "acme",
              "5c7f3d6e9a2b4c1d8e0f1a2b3c4d5e6f",
              [
               "meeting",
               "planning"
              ],
              1709544601
             ],
             [1709629200, 1709631900.5, "Café ☕", "0123456789abcdef0123456789abcdef", [], 1709631901],
             [1709546400, 1709550000, "beta", "00000000000000000000000000000001", null],
             [1709550000, 1709553600, "beta", "00000000000000000000000000000002"]
            ]
            """
        let intervals = try WatsonImport.parse(frames)
        #expect(intervals.map(\.projectName) == ["acme", "Café ☕", "beta", "beta"])
        #expect(intervals.map(\.start) == [1_709_539_200, 1_709_629_200, 1_709_546_400, 1_709_550_000].map { $0 * microsPerSecond })
        #expect(intervals[1].end == 1_709_631_900 * microsPerSecond + 500_000)
        #expect(intervals.map(\.entryID) == [
            "5c7f3d6e9a2b4c1d8e0f1a2b3c4d5e6f", "0123456789abcdef0123456789abcdef", "00000000000000000000000000000001",
            "00000000000000000000000000000002",
        ])
        // The project is the first label: the map may rename it, or send a tag elsewhere.
        let mapped = try WatsonImport.parse(frames, tagMap: TagMap(["planning": "Planning", "beta": "Beta Corp"]))
        #expect(mapped.map(\.projectName) == ["Planning", "Café ☕", "Beta Corp", "Beta Corp"])
        let project = try WatsonImport.parse(frames, tagMap: TagMap(["acme": "ACME", "meeting": "Meetings"]))
        #expect(project.first?.projectName == "ACME")
        #expect(try WatsonImport.parse("[]") == [])
    }

    @Test func everyBrokenFrameIsNamed() {
        let good = #"[1709539200, 1709542800, "acme", "aaaa", [], 1709542800]"#
        let cases: [(String, String)] = [
            (#"[1709539200, "1709542800", "acme", "bbbb", []]"#,
             #"Watson frame 2 (id bbbb): the stop "1709542800" is not a time in seconds since 1970. Nothing was imported."#),
            (#"[-5, 1709542800, "acme", "bbbb"]"#, "Watson frame 2 (id bbbb): the start -5 is not a time in seconds since 1970. Nothing was imported."),
            (#"[1e9, 1709542800, "acme", "bbbb"]"#, "Watson frame 2 (id bbbb): the start 1e9 is not a time in seconds since 1970. Nothing was imported."),
            (#"[253402300800, 253402300900, "acme", "bbbb"]"#,
             "Watson frame 2 (id bbbb): the start 253402300800 is not a time in seconds since 1970. Nothing was imported."),
            (#"[1709550000, 1709546400, "acme", "bbbb"]"#,
             "Watson frame 2 (id bbbb): it stops (1709546400) before it starts (1709550000). Nothing was imported."),
            (#"[1709546400, 1709550000, 7, "bbbb"]"#, "Watson frame 2 (id bbbb): the project must be a string, found 7. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme", 12]"#, "Watson frame 2: the id must be a string, found 12. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme"]"#,
             "Watson frame 2: expected 4 to 7 fields [start, stop, project, id, tags, updated_at, note], found 3. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme", "bbbb", [], 1, "note", 2]"#,
             "Watson frame 2 (id bbbb): expected 4 to 7 fields [start, stop, project, id, tags, updated_at, note], found 8. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme", "bbbb", [], 1, 2]"#,
             "Watson frame 2 (id bbbb): the note must be a string, found 2. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme", "bbbb", "x"]"#,
             "Watson frame 2 (id bbbb): the tags must be an array of strings, found a string. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme", "bbbb", [true]]"#,
             "Watson frame 2 (id bbbb): the tags must be strings, and hold true. Nothing was imported."),
            (#"[1709546400, 1709550000, "acme", "bbbb", [], "now"]"#,
             #"Watson frame 2 (id bbbb): updated_at "now" is not a time in seconds since 1970. Nothing was imported."#),
            (#"[1709546400, 1709550000, "", "bbbb"]"#,
             #"Watson frame 2 (id bbbb): its project or tag "" cannot be a project name (Project names cannot be empty: give 1–64 characters); map it to one with --tag-map (TagMap). Nothing was imported."#),
            (#"{"start": 1709546400}"#,
             "Watson frame 2: expected an array [start, stop, project, id, tags, updated_at, note], found an object. Nothing was imported."),
            (#"[1709541000, 1709546400, "beta", "bbbb"]"#,
             "Watson frame 2 (id bbbb) (2024-03-04T08:30:00+00:00 – 2024-03-04T10:00:00+00:00) overlaps Watson frame 1 (id aaaa) (2024-03-04T08:00:00+00:00 – 2024-03-04T09:00:00+00:00). Nothing was imported."),
        ]
        for (frame, expected) in cases {
            #expect(importMessage { try WatsonImport.parse("[\(good),\n\(frame)]") } == expected, "\(frame)")
        }
        // An id that is not plain text is quoted, control characters escaped (a hostile file
        // cannot send escape sequences to the terminal showing the message).
        #expect(
            importMessage { try WatsonImport.parse(#"[[2, 1, "acme", "\u001b[31mred (x)"]]"#) }
                == #"Watson frame 1 (id "^[[31mred (x)"): it stops (1) before it starts (2). Nothing was imported."#)
        #expect(
            importMessage { try WatsonImport.parse("") }
                == "The Watson frames file is empty: expected a JSON array as Watson keeps in ~/.config/watson/frames ([] when there is nothing).")
    }
}

/// Random valid exports in both formats read back to the intervals they were made from.
@Suite struct ImportProperties {
    static let names = ["acme", "Beta Corp", "Café ☕", "R&D \"internal\"", "日本語", "back\\slash", "x/y", "😀"]

    /// A JSON string literal, escaping some characters as \u sequences the way other writers may.
    static func literal(_ text: String, code: Int) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where code % 2 == 0: out += "\\/"
            default:
                if scalar.value > 0x7F && code % 3 == 0 {
                    for unit in String(scalar).utf16 { out += "\\u" + String(unit, radix: 16, uppercase: code % 5 == 0).leftPadded(4) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Disjoint intervals from the codes: a gap, a length (some of them zero), a name or none.
    static func intervals(_ codes: [Int]) -> [(start: Micros, end: Micros, name: String?, extra: [String])] {
        var cursor = t("2019-06-30T22:00:00Z")
        return codes.map { code in
            cursor += Micros(code % 7_200) * microsPerSecond
            let length = code % 11 == 0 ? 0 : Micros(code % 14_400 + 1) * microsPerSecond
            let start = cursor
            cursor += length
            let name = code % 9 == 0 ? nil : names[code / 9 % names.count]
            return (start, cursor, name, code % 4 == 0 && name != nil ? ["zz-extra"] : [])
        }
    }

    @Test func timewarriorExportsReadBack() async {
        await propertyCheck(count: 150, input: Gen.int(in: 0...10_000_000).array(of: 0...40), Gen.int(in: 0...1000)) { codes, seed in
            let made = Self.intervals(codes)
            var order = Array(made.indices)
            var rng = SplitMix(seed: UInt64(seed))
            order.shuffle(using: &rng)
            let space = seed % 2 == 0 ? "" : " \n\t"
            let entries = order.map { i -> String in
                let m = made[i]
                var members = [
                    "\"id\":\(made.count - i)", "\"start\":\"\(TimewarriorImport.formatTime(m.start))\"",
                    "\"end\":\"\(TimewarriorImport.formatTime(m.end))\"",
                ]
                let tags = (m.name.map { [$0] } ?? []) + m.extra
                if !tags.isEmpty || codes[i] % 3 == 0 {
                    members.append("\"tags\":[" + tags.map { Self.literal($0, code: codes[i]) }.joined(separator: ",\(space)") + "]")
                }
                if codes[i] % 5 == 0 { members.append("\"annotation\":\(Self.literal("note ☕", code: codes[i]))") }
                return "{" + members.joined(separator: ",\(space)") + "}"
            }
            let text = "[\n" + entries.joined(separator: ",\n") + "\n]\n"
            do {
                let back = try TimewarriorImport.parse(text)
                let expected = order.filter { made[$0].end > made[$0].start }
                #expect(back.map(\.start) == expected.map { made[$0].start })
                #expect(back.map(\.end) == expected.map { made[$0].end })
                #expect(back.map(\.projectName) == expected.map { made[$0].name })
                #expect(back.map(\.entryID) == expected.map { "@\(made.count - $0)" })
            } catch {
                Issue.record("\(error)\n\(text)")
            }
        }
    }

    @Test func watsonFramesReadBack() async {
        await propertyCheck(count: 150, input: Gen.int(in: 0...10_000_000).array(of: 0...40), Gen.int(in: 0...1000)) { codes, seed in
            let made = Self.intervals(codes).filter { $0.name != nil }
            var order = Array(made.indices)
            var rng = SplitMix(seed: UInt64(seed))
            order.shuffle(using: &rng)
            let frames = order.map { i -> String in
                let m = made[i]
                let tags = "[" + m.extra.map { Self.literal($0, code: i) }.joined(separator: ", ") + "]"
                return "[\(m.start / microsPerSecond), \(m.end / microsPerSecond), \(Self.literal(m.name!, code: i)), \"id\(i)\", \(tags), \(m.end / microsPerSecond + 1)]"
            }
            let text = "[\n " + frames.joined(separator: ",\n ") + "\n]"
            do {
                let back = try WatsonImport.parse(text)
                let expected = order.filter { made[$0].end > made[$0].start }
                #expect(back.map(\.start) == expected.map { made[$0].start })
                #expect(back.map(\.end) == expected.map { made[$0].end })
                #expect(back.map(\.projectName) == expected.map { made[$0].name })
                #expect(back.map(\.entryID) == expected.map { "id\($0)" })
            } catch {
                Issue.record("\(error)\n\(text)")
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
