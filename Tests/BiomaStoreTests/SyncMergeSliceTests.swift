import BiomaCore
import Foundation
import GRDB
import Testing

@testable import BiomaStore
import StoreTestSupport

/// A peer's long log merged in slices, as the daemon reads it: rows go in groups per statement
/// (64, 16, 4 and 1), and a slice's entities and the stamps they hold are read a group to a
/// query before it. However the log is cut, the history is the peer's.
@Suite struct SyncMergeSliceTests {
    static let now = t("2026-11-20T12:00:00+01:00")

    /// Each way of cutting `count` operations: the slices' sizes.
    static func slicings(_ count: Int) -> [[Int]] {
        var uneven: [Int] = []
        var left = count
        for size in [1, 63, 64, 65, 5, 130, 17] where left > 0 {
            uneven.append(min(size, left))
            left -= min(size, left)
        }
        if left > 0 { uneven.append(left) }
        return [[count], uneven, Array(repeating: 1, count: count)]
    }

    @Test func groupsCoverEveryRowOnceInOrder() {
        for count in 0...(StoreHistory.insertRows * 2 + 30) {
            let groups = DirectBinding.rowGroups(count)
            #expect(groups.flatMap { Array($0) } == Array(0..<count), "\(count) rows")
            #expect(groups.allSatisfy { DirectBinding.groupSizes.contains($0.count) }, "\(count) rows")
        }
    }

    /// An operation that comes again in one read (a log copied into itself) is applied once,
    /// whether it comes again within a group of stamps recorded together or in a later one.
    @Test func anOperationTwiceInOneReadIsAppliedOnce() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.now)
            _ = try pair.a.imports.importIntervals(BulkInsertTests.items(StoreHistory.insertRows + 6), format: .timewarrior, at: Self.now)
            try BulkInsertTests.drainBacklog(of: pair.a)
            let device = try pair.id(pair.a)
            let log = pair.logs[device]!
            let reader = try Tracker(dataDirectory: dir.appendingPathComponent("reader"), rules: berlin, now: Self.now, bootID: boot)
            try reader.sync.enable(folder: "/sync", name: "R")
            let doubled = Array(log.prefix(3)) + Array(log.prefix(3)) + log
            let merged = try reader.sync.merge(doubled, peer: SyncPeerState(device: device), at: Self.now)
            #expect(merged.operations == log.count)
            #expect(try reader.history.exportCSV(from: nil, to: nil, at: Self.now) == pair.export(pair.a, at: Self.now))
        }
    }

    /// A log read again from its start after part of it was merged: the stamps recorded
    /// together for a group fail as one where one is here already, and are recorded one by
    /// one; only those not applied before are applied, and every stamp names its operation.
    @Test func aLogReadAgainAppliesOnlyWhatWasNotApplied() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.now)
            _ = try pair.a.imports.importIntervals(BulkInsertTests.items(StoreHistory.insertRows * 3), format: .timewarrior, at: Self.now)
            try BulkInsertTests.drainBacklog(of: pair.a)
            let device = try pair.id(pair.a)
            let log = pair.logs[device]!
            let reader = try Tracker(dataDirectory: dir.appendingPathComponent("reader"), rules: berlin, now: Self.now, bootID: boot)
            try reader.sync.enable(folder: "/sync", name: "R")
            // A few at the start, and one in the middle of what a later group takes.
            let early = Array(log.prefix(5)) + [log[StoreHistory.insertRows + 7]]
            #expect(try reader.sync.merge(early, peer: SyncPeerState(device: device), at: Self.now).operations == early.count)
            #expect(try reader.sync.merge(log, peer: SyncPeerState(device: device), at: Self.now).operations == log.count - early.count)
            #expect(try reader.sync.merge(log, peer: SyncPeerState(device: device), at: Self.now).operations == 0)
            #expect(try reader.history.exportCSV(from: nil, to: nil, at: Self.now) == pair.export(pair.a, at: Self.now))
            let stamps = try reader.database.read { db in
                try Row.fetchAll(db, sql: "SELECT op, wall, counter FROM sync_stamp WHERE device = ?", arguments: [device])
            }
            let byID = Dictionary(uniqueKeysWithValues: log.map { ($0.id, $0.clock) })
            #expect(stamps.count == log.count)
            for row in stamps {
                let clock = byID[row["op"] as String]
                #expect(clock?.wall == row["wall"] && Int64(clock?.counter ?? 0) == row["counter"])
            }
        }
    }

    /// A merge on a worker runs with its connection's triggers off, and they stay off for the
    /// merge's next slice on that connection; the next other write turns them on first, so
    /// what it changes is recorded as this device's operation as always.
    @Test func aMergeOnAWorkerTurnsTheTriggersOffUntilTheNextOtherWrite() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.now)
            _ = try pair.a.imports.importIntervals(BulkInsertTests.items(40), format: .timewarrior, at: Self.now)
            try BulkInsertTests.drainBacklog(of: pair.a)
            let device = try pair.id(pair.a)
            let log = pair.logs[device]!
            let worker = try Tracker(workerFor: pair.b) { false }
            defer { worker.close() }
            var peer = SyncPeerState(device: device)
            _ = try worker.sync.merge(Array(log.prefix(20)), peer: peer, at: Self.now)
            #expect(worker.lent?.triggersOff == true)
            peer.sequence = 20
            #expect(try worker.sync.merge(Array(log.dropFirst(20)), peer: peer, at: Self.now).operations == log.count - 20)
            #expect(worker.lent?.triggersOff == true)
            #expect(try worker.history.exportCSV(from: nil, to: nil, at: Self.now) == pair.export(pair.a, at: Self.now))
            var recorded: [SyncOperation] = []
            worker.onSyncOperations = { recorded += $0 }
            _ = try worker.catalog.addProject(name: "Written after the merge", color: "#34C759", at: Self.now + 1)
            #expect(worker.lent?.triggersOff == false)
            #expect(recorded.map(\.entity) == [.project])
            #expect(recorded.first?.fields["name"] == .string("Written after the merge"))
        }
    }

    @Test func aLongHistoryMergesTheSameHoweverItIsCut() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.now)
            let count = StoreHistory.insertRows * 2 + 21
            // Created, all deleted, created again (the replay of a device that imported,
            // reset, and imported again), then one changed and one deleted.
            _ = try pair.a.imports.importIntervals(BulkInsertTests.items(count), format: .timewarrior, at: Self.now)
            try BulkInsertTests.drainBacklog(of: pair.a)
            try pair.a.history.reset(at: Self.now)
            try BulkInsertTests.drainBacklog(of: pair.a)
            let again = BulkInsertTests.first + 400 * hour
            let added = try pair.a.imports.importIntervals(BulkInsertTests.items(count, from: again), format: .timewarrior, at: Self.now)
            try BulkInsertTests.drainBacklog(of: pair.a)
            let ids = added.addedIDs.sorted()
            try pair.a.edits.deleteInterval(String(ids[3]), at: Self.now)
            _ = try pair.a.edits.addInterval(
                start: again - 3 * hour, end: again - 2 * hour, project: nil, note: "added late", replace: false, at: Self.now)
            let source = try pair.export(pair.a, at: Self.now)
            let device = try pair.id(pair.a)
            let log = pair.logs[device]!
            #expect(log.count > count * 3)
            for (index, sizes) in Self.slicings(log.count).enumerated() {
                let reader = try Tracker(
                    dataDirectory: dir.appendingPathComponent("reader\(index)"), rules: berlin, now: Self.now, bootID: boot)
                try reader.sync.enable(folder: "/sync", name: "R")
                var start = 0
                var applied = 0
                for size in sizes {
                    let merged = try reader.sync.merge(
                        Array(log[start..<start + size]), peer: SyncPeerState(device: device), at: Self.now)
                    applied += merged.operations
                    start += size
                }
                #expect(applied == log.count, "slices \(sizes.prefix(8))")
                #expect(try reader.history.exportCSV(from: nil, to: nil, at: Self.now) == source, "slices \(sizes.prefix(8))")
                // Read again (a cursor lost): every operation is known, nothing changes.
                let twice = try reader.sync.merge(log, peer: SyncPeerState(device: device), at: Self.now)
                #expect(twice.operations == 0)
                #expect(try reader.history.exportCSV(from: nil, to: nil, at: Self.now) == source)
                let rows = try reader.queryStringsForTesting("SELECT count(*) FROM interval")
                #expect(rows == ["\(count)"])
            }
        }
    }
}
