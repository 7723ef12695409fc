import BiomaCore
import BiomaSync
import Foundation
import TestSupport
import Testing

/// A peer's log is read with bounds: no line longer than 64 KiB is taken, and one read holds
/// at most about its limit of the log, however long the log is; the next read goes on from
/// where it stopped.
@Suite struct BoundedReadTests {
    let root: URL

    init() throws { root = try makeTemporaryDirectory("biomatimer-sync") }

    /// A peer wrote an operation whose line is 100 KiB (a note pasted whole): damage at that
    /// line's first byte, the lines before it taken, the cursor waiting before it; with or
    /// without its newline, and read whole or in steps smaller than the line.
    @Test func aHundredKiBLineIsDamageNamedByFileAndByte() throws {
        let folder = SyncFolder(root: root.path)
        try folder.prepare(device: deviceB, name: "B")
        let good = lines(operations(1...3, device: deviceB))
        let long = operations(4...4, device: deviceB, padding: 100 * 1024)[0].line
        #expect(long.utf8.count > 100 * 1024)
        let at = good.utf8.count
        for tail in ["\n" + lines(operations(5...5, device: deviceB)), "\n", ""] {
            try Data((good + long + tail).utf8).write(to: URL(fileURLWithPath: folder.segmentPath(of: deviceB, 1)))
            for limit in [4 << 20, 1] {
                var cursor = SyncCursor()
                var read: [SyncOperation] = []
                var problem: String?
                for _ in 0..<10 {
                    let batch = folder.read(deviceB, from: cursor, limit: limit)
                    read += batch.operations
                    cursor = batch.cursor
                    problem = batch.problem
                    if problem != nil || !batch.more { break }
                }
                #expect(problem == "ops-000001.jsonl byte \(at): the line is longer than 64 KiB", "tail \(tail.count), limit \(limit)")
                #expect(read == operations(1...3, device: deviceB))
                #expect(cursor == SyncCursor(segment: 1, offset: at, sequence: 3))
                // Read again from there: the same damage, nothing more taken.
                let again = folder.read(deviceB, from: cursor, limit: limit)
                #expect(again.operations.isEmpty && again.cursor == cursor && again.problem == problem)
            }
        }
    }

    /// A peer's log of over 8 MiB in three segments, read with the daemon's default limit: each
    /// read takes at most 4 MiB of it and says there is more, and the reads together take every
    /// operation once, in order.
    @Test func aLargeLogIsReadWholeInBoundedSteps() throws {
        let folder = SyncFolder(root: root.path, linesPerSegment: 60)
        try folder.prepare(device: deviceB, name: "B")
        let written = operations(1...150, device: deviceB, padding: 60_000)
        try folder.append(written, device: deviceB)
        let size = written.map { $0.line.utf8.count + 1 }  // by sequence - 1
        #expect(size.reduce(0, +) > 8 << 20)
        var cursor = SyncCursor()
        var read: [SyncOperation] = []
        var calls = 0
        while calls < 20 {
            let batch = folder.read(deviceB, from: cursor)
            calls += 1
            #expect(batch.problem == nil)
            let taken = batch.operations.reduce(0) { $0 + size[Int($1.sequence) - 1] }
            #expect(taken <= 4 << 20, "call \(calls) took \(taken) bytes")
            read += batch.operations
            cursor = batch.cursor
            if !batch.more { break }
        }
        #expect(read.map(\.sequence) == written.map(\.sequence))
        #expect(read == written)
        #expect(calls >= 3)
        #expect(cursor == SyncCursor(segment: 3, offset: folder.segmentSize(deviceB, 3), sequence: 150))
        // Nothing new: nothing more read.
        let after = folder.read(deviceB, from: cursor)
        #expect(after.operations.isEmpty && !after.more && after.problem == nil && after.cursor == cursor)
    }
}

extension SyncFolder {
    fileprivate func segmentSize(_ device: String, _ index: Int) -> Int {
        var status = stat()
        return stat(segmentPath(of: device, index), &status) == 0 ? Int(status.st_size) : -1
    }
}
