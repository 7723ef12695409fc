@testable import BiomaCore
import PropertyBased
import Testing

private let deviceA = "0a0a0a0a-0000-4000-8000-00000000000a"
private let deviceB = "0b0b0b0b-0000-4000-8000-00000000000b"
private let minute: Micros = 60 * microsPerSecond

@Suite struct HybridClockTests {
    @Test func ticksStayOrderedWhenTheWallClockGoesBack() {
        var clock = HybridClock(device: deviceA)
        let first = clock.tick(physical: 1_000)
        let second = clock.tick(physical: 400)  // the clock was set back
        let third = clock.tick(physical: 400)
        let fourth = clock.tick(physical: 2_000)
        #expect(first < second && second < third && third < fourth)
        #expect(second.wall == 1_000 && second.counter == 1 && third.counter == 2)
        #expect(fourth == HybridTime(wall: 2_000, counter: 0, device: deviceA))
    }

    /// A device five minutes behind still orders its next change after what it has seen.
    @Test func aChangeAfterAPeersOrdersAfterItWhateverTheSkew() {
        var behind = HybridClock(device: deviceB)
        let seen = HybridTime(wall: 10 * minute, counter: 3, device: deviceA)
        behind.observe(seen, physical: 5 * minute)
        let next = behind.tick(physical: 5 * minute + 1)
        #expect(next > seen)
        #expect(next.wall == seen.wall && next.counter == 5)
        // Once its own clock passes the peer's, it runs on its own wall time again.
        #expect(behind.tick(physical: 11 * minute) == HybridTime(wall: 11 * minute, counter: 0, device: deviceB))
    }

    @Test func observingAnOlderReadingStillMovesTheCounter() {
        var clock = HybridClock(device: deviceA, last: HybridTime(wall: 50, counter: 7, device: deviceA))
        clock.observe(HybridTime(wall: 20, counter: 99, device: deviceB), physical: 10)
        #expect(clock.wall == 50 && clock.counter == 8)
        clock.observe(HybridTime(wall: 50, counter: 20, device: deviceB), physical: 10)
        #expect(clock.wall == 50 && clock.counter == 21)
    }

    @Test func readingsOrderByWallThenCounterThenDevice() {
        let a = HybridTime(wall: 5, counter: 1, device: deviceA)
        #expect(a < HybridTime(wall: 5, counter: 1, device: deviceB))
        #expect(a < HybridTime(wall: 5, counter: 2, device: deviceA))
        #expect(HybridTime(wall: 4, counter: 9, device: deviceB) < a)
    }
}

@Suite struct UUIDTextTests {
    @Test func version7CarriesTheMillisecondsAndSortsByThem() {
        var random = SplitMix(seed: 7)
        let early = UUIDText.version7(millis: 0x0190_0000_0001, using: &random)
        let late = UUIDText.version7(millis: 0x0190_0000_0002, using: &random)
        #expect(early.hasPrefix("01900000-0001-7"))
        #expect(late.hasPrefix("01900000-0002-7"))
        #expect(early < late)
        for id in [early, late] {
            #expect(UUIDText.isValid(id))
            #expect("89ab".contains(Array(id)[19]))
        }
    }

    @Test func version4IsRandomWithItsVersionAndVariant() {
        var random = SplitMix(seed: 1)
        let ids = (0..<50).map { _ in UUIDText.version4(using: &random) }
        #expect(Set(ids).count == 50)
        for id in ids {
            #expect(UUIDText.isValid(id) && Array(id)[14] == "4" && "89ab".contains(Array(id)[19]))
        }
    }

    @Test(arguments: [
        "", "0a0a0a0a-0000-4000-8000-00000000000", "0A0A0A0A-0000-4000-8000-00000000000A",
        "0a0a0a0a00000-4000-8000-00000000000a", "0a0a0a0a-0000-4000-8000-00000000000g", "../../../etc/passwd",
        "0a0a0a0a-0000-4000-8000-00000000000a\n",
    ])
    func rejectsWhatIsNotALowercaseUUID(_ text: String) {
        #expect(!UUIDText.isValid(text))
    }
}

@Suite struct SyncOperationTests {
    static let sample = SyncOperation(
        sequence: 12, id: "01900000-0001-7abc-8def-0123456789ab",
        clock: HybridTime(wall: 1_732_400_000_000_000, counter: 2, device: deviceA), entity: .interval,
        entityID: "01900000-0000-7000-8000-000000000001",
        fields: ["start": .int(1_732_399_000_000_000), "end": .null, "project": .string("Client \"A\" ; é"), "x": .bool(true)]
    )

    @Test func aLineReadsBackAsTheSameOperation() throws {
        let line = Self.sample.line
        #expect(
            line
                == #"{"v":1,"seq":12,"op":"01900000-0001-7abc-8def-0123456789ab","hlc":[1732400000000000,2],"dev":"0a0a0a0a-0000-4000-8000-00000000000a","kind":"interval","id":"01900000-0000-7000-8000-000000000001","set":{"end":null,"project":"Client \"A\" ; é","start":1732399000000000,"x":true}}"#
        )
        #expect(try SyncOperation(line: line) == Self.sample)
        #expect(!line.contains("\n"))
    }

    /// `line` writes its bytes itself; the JSON tree is what it must equal, escapes included.
    @Test(arguments: [
        [:], ["note": SyncValue.string("plain text, with spaces")], ["note": .string("a\u{2028}b\u{85}c\\d\"e\u{7f}\t\u{1}")],
        ["name": .string("Café ☕"), "deleted": .bool(false), "end": .int(-1), "x": .null],
    ] as [[String: SyncValue]])
    func theLineIsTheJSONTreesText(_ fields: [String: SyncValue]) throws {
        var op = Self.sample
        op.fields = fields
        #expect(op.line == op.lineThroughTree)
        #expect(try SyncOperation(line: op.line) == op)
    }

    @Test func aTombstoneIsTheDeletedField() {
        var op = Self.sample
        op.fields = [SyncOperation.deletedField: .bool(true)]
        #expect(op.isTombstone)
        #expect(!Self.sample.isTombstone)
    }

    @Test func aNoteWithEveryAwkwardCharacterStaysOnOneLine() throws {
        var op = Self.sample
        op.fields = ["note": .string("a\u{2028}b\u{85}c\\d\"e\u{7f}")]
        #expect(!op.line.contains("\n") && !op.line.contains("\u{2028}"))
        #expect(try SyncOperation(line: op.line) == op)
    }

    @Test(arguments: [
        ("", "not JSON"),
        ("[]", "not a JSON object"),
        (#"{"v":2}"#, "format"),
        (#"{"v":1,"seq":0}"#, "\"seq\""),
        (#"{"v":1,"seq":1,"op":"nope"}"#, "\"op\""),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1]}"#, "\"hlc\""),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1,-1]}"#, "\"hlc\""),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1,1],"kind":"user"}"#, "\"kind\""),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1,1],"kind":"task","id":"01900000-0000-7000-8000-000000000001","set":[]}"#, "\"set\""),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1,1],"kind":"task","id":"01900000-0000-7000-8000-000000000001","set":{"Due":1}}"#, "field name"),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1,1],"kind":"task","id":"01900000-0000-7000-8000-000000000001","set":{"due":1.5}}"#, "whole numbers"),
        (#"{"v":1,"seq":1,"op":"01900000-0001-7abc-8def-0123456789ab","dev":"0a0a0a0a-0000-4000-8000-00000000000a","hlc":[1,1],"kind":"task","id":"01900000-0000-7000-8000-000000000001","set":{"due":{}}}"#, "not a field value"),
    ])
    func aDamagedLineIsRefusedWithItsReason(_ line: String, _ reason: String) {
        #expect {
            try SyncOperation(line: line)
        } throws: { error in
            (error as? SyncLineError)?.description.contains(reason) == true
        }
    }

    @Test func anOverlongLineIsRefusedBeforeItIsParsed() {
        var op = Self.sample
        op.fields = ["note": .string(String(repeating: "x", count: SyncOperation.maxLineBytes))]
        #expect(throws: SyncLineError("the line is longer than 64 KiB")) { try SyncOperation(line: op.line) }
    }
}

@Suite struct SyncLogTests {
    @Test func segmentNamesAndOnlyThem() {
        #expect(SyncLog.segmentName(1) == "ops-000001.jsonl")
        #expect(SyncLog.segmentName(1_234_567) == "ops-1234567.jsonl")
        #expect(SyncLog.segmentIndex("ops-000042.jsonl") == 42)
        #expect(SyncLog.segmentIndex("ops-1234567.jsonl") == 1_234_567)
        for other in [
            "ops-000000.jsonl", "ops-42.jsonl", "ops-0000042.jsonl", "ops-000042.jsonl.tmp",
            "ops-000042.sync-conflict-20261123-101010-ABCDEFG.jsonl", "ops-00004x.jsonl", "device.json",
        ] {
            #expect(SyncLog.segmentIndex(other) == nil, "\(other)")
        }
    }

    @Test func onlyWholeLinesAreRead() {
        let bytes = Array("one\ntwo\nthr".utf8)
        let (lines, consumed) = SyncLog.wholeLines(bytes)
        #expect(lines == ["one", "two"])
        #expect(consumed == 8)
        // The rest is read once its newline is there.
        let more = Array(bytes[consumed...]) + Array("ee\n".utf8)
        #expect(SyncLog.wholeLines(more) == (["three"], 6))
        #expect(SyncLog.wholeLines([]) == ([], 0))
    }

    @Test func aLineThatIsNotUTF8IsMarked() {
        let (lines, consumed) = SyncLog.wholeLines([0x61, 0x0A, 0xFF, 0xFE, 0x0A, 0x62, 0x0A])
        #expect(lines == ["a", nil, "b"])
        #expect(consumed == 7)
    }
}

@Suite struct SyncMergeTests {
    static let entity = "01900000-0000-7000-8000-000000000001"

    static func op(_ seq: Int64, _ wall: Micros, _ device: String, _ fields: [String: SyncValue]) -> SyncOperation {
        var random = SplitMix(seed: UInt64(seq) &* 31 &+ UInt64(wall))
        return SyncOperation(
            sequence: seq, id: UUIDText.version7(millis: wall / 1000, using: &random),
            clock: HybridTime(wall: wall, counter: 0, device: device), entity: .project, entityID: entity, fields: fields)
    }

    /// Applies operations the way the store will: each field takes the winners' values and stamps.
    static func apply(_ ops: [SyncOperation]) -> [String: SyncValue] {
        var values: [String: SyncValue] = [:]
        var stamps: [String: FieldStamp] = [:]
        for op in ops {
            for (name, value) in SyncMerge.winners(of: op, over: stamps) {
                values[name] = value
                stamps[name] = FieldStamp(clock: op.clock, operation: op.id)
            }
        }
        return values
    }

    @Test func eachFieldTakesItsNewestValue() {
        let rename = Self.op(1, 100, deviceA, ["name": .string("A"), "color": .string("#ff0000")])
        let recolor = Self.op(1, 200, deviceB, ["color": .string("#00ff00")])
        let renameAgain = Self.op(2, 150, deviceA, ["name": .string("A2")])
        let expected: [String: SyncValue] = ["name": .string("A2"), "color": .string("#00ff00")]
        #expect(Self.apply([rename, recolor, renameAgain]) == expected)
        #expect(Self.apply([recolor, renameAgain, rename]) == expected)
        // Replaying wins nothing.
        let stamps = ["color": FieldStamp(clock: recolor.clock, operation: recolor.id)]
        #expect(SyncMerge.winners(of: recolor, over: stamps).isEmpty)
    }

    @Test func aTombstoneAndALaterEditMergeLikeAnyFields() {
        let delete = Self.op(1, 300, deviceA, [SyncOperation.deletedField: .bool(true)])
        let edit = Self.op(1, 200, deviceB, ["name": .string("B")])
        let restore = Self.op(2, 400, deviceB, [SyncOperation.deletedField: .bool(false)])
        #expect(Self.apply([edit, delete])[SyncOperation.deletedField] == .bool(true))
        #expect(Self.apply([restore, edit, delete])[SyncOperation.deletedField] == .bool(false))
    }

    /// Any order of any operations ends in the same fields.
    @Test func theOrderOfArrivalDoesNotMatter() async {
        let names = ["name", "color", "archived", SyncOperation.deletedField]
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000_000).array(of: 1...25)) { seeds in
            let ops = seeds.enumerated().map { index, seed in
                Self.op(
                    Int64(index + 1), Micros(seed % 50), seed % 2 == 0 ? deviceA : deviceB,
                    [names[seed % names.count]: .int(Int64(seed))])
            }
            var random = SplitMix(seed: UInt64(seeds.count * 7919 + seeds[0]))
            #expect(Self.apply(ops) == Self.apply(ops.shuffled(using: &random)))
            #expect(Self.apply(ops) == Self.apply(ops + ops.reversed()))
        }
    }
}

@Suite struct SyncOverlapTests {
    typealias Stretch = SyncMerge.Stretch

    @Test func theLaterStartKeepsTheOverlap() {
        // Both timed 10:00–10:30; the desk's started at 9:00, the laptop's at 10:00.
        let desk = Stretch(id: "desk", start: 540 * minute, end: 630 * minute)
        let laptop = Stretch(id: "laptop", start: 600 * minute, end: 630 * minute)
        let (ends, overlaps) = SyncMerge.withoutOverlaps([laptop, desk])
        #expect(ends["desk"] == .some(600 * minute))
        #expect(ends["laptop"] == .some(630 * minute))
        #expect(overlaps == [SyncMerge.Overlap(cut: "desk", kept: "laptop", from: 600 * minute, to: 630 * minute)])
    }

    @Test func aNewerStartStopsTheRunningTimer() {
        let running = Stretch(id: "a", start: 0, end: nil)
        let peer = Stretch(id: "b", start: 10 * minute, end: nil)
        let (ends, overlaps) = SyncMerge.withoutOverlaps([running, peer])
        #expect(ends["a"] == .some(10 * minute))
        #expect(ends["b"] == .some(nil))
        #expect(overlaps == [SyncMerge.Overlap(cut: "a", kept: "b", from: 10 * minute, to: nil)])
    }

    @Test func stretchesThatOnlyTouchAreLeftAlone() {
        let (ends, overlaps) = SyncMerge.withoutOverlaps([
            Stretch(id: "a", start: 0, end: 5), Stretch(id: "b", start: 5, end: 9), Stretch(id: "c", start: 9, end: nil),
        ])
        #expect(overlaps.isEmpty)
        #expect(ends["a"] == .some(5) && ends["b"] == .some(9) && ends["c"] == .some(nil))
    }

    @Test func ofTwoThatStartedTogetherTheGreaterIdKeeps() {
        let (ends, _) = SyncMerge.withoutOverlaps([Stretch(id: "b", start: 7, end: 20), Stretch(id: "a", start: 7, end: 30)])
        #expect(ends["a"] == .some(7))
        #expect(ends["b"] == .some(20))
    }

    /// Whatever the stretches, none overlap afterwards, none grows, and the order given does not matter.
    @Test func noOverlapIsLeftAndTheOrderDoesNotMatter() async {
        await propertyCheck(count: 400, input: Gen.int(in: 0...200).array(of: 1...30)) { values in
            let stretches = values.enumerated().map { index, value in
                Stretch(id: "s\(index)", start: Micros(value), end: value % 7 == 0 ? nil : Micros(value + 1 + value % 13))
            }
            let (ends, overlaps) = SyncMerge.withoutOverlaps(stretches)
            var random = SplitMix(seed: UInt64(values.reduce(0, +)))
            #expect(SyncMerge.withoutOverlaps(stretches.shuffled(using: &random)).ends == ends)
            // `cuts` names exactly the stretches whose end changed, with their new end.
            let (cut, cutOverlaps) = SyncMerge.cuts(stretches.shuffled(using: &random))
            #expect(cutOverlaps == overlaps)
            #expect(Set(cut.map(\.id)) == Set(stretches.filter { ends[$0.id]! != $0.end }.map(\.id)))
            for stretch in cut { #expect(ends[stretch.id]! == stretch.end) }
            let after = stretches.map { Stretch(id: $0.id, start: $0.start, end: ends[$0.id]!) }
                .filter { stretch in stretch.end.map { $0 > stretch.start } ?? true }
                .sorted { $0.start < $1.start }
            for (a, b) in zip(after, after.dropFirst()) {
                #expect(a.end.map { $0 <= b.start } == true, "\(a) overlaps \(b)")
            }
            for stretch in stretches {
                if let end = stretch.end { #expect(ends[stretch.id]!.map { $0 <= end } == true) }
            }
        }
    }
}

@Suite struct SyncIdentityTests {
    @Test func aFolderThatKnowsMoreUnderThisIdMeansACopy() {
        #expect(!SyncMerge.identityIsShared(localLast: nil, folderLast: nil))
        #expect(!SyncMerge.identityIsShared(localLast: (4, "x"), folderLast: (4, "x")))
        #expect(!SyncMerge.identityIsShared(localLast: (4, "x"), folderLast: (2, "w")))
        #expect(SyncMerge.identityIsShared(localLast: (4, "x"), folderLast: (5, "y")))
        #expect(SyncMerge.identityIsShared(localLast: (4, "x"), folderLast: (4, "z")))
        #expect(SyncMerge.identityIsShared(localLast: nil, folderLast: (1, "a")))
    }
}
