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
    /// change: `Tracker.drainSlice`).
    var backlog = false
    var recording: Bool { device?.folder != nil }
}

// Sync, part 4: the store. Changes become operations in the transaction that makes them
// (triggers record them in `sync_change`; `drainChanges` stamps them before the commit); a
// peer's operations are merged in one transaction per batch.
extension Tracker {
    // MARK: This device

    /// This device's id and name (made on first use: a new random id), and the folder when on.
    public func syncDevice() throws -> SyncDevice {
        if let device = sync.device { return device }
        var generator = SystemRandomNumberGenerator()
        let id = UUIDText.version4(using: &generator)
        let name = Self.defaultDeviceName()
        try writeOrThrow { db in
            try db.execute(sql: "INSERT OR IGNORE INTO sync_self (id, device, name) VALUES (1, ?, ?)", arguments: [id, name])
        }
        try loadSync()
        guard let device = sync.device else { throw TrackerError.storage("The sync identity was not kept.") }
        return device
    }

    /// This device as last read or made (nil before `syncDevice()` first ran): no store access.
    public var knownSyncDevice: SyncDevice? { sync.device }

    static func defaultDeviceName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "this machine" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "this machine" : name
    }

    func loadSync() throws {
        let (row, waiting) = try readOrThrow { db in
            (
                try Row.fetchOne(
                    db, sql: "SELECT device, name, folder, last_seq, last_op, hlc_wall, hlc_counter FROM sync_self WHERE id = 1"),
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_change)") ?? false
            )
        }
        guard let row else {
            sync = SyncJournal()
            return
        }
        let device = SyncDevice(id: row[0], name: row[1], folder: row[2], lastSequence: row[3], lastOperation: row[4])
        let counter: Int64 = row[6]
        sync.device = device
        sync.clock = HybridClock(
            device: device.id, last: HybridTime(wall: row[5], counter: UInt32(clamping: counter), device: device.id))
        // Changes a bulk write left (the daemon stopped before they were all stamped).
        sync.backlog = waiting && sync.recording
    }

    /// Turns sync on for `folder` under `name`: from now on every change is also an
    /// operation. The first time (no operation written yet), the whole store is written once
    /// as operations, so that two machines with histories of their own can be joined.
    /// Returns the operations to append to the folder (the snapshot).
    public func enableSync(folder: String, name: String) throws {
        _ = try syncDevice()
        sync.device?.folder = folder
        try writeOrThrow { db in
            try db.execute(
                sql: "UPDATE sync_self SET folder = ?, name = ?, recording = 1 WHERE id = 1", arguments: [folder, name])
            if try Int64.fetchOne(db, sql: "SELECT last_seq FROM sync_self WHERE id = 1") == 0 {
                for table in SyncTable.all { try db.execute(sql: table.snapshotSQL) }
            }
        }
        try loadSync()
    }

    /// Turns sync off: changes are no longer recorded; the folder is left as it is. Changes
    /// recorded while it was on and not yet stamped (a bulk change's backlog) wait in the store
    /// and are stamped when it is turned on again.
    public func disableSync() throws {
        try writeOrThrow { db in try db.execute(sql: "UPDATE sync_self SET folder = NULL, recording = 0 WHERE id = 1") }
        try loadSync()
    }

    /// A new id for this device (its data folder was copied from another machine that writes
    /// under the old one): its log starts again at 1 under the new id.
    public func renewSyncDevice() throws -> SyncDevice {
        var generator = SystemRandomNumberGenerator()
        let id = UUIDText.version4(using: &generator)
        try writeOrThrow { db in
            try db.execute(
                sql: "UPDATE sync_self SET device = ?, last_seq = 0, last_op = NULL WHERE id = 1", arguments: [id])
            try db.execute(sql: "DELETE FROM sync_outbox")
        }
        try loadSync()
        return try syncDevice()
    }

    /// This device's operations not yet known to be in the folder, after `sequence`.
    public func syncOutbox(after sequence: Int64) throws -> [SyncOperation] {
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
    public func syncWritten(upTo sequence: Int64) { sync.written = max(sync.written, sequence) }

    /// The last of this device's operations known to be in the folder (0 before the first
    /// write or catch-up of this run).
    public var syncWrittenSequence: Int64 { sync.written }

    // MARK: Peers

    public func syncPeers() throws -> [SyncPeerState] {
        try readOrThrow { db in
            try Row.fetchAll(
                db, sql: "SELECT device, segment, offset, sequence, last_op_us, problem FROM sync_peer ORDER BY device"
            ).map {
                SyncPeerState(
                    device: $0[0], segment: $0[1], offset: $0[2], sequence: $0[3], lastOperation: $0[4], problem: $0[5])
            }
        }
    }

    /// Merges a batch of `device`'s operations, read up to `peer` (its new cursor), in one
    /// transaction: operations applied before are skipped; each field keeps the value with
    /// the greatest stamp; entities are written from their merged fields; intervals are kept
    /// apart (the later start keeps an overlap, and a cut here is written as this device's
    /// operation); what runs here follows. Nothing raises a notification here: the caller
    /// says what the merge did, once.
    public func mergeSync(_ operations: [SyncOperation], peer: SyncPeerState, at now: Micros) throws -> SyncMerged {
        try drainWholeSyncBacklog()
        guard var clock = sync.clock else { throw TrackerError.invalidArgument("Sync is off.") }
        // Every later tick here (the cuts this merge records, too) orders after what it read.
        for operation in operations { clock.observe(operation.clock, physical: now) }
        sync.clock = clock
        var merged = SyncMerged()
        let before = model
        var after = model
        var stoppedAt: Micros?
        try writeOrThrow { db in
            try db.execute(sql: "UPDATE sync_self SET recording = 0 WHERE id = 1")
            var touched: [SyncEntity: Set<String>] = [:]
            // Entities first seen in this batch, with their fields: written from memory.
            var fresh: [String: [String: SyncValue]] = [:]
            // Closed intervals first seen in this batch (their span as created), and an end the
            // peer then moved earlier in the same batch: its own cut, read with the creation.
            var created: [String: (start: Micros, end: Micros)] = [:]
            var movedEnd: [String: Micros] = [:]
            let seen = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO sync_stamp (wall, counter, device, op) VALUES (?, ?, ?, ?)")
            for operation in operations {
                let clock = operation.clock
                try seen.execute(arguments: [clock.wall, Int64(clock.counter), clock.device, operation.id])
                // Applied before (its stamp is here): nothing to do.
                guard db.changesCount == 1 else { continue }
                let stampID = db.lastInsertedRowID
                merged.operations += 1
                if operation.entity == .interval, case .int(let end)? = operation.fields["end"] {
                    if let span = created[operation.entityID] {
                        if end < span.end { movedEnd[operation.entityID] = end }
                    } else if case .int(let start)? = operation.fields["start"] {
                        created[operation.entityID] = (start, end)
                    }
                }
                var merged: StampedFields
                if let current = try Self.mergedFields(db, operation.entity, operation.entityID) {
                    let winners = SyncMerge.winners(of: operation, over: try Self.stamps(db, of: current))
                    fresh[operation.entityID] = nil
                    guard !winners.isEmpty else { continue }
                    merged = current
                    merged.set(winners, stamp: stampID)
                } else {
                    guard !operation.fields.isEmpty else { continue }
                    fresh[operation.entityID] = operation.fields
                    merged = StampedFields(operation.fields, stamp: stampID)
                }
                try Self.keep(merged, operation.entity, operation.entityID, db)
                touched[operation.entity, default: []].insert(operation.entityID)
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO sync_peer (device, segment, offset, sequence, last_op_us, problem)
                        VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    peer.device, peer.segment, peer.offset, peer.sequence,
                    operations.last?.clock.wall ?? peer.lastOperation, peer.problem,
                ])
            var materializer = SyncMaterializer(db: db, fresh: fresh)
            for table in SyncTable.all where table.entity != .interval {
                for id in (touched[table.entity] ?? []).sorted() { try materializer.write(table, id) }
            }
            let openBefore = try Self.openInterval(db)
            var intervals = touched[.interval] ?? []
            intervals.formUnion(materializer.referencing)
            merged.overlaps = try materializer.writeIntervals(intervals)
            merged.overlaps += try Self.timedBeforeACut(created, movedEnd, db)
            try db.execute(
                sql: "UPDATE sync_self SET recording = 1, hlc_wall = ?, hlc_counter = ? WHERE id = 1",
                arguments: [clock.wall, Int64(clock.counter)])
            let (loaded, _, _, _) = try Self.load(db)
            after.projects = loaded.projects
            after.nextProjectNumber = loaded.nextProjectNumber
            after.tasks = loaded.tasks
            after.nextTaskNumber = loaded.nextTaskNumber
            after.presets = loaded.presets
            let openAfter = try Self.openInterval(db)
            if openAfter?.uuid != openBefore?.uuid || openAfter?.segment != openBefore?.segment {
                if let openBefore, openAfter?.uuid != openBefore.uuid {
                    stoppedAt = try Int64.fetchOne(
                        db, sql: "SELECT end_us FROM interval WHERE uuid = ?", arguments: [openBefore.uuid]) ?? openBefore.segment.start
                }
                after.state.follow(open: openAfter?.segment, stoppedAt: stoppedAt, rules: rules)
                merged.runChanged = true
                try Self.persist(before: before, after: after, bootID: bootID, now: now, db)
            }
        }
        model = after
        todayCache = nil
        focusCompletedCache = nil
        workBeforeTodayCache = nil
        return merged
    }

    /// Whether the interval running here was started by another device (with sync on): this
    /// machine's reboot does not end it.
    func openIntervalRunsOnAPeer() throws -> Bool {
        guard let me = sync.device, me.folder != nil else { return false }
        return try readOrThrow { db in
            guard let open = try Self.openInterval(db), let starter = try Self.starter(ofInterval: open.uuid, db) else {
                return false
            }
            return starter != me.id
        }
    }

    /// The device that started `interval`: the writer of its merged `start`; nil when no
    /// operation has named it here.
    /// The time both devices timed, when a peer's log says it in two operations read at once:
    /// the peer created an interval and then cut it at the start of one of ours (the later-
    /// started keeps the time), so that once merged nothing overlaps any more. The peer said
    /// so when it cut; this device says so too, as it would have had it read the creation
    /// alone. (An end moved to where nothing here starts is an edit, not a cut.)
    static func timedBeforeACut(
        _ created: [String: (start: Micros, end: Micros)], _ movedEnd: [String: Micros], _ db: Database
    ) throws -> [(kept: String, cut: String, from: Micros, to: Micros)] {
        var found: [(kept: String, cut: String, from: Micros, to: Micros)] = []
        for (id, cutAt) in movedEnd.sorted(by: { $0.key < $1.key }) {
            guard let span = created[id], cutAt > span.start,
                try Micros.fetchOne(db.cachedStatement(sql: "SELECT end_us FROM interval WHERE uuid = ?"), arguments: [id]) == cutAt,
                let other = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT uuid, end_us FROM interval WHERE start_us = ? AND uuid != ?"),
                    arguments: [cutAt, id])
            else { continue }
            let (keptID, keptEnd): (String, Micros?) = (other[0], other[1])
            let to = min(span.end, keptEnd ?? span.end)
            guard to > cutAt else { continue }
            found.append((try starter(ofInterval: keptID, db) ?? "", try starter(ofInterval: id, db) ?? "", cutAt, to))
        }
        return found
    }

    static func starter(ofInterval interval: String, _ db: Database) throws -> String? {
        guard let stamp = try mergedFields(db, .interval, interval)?.fields["start"]?.stamp else { return nil }
        return try String.fetchOne(db.cachedStatement(sql: "SELECT device FROM sync_stamp WHERE id = ?"), arguments: [stamp])
    }

    static func openInterval(_ db: Database) throws -> (uuid: String, segment: OpenSegment)? {
        try Row.fetchOne(db, sql: "SELECT uuid, start_us, project_id FROM interval WHERE end_us IS NULL").map {
            ($0[0], OpenSegment(start: $0[1], projectID: $0[2]))
        }
    }

    /// An entity's merged fields with their stamps; nil when no operation has named it here.
    static func mergedFields(_ db: Database, _ entity: SyncEntity, _ id: String) throws -> StampedFields? {
        let text = try String.fetchOne(
            db.cachedStatement(sql: "SELECT fields FROM sync_entity WHERE kind = ? AND uuid = ?"),
            arguments: [entity.rawValue, id])
        guard let text else { return nil }
        do { return try StampedFields(text: text) } catch {
            throw TrackerError.storage("The merged fields of \(entity.rawValue) \(id) are damaged: \(error)")
        }
    }

    /// Keeps `fields` as the entity's merged fields: one row.
    static func keep(_ fields: StampedFields, _ entity: SyncEntity, _ id: String, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO sync_entity (kind, uuid, fields) VALUES (?, ?, ?)")
            .execute(arguments: [entity.rawValue, id, fields.text])
    }

    /// The operation (clock and id) behind each of `fields`.
    static func stamps(_ db: Database, of fields: StampedFields) throws -> [String: FieldStamp] {
        let statement = try db.cachedStatement(sql: "SELECT wall, counter, device, op FROM sync_stamp WHERE id = ?")
        var read: [Int64: FieldStamp] = [:]
        var stamps: [String: FieldStamp] = [:]
        for (name, field) in fields.fields {
            if read[field.stamp] == nil {
                guard let row = try Row.fetchOne(statement, arguments: [field.stamp]) else {
                    throw TrackerError.storage("A merged field names stamp \(field.stamp), which is not kept.")
                }
                let counter: Int64 = row[1]
                read[field.stamp] = FieldStamp(
                    clock: HybridTime(wall: row[0], counter: UInt32(clamping: counter), device: row[2]), operation: row[3])
            }
            stamps[name] = read[field.stamp]
        }
        return stamps
    }

    // MARK: Inside every write

    /// Makes the oldest `limit` changes the triggers recorded (in this transaction or, for a
    /// backlog, in earlier ones) into this device's next operations: stamped with the hybrid
    /// clock, kept in the outbox (until the folder has them) and as the fields' stamps. Returns
    /// them, to append to the folder after the commit. `enough`, asked after each operation,
    /// ends the slice early (a time budget). What is left stays in `sync_change`, in order, for
    /// the next write (`journal.backlog`).
    static func drainChanges(
        _ db: Database, _ journal: inout SyncJournal, physical: Micros, limit: Int? = Tracker.drainSlice,
        enough: (() -> Bool)? = nil
    ) throws -> [SyncOperation] {
        guard journal.recording, var clock = journal.clock, var device = journal.device else { return [] }
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT seq, kind, uuid, fields FROM sync_change ORDER BY seq LIMIT ?"),
            arguments: [limit ?? -1])
        journal.backlog = false
        guard !rows.isEmpty else { return [] }
        var lastSeq: Int64 = 0
        var generator = SystemRandomNumberGenerator()
        var operations: [SyncOperation] = []
        operations.reserveCapacity(rows.count)
        let outbox = try db.cachedStatement(sql: "INSERT INTO sync_outbox (seq, line) VALUES (?, ?)")
        let stamp = try db.cachedStatement(sql: "INSERT INTO sync_stamp (wall, counter, device, op) VALUES (?, ?, ?, ?)")
        for row in rows {
            let kind: String = row[1]
            let text: String = row[3]
            guard let entity = SyncEntity(rawValue: kind) else { throw TrackerError.storage("A recorded change names `\(kind)`.") }
            let fields: [String: SyncValue]
            do { fields = try SyncOperation.fields(text: text) } catch {
                throw TrackerError.storage("A recorded change is damaged: \(error)")
            }
            let time = clock.tick(physical: physical)
            let operation = SyncOperation(
                sequence: device.lastSequence + 1, id: UUIDText.version7(millis: time.wall / 1000, using: &generator),
                clock: time, entity: entity, entityID: row[2], fields: fields)
            device.lastSequence = operation.sequence
            device.lastOperation = operation.id
            try outbox.execute(arguments: [operation.sequence, operation.line])
            try stamp.execute(arguments: [time.wall, Int64(time.counter), time.device, operation.id])
            let stampID = db.lastInsertedRowID
            if !fields.isEmpty {
                var merged = try mergedFields(db, entity, operation.entityID) ?? StampedFields()
                merged.set(fields, stamp: stampID)
                try keep(merged, entity, operation.entityID, db)
            }
            operations.append(operation)
            lastSeq = row[0]
            if let enough, enough() { break }
        }
        try db.cachedStatement(sql: "DELETE FROM sync_change WHERE seq <= ?").execute(arguments: [lastSeq])
        try db.cachedStatement(sql: "DELETE FROM sync_outbox WHERE seq <= ?").execute(arguments: [journal.written])
        try db.cachedStatement(
            sql: "UPDATE sync_self SET last_seq = ?, last_op = ?, hlc_wall = ?, hlc_counter = ? WHERE id = 1"
        ).execute(arguments: [device.lastSequence, device.lastOperation, clock.wall, Int64(clock.counter)])
        // A slice its budget ended left rows it read; a full one may have left more.
        journal.backlog =
            try operations.count < rows.count
            || (rows.count == limit && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_change)") ?? false)
        journal.clock = clock
        journal.device = device
        return operations
    }
}

/// Writes entities from their merged fields (`sync_entity`), with this device's local ids.
/// Its writes are not recorded as operations (the merge turns recording off), except the cuts
/// that keep intervals apart, which it records itself.
struct SyncMaterializer {
    let db: Database
    /// Entities this merge saw for the first time, with all their fields (no need to read them).
    let fresh: [String: [String: SyncValue]]
    /// Intervals that name a project this merge made: written again now that it exists.
    var referencing: Set<String> = []

    init(db: Database, fresh: [String: [String: SyncValue]] = [:]) {
        self.db = db
        self.fresh = fresh
    }

    func fields(_ entity: SyncEntity, _ id: String) throws -> [String: SyncValue] {
        if let known = fresh[id] { return known }
        return try Tracker.mergedFields(db, entity, id)?.values ?? [:]
    }

    /// Project UUID → local id, as read in this merge (projects are written before intervals).
    private final class ProjectIDs { var known: [String: String?] = [:] }
    private let projectIDs = ProjectIDs()

    /// The local id of the project `value` names, for `entity` `id`; an entity naming a
    /// project not here yet waits for it (`sync_waiting`) and is written again when it comes.
    func localProject(_ value: SyncValue?, for entity: SyncEntity, _ id: String) throws -> String? {
        guard case .string(let uuid)? = value else { return nil }
        let local: String?
        if let known = projectIDs.known[uuid] {
            local = known
        } else {
            local = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM project WHERE uuid = ?"), arguments: [uuid])
            projectIDs.known[uuid] = local
        }
        if local == nil {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO sync_waiting (project, kind, uuid) VALUES (?, ?, ?)")
                .execute(arguments: [uuid, entity.rawValue, id])
        }
        return local
    }

    func databaseValue(_ value: SyncValue?, _ column: SyncTable.Column, for entity: SyncEntity, _ id: String) throws
        -> (any DatabaseValueConvertible)?
    {
        if column.projectReference { return try localProject(value, for: entity, id) }
        if column.clientReference {
            // Clients are written before projects; one not here (deleted meanwhile) is none.
            guard case .string(let uuid)? = value else { return nil }
            return try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM client WHERE uuid = ?"), arguments: [uuid])
        }
        switch value {
        case .int(let n)?: return n
        case .string(let s)?: return s
        case .bool(let b)?: return b ? 1 : 0
        case .null?, nil: return nil
        }
    }

    /// Writes one project, preset, task or weekday target from its fields: deleted, updated,
    /// or made under a new local id once its required fields are known.
    mutating func write(_ table: SyncTable, _ id: String) throws {
        if table.entity == .project { projectIDs.known = [:] }
        let fields = try fields(table.entity, id)
        let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table.table) WHERE uuid = ?", arguments: [id]) ?? false
        if fields[SyncOperation.deletedField] == .bool(true) {
            if exists { try db.cachedStatement(sql: "DELETE FROM \(table.table) WHERE uuid = ?").execute(arguments: [id]) }
            return
        }
        var columns: [String] = []
        var values: [(any DatabaseValueConvertible)?] = []
        for column in table.columns {
            guard let value = fields[column.field] else {
                if column.required && !exists { return }
                continue
            }
            if column.required && value == .null { return }
            columns.append(column.column)
            values.append(try databaseValue(value, column, for: table.entity, id))
        }
        if table.nameKey, case .string(let name)? = fields["name"] {
            let (local, key) = try uniqueName(name, table: table.table, uuid: id)
            if let index = columns.firstIndex(of: "name") { values[index] = local }
            columns.append("name_key")
            values.append(key)
        }
        if exists {
            guard !columns.isEmpty else { return }
            try db.execute(
                sql: "UPDATE \(table.table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE uuid = ?",
                arguments: StatementArguments(values + [id]))
            return
        }
        if let localID = try newLocalID(table) {
            columns.append("id")
            values.append(localID)
        }
        if table.entity == .project || table.entity == .client, !columns.contains("position") {
            columns.append("position")
            values.append(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.table)") ?? 0)
        }
        try db.execute(
            sql: "INSERT INTO \(table.table) (\(columns.joined(separator: ", ")), uuid) VALUES (\(Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")))",
            arguments: StatementArguments(values + [id]))
        if table.entity == .project {
            let waiting = try Row.fetchAll(db, sql: "SELECT kind, uuid FROM sync_waiting WHERE project = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM sync_waiting WHERE project = ?", arguments: [id])
            for row in waiting {
                let (kind, uuid): (String, String) = (row[0], row[1])
                if kind == SyncEntity.interval.rawValue {
                    referencing.insert(uuid)
                } else if kind == SyncEntity.task.rawValue {
                    try write(SyncTable.named(.task), uuid)
                }
            }
        }
    }

    /// A local id for a new row: `p<n>`, `t<n>`, `f<n>` as the commands make them; nil where
    /// the database gives it (intervals) or the fields hold it (a weekday).
    func newLocalID(_ table: SyncTable) throws -> String? {
        let (prefix, counter): (String, String?)
        switch table.entity {
        case .project: (prefix, counter) = ("p", "next_project_number")
        case .task: (prefix, counter) = ("t", "next_task_number")
        case .preset: (prefix, counter) = ("f", nil)
        case .client: (prefix, counter) = ("c", nil)
        case .interval, .setting: return nil
        }
        let highest = try Int.fetchOne(
            db, sql: "SELECT max(CAST(substr(id, 2) AS INTEGER)) FROM \(table.table)") ?? 0
        var number = highest + 1
        if let counter {
            number = max(number, try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [counter]).flatMap { Int($0) } ?? 1)
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [counter, String(number + 1)])
        }
        return prefix + String(number)
    }

    /// Names are unique (by their key) on each device. Two devices that made one name each
    /// under its own UUID: the smaller UUID keeps the name, the other shows as `Name (2)` —
    /// the same on every device, since each decides by the UUIDs alone.
    func uniqueName(_ name: String, table: String, uuid: String) throws -> (name: String, key: String) {
        func key(_ text: String) -> String { table == "project" ? Project.nameKey(text) : text.lowercased() }
        func holder(_ text: String) throws -> String? {
            try String.fetchOne(
                db, sql: "SELECT uuid FROM \(table) WHERE name_key = ? AND uuid <> ?", arguments: [key(text), uuid])
        }
        func free(after text: String, for owner: String) throws -> String {
            var number = 2
            while true {
                let candidate = "\(text) (\(number))"
                let other = try String.fetchOne(
                    db, sql: "SELECT uuid FROM \(table) WHERE name_key = ? AND uuid <> ?", arguments: [key(candidate), owner])
                if other == nil { return candidate }
                number += 1
            }
        }
        guard let other = try holder(name) else { return (name, key(name)) }
        if other < uuid {
            let local = try free(after: name, for: uuid)
            return (local, key(local))
        }
        // The other's own name as merged (not a suffixed one it shows here already).
        let kind = SyncTable.all.first { $0.table == table }?.entity ?? .preset
        let merged = try fields(kind, other)["name"]
        var otherName = try String.fetchOne(db, sql: "SELECT name FROM \(table) WHERE uuid = ?", arguments: [other]) ?? name
        if case .string(let text)? = merged { otherName = text }
        let moved = try free(after: otherName, for: other)
        try db.execute(
            sql: "UPDATE \(table) SET name = ?, name_key = ? WHERE uuid = ?", arguments: [moved, key(moved), other])
        return (name, key(name))
    }

    /// Writes intervals from their merged fields, keeping every interval apart from the
    /// others: of two that overlap, the later-started keeps the time and the earlier one is
    /// cut at its start (a running one is stopped there). A cut is recorded as this device's
    /// operation. Returns the overlaps both devices had timed.
    mutating func writeIntervals(_ ids: Set<String>) throws -> [(kept: String, cut: String, from: Micros, to: Micros)] {
        guard !ids.isEmpty else { return [] }
        struct Target {
            var start: Micros
            var end: Micros?
            var project: String?
            var note: String?
            var tags: String?
        }
        var targets: [String: Target] = [:]
        var gone: Set<String> = []
        for id in ids.sorted() {
            let fields = try fields(.interval, id)
            guard fields[SyncOperation.deletedField] != .bool(true), case .int(let start)? = fields["start"] else {
                gone.insert(id)
                continue
            }
            var end: Micros?
            if case .int(let value)? = fields["end"] { end = value }
            if let end, end <= start {
                gone.insert(id)
                continue
            }
            var note: String?
            if case .string(let text)? = fields["note"] { note = text }
            var tags: String?
            if case .string(let text)? = fields["tags"] { tags = Tags.stored(Tags.parse(text)) }
            targets[id] = Target(
                start: start, end: end, project: try localProject(fields["project"], for: .interval, id), note: note,
                tags: tags)
        }
        // The merge's view: the intervals written here, and every interval already here that
        // overlaps one of them.
        var stretches: [String: SyncMerge.Stretch] = [:]
        for (id, target) in targets { stretches[id] = SyncMerge.Stretch(id: id, start: target.start, end: target.end) }
        // Intervals here never overlap each other, so those overlapping the span the written
        // ones cover are the ones ending inside it, the first ending after it, and the open
        // one: index ranges, read once per merge. Each is kept if it overlaps one of them.
        if let low = targets.values.map(\.start).min() {
            let high = targets.values.map { $0.end ?? .max }.max() ?? .max
            let spans = targets.values.map { ($0.start, $0.end ?? .max) }.sorted { $0.0 < $1.0 }
            // The latest end among spans starting at or before each one's start.
            var reach: [Micros] = []
            for span in spans { reach.append(max(reach.last ?? .min, span.1)) }
            func overlapsATarget(_ start: Micros, _ end: Micros) -> Bool {
                // The spans starting before `end`; one of them reaching past `start` overlaps.
                var (lo, hi) = (0, spans.count)
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if spans[mid].0 < end { lo = mid + 1 } else { hi = mid }
                }
                return lo > 0 && reach[lo - 1] > start
            }
            func consider(_ row: Row) {
                let id: String = row[0]
                let start: Micros = row[1]
                let end: Micros? = row[2]
                guard targets[id] == nil, !gone.contains(id), overlapsATarget(start, end ?? .max) else { return }
                stretches[id] = SyncMerge.Stretch(id: id, start: start, end: end)
            }
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT uuid, start_us, end_us FROM interval WHERE end_us > ? AND end_us <= ?"),
                arguments: [low, high])
            while let row = try rows.next() { consider(row) }
            if high < .max,
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT uuid, start_us, end_us FROM interval WHERE end_us > ? ORDER BY end_us LIMIT 1"),
                    arguments: [high])
            {
                consider(row)
            }
            if let row = try Row.fetchOne(db, sql: "SELECT uuid, start_us, end_us FROM interval WHERE end_us IS NULL") {
                consider(row)
            }
        }
        let (ends, overlaps) = SyncMerge.withoutOverlaps(Array(stretches.values))
        var cuts: [(id: String, end: Micros?)] = []
        for (id, stretch) in stretches where ends[id] != stretch.end {
            cuts.append((id, ends[id] ?? nil))
        }
        // Deletes, then ends that close, then the rest: no moment with two open intervals.
        for id in gone.sorted() { try db.cachedStatement(sql: "DELETE FROM interval WHERE uuid = ?").execute(arguments: [id]) }
        let record = try db.cachedStatement(sql: "INSERT INTO sync_change (kind, uuid, fields) VALUES ('interval', ?, ?)")
        for cut in cuts.sorted(by: { $0.id < $1.id }) {
            let start = stretches[cut.id]!.start
            let kept = cut.end.map { $0 > start } ?? true
            try record.execute(arguments: [cut.id, (kept ? JSON.object(["end": cut.end.map(JSON.int) ?? .null]) : .object(["deleted": .bool(true)])).text])
            if targets[cut.id] != nil {
                // Written below with the rest of its fields.
                if kept { targets[cut.id]?.end = cut.end } else {
                    targets[cut.id] = nil
                    try db.cachedStatement(sql: "DELETE FROM interval WHERE uuid = ?").execute(arguments: [cut.id])
                }
            } else if kept {
                try db.cachedStatement(sql: "UPDATE interval SET end_us = ? WHERE uuid = ?").execute(arguments: [cut.end, cut.id])
            } else {
                try db.cachedStatement(sql: "DELETE FROM interval WHERE uuid = ?").execute(arguments: [cut.id])
            }
        }
        let ordered = targets.sorted { ($0.value.end == nil ? 1 : 0, $0.key) < ($1.value.end == nil ? 1 : 0, $1.key) }
        let write = try db.cachedStatement(
            sql: """
                INSERT INTO interval (start_us, end_us, project_id, note, tags, uuid) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (uuid) DO UPDATE SET start_us = excluded.start_us, end_us = excluded.end_us,
                        project_id = excluded.project_id, note = excluded.note, tags = excluded.tags
                """)
        for (id, target) in ordered {
            try write.execute(arguments: [target.start, target.end, target.project, target.note, target.tags, id])
        }
        // Said once: the time both devices timed (a run stopped by a newer start is not news).
        var timedTwice: [(kept: String, cut: String, from: Micros, to: Micros)] = []
        for overlap in overlaps {
            guard let to = overlap.to else { continue }
            let kept = try Tracker.starter(ofInterval: overlap.kept, db) ?? ""
            let cut = try Tracker.starter(ofInterval: overlap.cut, db) ?? ""
            timedTwice.append((kept, cut, overlap.from, to))
        }
        return timedTwice
    }
}
