import BiomaCore
import Foundation
import GRDB

/// This device as sync knows it.
public struct SyncDevice: Sendable, Equatable {
    /// A random UUID, kept in the store (the data folder), never in the sync folder.
    public var id: String
    public var name: String
    /// The sync folder; nil while sync is off.
    public var folder: String?
    /// The last operation this device wrote: its sequence number (0: none) and id.
    public var lastSequence: Int64
    public var lastOperation: String?
}

/// A peer as this device has read it.
public struct SyncPeerState: Sendable, Equatable {
    public var device: String
    public var segment: Int
    public var offset: Int
    /// The sequence number of the last operation read from it (0: none).
    public var sequence: Int64
    /// The clock's wall time of its last operation read.
    public var lastOperation: Micros?
    /// What stopped its reading (damage, named by file and byte); nil when none.
    public var problem: String?

    public init(device: String, segment: Int = 1, offset: Int = 0, sequence: Int64 = 0, lastOperation: Micros? = nil, problem: String? = nil) {
        (self.device, self.segment, self.offset) = (device, segment, offset)
        (self.sequence, self.lastOperation, self.problem) = (sequence, lastOperation, problem)
    }
}

/// What a merge of peers' operations did.
public struct SyncMerged: Sendable, Equatable {
    /// Operations newly applied (those applied before are skipped and not counted).
    public var operations = 0
    /// Overlaps it resolved that both devices had timed (not a run stopped by a newer start):
    /// the kept interval's device, the cut one's, and the time both had.
    public var overlaps: [(kept: String, cut: String, from: Micros, to: Micros)] = []
    /// Whether what runs here changed.
    public var runChanged = false

    public init() {}

    public static func == (a: SyncMerged, b: SyncMerged) -> Bool {
        a.operations == b.operations && a.runChanged == b.runChanged
            && a.overlaps.map { "\($0)" } == b.overlaps.map { "\($0)" }
    }
}

/// The sync part of the tracker's memory (loaded from `sync_self`).
struct SyncJournal {
    var device: SyncDevice?
    var clock: HybridClock?
    /// Sequence numbers up to this one are in the folder (their outbox rows can go).
    var written: Int64 = 0
    /// Recorded changes wait in `sync_change` beyond what the last write stamped (a bulk
    /// change: `StoreSync.drainSlice`).
    var backlog = false
    var recording: Bool { device?.folder != nil }
}

// Sync, part 4: the store. Changes become operations in the transaction that makes them
// (triggers record them in `sync_change`; `drainChanges` stamps them before the commit); a
// peer's operations are merged in one transaction per batch.
/// This device's sync identity and clock, its operations (stamped in every write, the backlog
/// a slice at a time, the outbox) and a peer's merge.
public struct StoreSync: StorePart {
    let tracker: Tracker
}

extension StoreSync {
    /// How many recorded changes one write makes into operations at most.
    public static let drainSlice = 500

    /// Whether recorded changes wait to be made into operations (`drainBacklog`).
    public var hasBacklog: Bool { tracker.syncJournal.backlog && tracker.syncJournal.recording }

    /// At most this many of a backlog's changes are made into operations in one slice that
    /// has a time budget (`drainBacklog(enough:)`), more than the daemon's 10 ms allow on
    /// this machine: the daemon appends each slice's operations to the folder on its loop, so a
    /// slice stays short there too, however fast the machine.
    public static let budgetedDrainSlice = 2_000

    /// Makes the next waiting changes into operations, in one transaction, and hands them to
    /// `onSyncOperations`: `drainSlice` of them, or, given `enough` (asked after each: the
    /// daemon's time budget per turn of its loop), as many as it allows, up to
    /// `budgetedDrainSlice`.
    public func drainBacklog(enough: (() -> Bool)? = nil) throws {
        guard hasBacklog else { return }
        try writeOrThrow(stamping: .backlog(limit: enough == nil ? StoreSync.drainSlice : StoreSync.budgetedDrainSlice, enough: enough)) { _ in }
    }

    /// Makes every waiting change into operations, in one transaction: before a merge, which
    /// weighs a peer's fields against the stamps of what is recorded here (the daemon merges
    /// once the backlog is gone; this keeps the rule for any other caller).
    func drainWholeBacklog() throws {
        guard hasBacklog else { return }
        try writeOrThrow(stamping: .backlog(limit: nil, enough: nil)) { _ in }
    }

    // MARK: This device

    /// This device's id and name (made on first use: a new random id), and the folder when on.
    public func device() throws -> SyncDevice {
        if let device = tracker.syncJournal.device { return device }
        var generator = SystemRandomNumberGenerator()
        let id = UUIDText.version4(using: &generator)
        let name = Self.defaultDeviceName()
        try writeOrThrow { db in
            try db.execute(sql: "INSERT OR IGNORE INTO sync_self (id, device, name) VALUES (1, ?, ?)", arguments: [id, name])
        }
        try load()
        guard let device = tracker.syncJournal.device else { throw TrackerError.storage("The sync identity was not kept.") }
        return device
    }

    /// This device as last read or made (nil before `device()` first ran): no store access.
    public var knownDevice: SyncDevice? { tracker.syncJournal.device }

    static func defaultDeviceName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "this machine" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "this machine" : name
    }

    func load() throws {
        let (row, waiting) = try readOrThrow { db in
            (
                try Row.fetchOne(
                    db, sql: "SELECT device, name, folder, last_seq, last_op, hlc_wall, hlc_counter FROM sync_self WHERE id = 1"),
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_change)") ?? false
            )
        }
        guard let row else {
            tracker.syncJournal = SyncJournal()
            return
        }
        let device = SyncDevice(id: row[0], name: row[1], folder: row[2], lastSequence: row[3], lastOperation: row[4])
        let counter: Int64 = row[6]
        tracker.syncJournal.device = device
        tracker.syncJournal.clock = HybridClock(
            device: device.id, last: HybridTime(wall: row[5], counter: UInt32(clamping: counter), device: device.id))
        // Changes a bulk write left (the daemon stopped before they were all stamped).
        tracker.syncJournal.backlog = waiting && tracker.syncJournal.recording
    }

    /// Turns sync on for `folder` under `name`: from now on every change is also an
    /// operation. The first time (no operation written yet), the whole store is written once
    /// as operations, so that two machines with histories of their own can be joined.
    /// Returns the operations to append to the folder (the snapshot).
    public func enable(folder: String, name: String) throws {
        _ = try device()
        tracker.syncJournal.device?.folder = folder
        try writeOrThrow { db in
            try db.execute(
                sql: "UPDATE sync_self SET folder = ?, name = ?, recording = 1 WHERE id = 1", arguments: [folder, name])
            if try Int64.fetchOne(db, sql: "SELECT last_seq FROM sync_self WHERE id = 1") == 0 {
                for table in SyncTable.all { try db.execute(sql: table.snapshotSQL) }
            }
        }
        try load()
    }

    /// Turns sync off: changes are no longer recorded; the folder is left as it is. Changes
    /// recorded while it was on and not yet stamped (a bulk change's backlog) wait in the store
    /// and are stamped when it is turned on again.
    public func disable() throws {
        try writeOrThrow { db in try db.execute(sql: "UPDATE sync_self SET folder = NULL, recording = 0 WHERE id = 1") }
        try load()
    }

    /// A new id for this device (its data folder was copied from another machine that writes
    /// under the old one): its log starts again at 1 under the new id.
    public func renewDevice() throws -> SyncDevice {
        var generator = SystemRandomNumberGenerator()
        let id = UUIDText.version4(using: &generator)
        try writeOrThrow { db in
            try db.execute(
                sql: "UPDATE sync_self SET device = ?, last_seq = 0, last_op = NULL WHERE id = 1", arguments: [id])
            try db.execute(sql: "DELETE FROM sync_outbox")
        }
        try load()
        return try device()
    }

    /// This device's operations not yet known to be in the folder, after `sequence`.
    public func outbox(after sequence: Int64) throws -> [SyncOperation] {
        try readOrThrow { db in
            try String.fetchAll(db, sql: "SELECT line FROM sync_outbox WHERE seq > ? ORDER BY seq", arguments: [sequence])
        }.map { line in
            do { return try SyncOperation(line: line) } catch {
                throw TrackerError.storage("An operation waiting for the sync folder is damaged: \(error)")
            }
        }
    }

    /// The folder holds this device's operations up to `sequence`: the outbox rows up to it
    /// are dropped with the next change.
    public func written(upTo sequence: Int64) { tracker.syncJournal.written = max(tracker.syncJournal.written, sequence) }

    /// The last of this device's operations known to be in the folder (0 before the first
    /// write or catch-up of this run).
    public var writtenSequence: Int64 { tracker.syncJournal.written }

    // MARK: Peers

    public func peers() throws -> [SyncPeerState] {
        try readOrThrow { db in
            try Row.fetchAll(
                db, sql: "SELECT device, segment, offset, sequence, last_op_us, problem FROM sync_peer ORDER BY device"
            ).map {
                SyncPeerState(
                    device: $0[0], segment: $0[1], offset: $0[2], sequence: $0[3], lastOperation: $0[4], problem: $0[5])
            }
        }
    }
}
