import BiomaCore
import BiomaSync
import Foundation
import TestSupport
import Testing

@Suite struct SyncFolderTests {
    let root: URL
    let folder: SyncFolder

    init() throws {
        root = try makeTemporaryDirectory("biomatimer-sync")
        folder = SyncFolder(root: root.path, linesPerSegment: 5)
    }

    func text(_ relative: String) throws -> String { try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8) }

    @Test func preparingWritesTheDeviceCardAndTheIgnorePatterns() throws {
        try folder.prepare(device: deviceA, name: "Desk \"1\"")
        #expect(try text(".stignore") == "// biomatimer: its database never travels\n*.sqlite*\n*.tmp\n")
        #expect(try text("devices/\(deviceA)/device.json") == #"{"id":"0a0a0a0a-0000-4000-8000-00000000000a","name":"Desk \"1\""}"# + "\n")
        #expect(folder.name(of: deviceA) == "Desk \"1\"")
        // Again: nothing added twice; a user's own patterns are kept.
        try "(?d).DS_Store\n*.sqlite*\n".write(to: root.appendingPathComponent(".stignore"), atomically: true, encoding: .utf8)
        try folder.prepare(device: deviceA, name: "Desk")
        #expect(try text(".stignore") == "(?d).DS_Store\n*.sqlite*\n// biomatimer: its database never travels\n*.tmp\n")
        try folder.prepare(device: deviceA, name: "Desk")
        #expect(try text(".stignore") == "(?d).DS_Store\n*.sqlite*\n// biomatimer: its database never travels\n*.tmp\n")
        // No temporary file is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path + "/devices/" + deviceA)
        #expect(names == ["device.json"])
    }

    @Test func aFolderThatIsMissingOrAFileIsNamed() throws {
        #expect(throws: SyncFolderError("\(root.path)/nope: No such file or directory")) {
            try SyncFolder(root: root.path + "/nope").prepare(device: deviceA, name: "x")
        }
        #expect(FileManager.default.createFile(atPath: root.path + "/file", contents: Data()))
        #expect(throws: SyncFolderError("\(root.path)/file is not a folder")) {
            try SyncFolder(root: root.path + "/file").prepare(device: deviceA, name: "x")
        }
    }

    @Test func peersAreTheOtherDevicesDirectories() throws {
        try folder.prepare(device: deviceA, name: "A")
        try folder.prepare(device: deviceB, name: "B")
        try FileManager.default.createDirectory(atPath: root.path + "/devices/not-a-device", withIntermediateDirectories: true)
        #expect(folder.peers(except: deviceA) == [deviceB])
        #expect(folder.peers(except: deviceB) == [deviceA])
    }

    @Test func appendedOperationsFillSegmentsAndReadBackInOrder() throws {
        try folder.prepare(device: deviceA, name: "A")
        try folder.append(Array(operations(1...3)), device: deviceA)
        try folder.append(Array(operations(4...12)), device: deviceA)
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path + "/devices/" + deviceA).sorted()
        #expect(names == ["device.json", "ops-000001.jsonl", "ops-000002.jsonl", "ops-000003.jsonl"])
        #expect(try text("devices/\(deviceA)/ops-000002.jsonl").split(separator: "\n").count == 5)

        let batch = folder.read(deviceA, from: SyncCursor())
        #expect(batch.problem == nil && !batch.more)
        #expect(batch.operations == operations(1...12))
        #expect(batch.cursor.segment == 3 && batch.cursor.sequence == 12)
        // Nothing new: nothing read.
        let again = folder.read(deviceA, from: batch.cursor)
        #expect(again.operations.isEmpty && again.cursor == batch.cursor && again.problem == nil)
        // The next lines are read from the cursor on.
        try folder.append(operations(13...16), device: deviceA)
        let next = folder.read(deviceA, from: batch.cursor)
        #expect(next.operations == operations(13...16))
        #expect(folder.lastOperation(of: deviceA)! == (16, operations(16...16)[0].id))
    }

    @Test func aLimitReadsInBatches() throws {
        try folder.prepare(device: deviceA, name: "A")
        // 12 lines of 30 KB: a read takes at least one line's worth (64 KiB), not all.
        let written = operations(1...12, padding: 30_000)
        try folder.append(written, device: deviceA)
        var cursor = SyncCursor()
        var read: [SyncOperation] = []
        var rounds = 0
        repeat {
            let batch = folder.read(deviceA, from: cursor, limit: 1)
            #expect(batch.problem == nil)
            #expect(batch.operations.count <= 3)
            read += batch.operations
            cursor = batch.cursor
            rounds += 1
            if !batch.more { break }
        } while rounds < 100
        #expect(read.map(\.id) == written.map(\.id) && read == written)  // ids first: a short message
        #expect(rounds >= 6)
    }

    @Test func aHalfWrittenLastLineWaitsUntilItIsWhole() throws {
        try folder.prepare(device: deviceA, name: "A")
        let path = folder.segmentPath(of: deviceA, 1)
        let lines = operations(1...2).map { $0.line + "\n" }.joined()
        let cut = lines.utf8.count - 10
        try Data(lines.utf8.prefix(cut)).write(to: URL(fileURLWithPath: path))
        let first = folder.read(deviceA, from: SyncCursor())
        #expect(first.operations == operations(1...1) && first.problem == nil && !first.more)
        try Data(lines.utf8).write(to: URL(fileURLWithPath: path))
        let second = folder.read(deviceA, from: first.cursor)
        #expect(second.operations == operations(2...2) && second.problem == nil)
    }

    @Test func damageStopsThatPeerWithAMessageAndTheCursorBeforeIt() throws {
        try folder.prepare(device: deviceB, name: "B")
        let path = folder.segmentPath(of: deviceB, 1)
        let good = operations(1...2, device: deviceB).map { $0.line + "\n" }.joined()
        let cases: [(String, String)] = [
            ("garbage\n", "byte \(good.utf8.count): not JSON"),
            (operations(3...3, device: deviceA)[0].line + "\n", "written by \(deviceA), not by \(deviceB)"),
            (operations(5...5, device: deviceB)[0].line + "\n", "sequence 5 where 3 comes next"),
        ]
        for (tail, message) in cases {
            try Data((good + tail).utf8).write(to: URL(fileURLWithPath: path))
            let batch = folder.read(deviceB, from: SyncCursor())
            #expect(batch.operations == operations(1...2, device: deviceB))
            #expect(batch.problem?.contains(message) == true, "\(batch.problem ?? "no problem")")
            #expect(batch.cursor.sequence == 2 && batch.cursor.offset == good.utf8.count)
        }
        var bytes = Array(good.utf8)
        bytes += [0xFF, 0x0A]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(folder.read(deviceB, from: SyncCursor()).problem == "ops-000001.jsonl byte \(good.utf8.count): the line is not UTF-8")
    }

    @Test func aLineLongerThanAnyOperationIsDamageWithOrWithoutItsNewline() throws {
        try folder.prepare(device: deviceB, name: "B")
        let path = folder.segmentPath(of: deviceB, 1)
        for tail in ["", "\n"] {
            try Data((String(repeating: "x", count: 70_000) + tail).utf8).write(to: URL(fileURLWithPath: path))
            let batch = folder.read(deviceB, from: SyncCursor())
            #expect(batch.problem == "ops-000001.jsonl byte 0: the line is longer than 64 KiB")
            #expect(batch.operations.isEmpty && !batch.more)
        }
    }

    @Test func aFileCutShorterThanWhatWasReadIsNamed() throws {
        try folder.prepare(device: deviceB, name: "B")
        try folder.append(operations(1...3, device: deviceB), device: deviceB)
        let read = folder.read(deviceB, from: SyncCursor())
        try Data().write(to: URL(fileURLWithPath: folder.segmentPath(of: deviceB, 1)))
        let batch = folder.read(deviceB, from: read.cursor)
        #expect(batch.operations.isEmpty)
        #expect(batch.problem?.hasSuffix("it was cut") == true)
        #expect(batch.cursor == read.cursor)
    }

    @Test func aLineInTheWrongSegmentIsDamage() throws {
        try folder.prepare(device: deviceA, name: "A")
        try folder.append(operations(1...5), device: deviceA)
        // Sequence 6 belongs in segment 2; written into segment 1 it is refused.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.segmentPath(of: deviceA, 1)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((operations(6...6)[0].line + "\n").utf8))
        try handle.close()
        let batch = folder.read(deviceA, from: SyncCursor())
        #expect(batch.operations == operations(1...5))
        #expect(batch.problem?.hasSuffix("sequence 6 belongs in ops-000002.jsonl") == true)
    }

    @Test func aReadOnlyFolderFailsTheAppendWithItsPath() throws {
        try folder.prepare(device: deviceA, name: "A")
        let dir = folder.directory(of: deviceA)
        chmod(dir, 0o555)
        defer { chmod(dir, 0o755) }
        guard geteuid() != 0 else {
            // root writes anyway: check the other failure, a directory where the segment goes.
            try FileManager.default.createDirectory(atPath: folder.segmentPath(of: deviceA, 1), withIntermediateDirectories: false)
            #expect(throws: SyncFolderError("\(folder.segmentPath(of: deviceA, 1)): Is a directory")) {
                try folder.append(operations(1...1), device: deviceA)
            }
            return
        }
        #expect(throws: SyncFolderError("\(folder.segmentPath(of: deviceA, 1)): Permission denied")) {
            try folder.append(operations(1...1), device: deviceA)
        }
    }
}
