import BiomaCore
import Foundation
import GRDB

// Sync, part 4 (continued): a peer's operations merged, and the merged fields kept per entity.
extension Tracker {
    /// Merges a batch of `device`'s operations, read up to `peer` (its new cursor), in one
    /// transaction: operations applied before are skipped; each field keeps the value with
    /// the greatest stamp; entities are written from their merged fields; intervals are kept
    /// apart (the later start keeps an overlap, and a cut here is written as this device's
    /// operation); what runs here follows. Nothing raises a notification here: the caller
    /// says what the merge did, once. `texts` are the operations' fields as `sync_entity` keeps
    /// them (made here when not given: a caller makes them ahead, off this thread).
    public func mergeSync(
        _ operations: [SyncOperation], texts: [StampedText]? = nil, peer: SyncPeerState, at now: Micros
    ) throws -> SyncMerged {
        let texts = texts ?? operations.map { StampedText($0.fields) }
        precondition(texts.count == operations.count, "a text for each operation")
        try drainWholeSyncBacklog()
        guard var clock = sync.clock else { throw TrackerError.invalidArgument("Sync is off.") }
        // Every later tick here (the cuts this merge records, too) orders after what it read.
        for operation in operations { clock.observe(operation.clock, physical: now) }
        sync.clock = clock
        var merged = SyncMerged()
        let before = model
        var after = model
        var stoppedAt: Micros?
        // Without the triggers on a worker's connection (`writeOrThrow(triggers:)`).
        try writeOrThrow(triggers: false) { db in
            try db.cachedStatement(sql: "UPDATE sync_self SET recording = 0 WHERE id = 1").execute()
            // Closed intervals first seen in this batch (their span as created), and an end the
            // peer then moved earlier in the same batch: its own cut, read with the creation.
            var created: [String: (start: Micros, end: Micros)] = [:]
            var movedEnd: [String: Micros] = [:]
            // The entities this batch changed, in the order they first came (a peer's log makes
            // them in uuid order), written all at once after it.
            var changed: [Changed] = []
            var position: [EntityKey: Int] = [:]
            changed.reserveCapacity(operations.count)
            position.reserveCapacity(operations.count)
            // The merged fields of the entities the batch names and the stamps they hold, read at
            // once; a stamp this batch adds joins them once merged fields hold it.
            let stored = try Self.mergedFields(db, of: operations)
            var stamps = try Self.stamps(db, ids: Set(stored.values.lazy.flatMap { $0.fields.values.lazy.map(\.stamp) }))
            let stampIDs = try Self.stamp(operations, db)
            for (index, operation) in operations.enumerated() {
                let clock = operation.clock
                // Applied before (its stamp is here): nothing to do.
                guard let stampID = stampIDs[index] else { continue }
                merged.operations += 1
                if operation.entity == .interval, case .int(let end)? = operation.fields["end"] {
                    if let span = created[operation.entityID] {
                        if end < span.end { movedEnd[operation.entityID] = end }
                    } else if case .int(let start)? = operation.fields["start"] {
                        created[operation.entityID] = (start, end)
                    }
                }
                // `operation`'s winning fields set in `fields`; false when none wins.
                func merge(into fields: inout StampedFields) throws -> Bool {
                    let winners = SyncMerge.winners(of: operation, over: try Self.stamps(db, of: fields, known: &stamps))
                    guard !winners.isEmpty else { return false }
                    fields.set(winners, stamp: stampID)
                    stamps[stampID] = FieldStamp(clock: clock, operation: operation.id)
                    return true
                }
                let key = EntityKey(entity: operation.entity, id: operation.entityID)
                if let at = position[key] {
                    var fields = changed[at].fields(operations, known: &stamps)
                    changed[at].merged = nil  // its only reference while merged
                    _ = try merge(into: &fields)
                    changed[at].merged = fields
                } else if !stored.isEmpty, var fields = stored[key] {
                    guard try merge(into: &fields) else { continue }
                    position[key] = changed.count
                    changed.append(Changed(key: key, merged: fields, operation: index, stamp: stampID))
                } else if !operation.fields.isEmpty {
                    position[key] = changed.count
                    changed.append(Changed(key: key, merged: nil, operation: index, stamp: stampID))
                }
            }
            try Self.keepAll(changed, texts: texts, db)
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO sync_peer (device, segment, offset, sequence, last_op_us, problem)
                        VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    peer.device, peer.segment, peer.offset, peer.sequence,
                    operations.last?.clock.wall ?? peer.lastOperation, peer.problem,
                ])
            // Entities first seen here and those changed: written from their fields in memory.
            let others = changed.filter { $0.key.entity != .interval }
            var materializer = SyncMaterializer(
                db: db, known: Dictionary(uniqueKeysWithValues: others.map { ($0.key, $0.fields(operations, known: &stamps)) }))
            for table in SyncTable.all where table.entity != .interval {
                for entity in others.filter({ $0.key.entity == table.entity }).sorted(by: { $0.key.id < $1.key.id }) {
                    try materializer.write(table, entity.key.id)
                }
            }
            let openBefore = try Self.openInterval(db)
            var intervals: [(id: String, values: [String: SyncValue]?)] = changed.compactMap {
                $0.key.entity == .interval ? ($0.key.id, $0.merged?.values ?? operations[$0.operation].fields) : nil
            }
            if !materializer.referencing.isEmpty {
                let listed = Set(intervals.map(\.id))
                intervals += materializer.referencing.subtracting(listed).sorted().map { ($0, nil) }
            }
            merged.overlaps = try materializer.writeIntervals(intervals)
            merged.overlaps += try Self.timedBeforeACut(created, movedEnd, db)
            try db.cachedStatement(sql: "UPDATE sync_self SET recording = 1, hlc_wall = ?, hlc_counter = ? WHERE id = 1")
                .execute(arguments: [clock.wall, Int64(clock.counter)])
            // Only projects, tasks and presets are read back into the model (intervals are not
            // kept in it): a slice of intervals alone leaves it as it was.
            if !others.isEmpty {
                let (loaded, _, _, _) = try Self.load(db)
                after.projects = loaded.projects
                after.nextProjectNumber = loaded.nextProjectNumber
                after.tasks = loaded.tasks
                after.nextTaskNumber = loaded.nextTaskNumber
                after.presets = loaded.presets
            }
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
                let other = try intervalStarting(at: cutAt, db), other.uuid != id
            else { continue }
            let (keptID, keptEnd) = (other.uuid, other.end)
            let to = min(span.end, keptEnd ?? span.end)
            guard to > cutAt else { continue }
            found.append((try starter(ofInterval: keptID, db) ?? "", try starter(ofInterval: id, db) ?? "", cutAt, to))
        }
        return found
    }

    /// The interval starting at `instant`, if any. Intervals never overlap: it is the first to
    /// end after `instant` (read in the end's index), or the running one when none does.
    static func intervalStarting(at instant: Micros, _ db: Database) throws -> (uuid: String, end: Micros?)? {
        let next =
            try Row.fetchOne(db.cachedStatement(sql: nextEndingSQL), arguments: [instant])
            ?? Row.fetchOne(db.cachedStatement(sql: runningSQL))
        guard let next, next[1] as Micros == instant else { return nil }
        return (next[0], next[2])
    }

    static let nextEndingSQL = "SELECT uuid, start_us, end_us FROM interval WHERE end_us > ? ORDER BY end_us LIMIT 1"
    /// The running interval, in `nextEndingSQL`'s columns.
    static let runningSQL = "SELECT uuid, start_us, end_us FROM interval WHERE end_us IS NULL"

    static func starter(ofInterval interval: String, _ db: Database) throws -> String? {
        guard let stamp = try mergedFields(db, .interval, interval)?.fields["start"]?.stamp else { return nil }
        return try String.fetchOne(db.cachedStatement(sql: "SELECT device FROM sync_stamp WHERE id = ?"), arguments: [stamp])
    }

    static func openInterval(_ db: Database) throws -> (uuid: String, segment: OpenSegment)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT uuid, start_us, project_id FROM interval WHERE end_us IS NULL")).map {
            ($0[0], OpenSegment(start: $0[1], projectID: $0[2]))
        }
    }

    /// An entity's merged fields with their stamps; nil when no operation has named it here.
    static func mergedFields(_ db: Database, _ entity: SyncEntity, _ id: String) throws -> StampedFields? {
        let query = DirectBinding(try db.cachedStatement(sql: "SELECT fields FROM sync_entity WHERE kind = ? AND uuid = ?"))
        try query.bind(entity.rawValue, at: 1)
        try query.bind(id, at: 2)
        guard try query.step() else { return nil }
        let text = query.text(at: 0)
        query.finish()
        return try storedFields(text, entity, id)
    }

    /// Merged fields as `sync_entity` keeps them (`text`), or a storage error naming the entity.
    static func storedFields(_ text: String, _ entity: SyncEntity, _ id: String) throws -> StampedFields {
        do { return try StampedFields(text: text) } catch {
            throw TrackerError.storage("The merged fields of \(entity.rawValue) \(id) are damaged: \(error)")
        }
    }

    /// Keeps `fields` as the entity's merged fields: one row.
    static func keep(_ fields: StampedFields, _ entity: SyncEntity, _ id: String, _ db: Database) throws {
        let write = DirectBinding(try db.cachedStatement(sql: "INSERT OR REPLACE INTO sync_entity (kind, uuid, fields) VALUES (?, ?, ?)"))
        try write.bind(entity.rawValue, at: 1)
        try write.bind(id, at: 2)
        try write.bind(utf8: fields.utf8Text, at: 3)
        try write.execute()
    }

    /// An entity, as `sync_entity` keys it.
    struct EntityKey: Hashable {
        var entity: SyncEntity
        var id: String
    }

    /// An entity a merge changed: its merged fields, or, first seen in the batch and named by
    /// one operation (most of a peer's history), that operation's fields with its stamp, made
    /// merged fields only when another operation names it too.
    struct Changed {
        var key: EntityKey
        /// Nil while the entity holds `operation`'s fields alone, set with `stamp`.
        var merged: StampedFields?
        var operation: Int
        var stamp: Int64

        /// The merged fields, made from the operation when it holds one's alone (its stamp is
        /// then `known`, as every merged field's is).
        func fields(_ operations: [SyncOperation], known: inout [Int64: FieldStamp]) -> StampedFields {
            if let merged { return merged }
            let operation = operations[operation]
            known[stamp] = FieldStamp(clock: operation.clock, operation: operation.id)
            return StampedFields(operation.fields, stamp: stamp)
        }

        /// Appends the text `sync_entity` keeps to `out` (`texts`: each operation's).
        func write(_ texts: [StampedText], to out: inout [UInt8]) {
            if let merged { return merged.write(to: &out) }
            texts[operation].write(stamp: stamp, to: &out)
        }
    }

    /// Keeps `rows` entities' merged fields in one statement.
    static func keepSQL(_ rows: Int) -> String {
        "INSERT INTO sync_entity (kind, uuid, fields) VALUES "
            + repeatElement("(?, ?, ?)", count: rows).joined(separator: ", ")
            + " ON CONFLICT (kind, uuid) DO UPDATE SET fields = excluded.fields"
    }

    /// `keepSQL` of each group's size, made once.
    static let keepSQLs = groupSQL(keepSQL)

    /// `keep` for the entities a merge changed (`texts`: its operations'), in groups of rows to
    /// a statement (`rowGroups`), each group's texts written into one buffer.
    static func keepAll(_ entities: [Changed], texts: [StampedText], _ db: Database) throws {
        var text: [UInt8] = []
        var ends: [Int] = []
        for group in rowGroups(entities.count) {
            text.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            for entity in entities[group] {
                entity.write(texts, to: &text)
                ends.append(text.count)
            }
            let write = DirectBinding(try db.cachedStatement(sql: keepSQLs[group.count]!))
            var (index, start): (Int32, Int) = (1, 0)
            for (entity, end) in zip(entities[group], ends) {
                try write.bind(entity.key.entity.rawValue, at: index)
                try write.bind(entity.key.id, at: index + 1)
                try text.withUnsafeBufferPointer { try write.bind(utf8: UnsafeBufferPointer(rebasing: $0[start..<end]), at: index + 2) }
                (index, start) = (index + 3, end)
            }
            try write.execute()
        }
    }

    /// Records the stamps of `operations`, a group of them to a statement: the id each was
    /// given, or nil for one applied before (its stamp is here, or earlier in the batch). A
    /// group that names one applied before fails as a whole and is recorded one by one.
    static func stamp(_ operations: [SyncOperation], _ db: Database) throws -> [Int64?] {
        var ids: [Int64?] = []
        ids.reserveCapacity(operations.count)
        // A new row's id is one more than the greatest (SQLite's rowid): a group's are
        // consecutive. Checked, and read back by operation if they ever are not.
        var greatest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM sync_stamp")) ?? 0
        for group in rowGroups(operations.count) {
            let write = DirectBinding(try db.cachedStatement(sql: stampSQLs[group.count]!))
            var index: Int32 = 1
            for operation in operations[group] {
                try write.bind(operation.clock, operation: operation.id, at: index)
                index += 4
            }
            do {
                try write.execute()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                let one = try db.cachedStatement(sql: "INSERT OR IGNORE INTO sync_stamp (wall, counter, device, op) VALUES (?, ?, ?, ?)")
                for operation in operations[group] {
                    try DirectBinding.insertStamp(one, operation.clock, operation: operation.id)
                    ids.append(db.changesCount == 1 ? db.lastInsertedRowID : nil)
                    if let id = ids.last!, id > greatest { greatest = id }
                }
                continue
            }
            if db.lastInsertedRowID == greatest + Int64(group.count) {
                ids += (greatest + 1...db.lastInsertedRowID).map { $0 }
            } else {
                let read = DirectBinding(try db.cachedStatement(sql: "SELECT id FROM sync_stamp WHERE op = ?"))
                for operation in operations[group] {
                    try read.bind(operation.id, at: 1)
                    guard try read.step() else { throw TrackerError.storage("The stamp of operation \(operation.id) was not kept.") }
                    ids.append(read.int64(at: 0))
                    read.finish()
                }
            }
            greatest = max(greatest, db.lastInsertedRowID)
        }
        return ids
    }

    static let stampSQLs = groupSQL { rows in
        "INSERT INTO sync_stamp (wall, counter, device, op) VALUES " + repeatElement("(?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// The operation (clock and id) behind each of `fields`: from `known`, or read (and then known).
    static func stamps(_ db: Database, of fields: StampedFields, known: inout [Int64: FieldStamp]) throws -> [String: FieldStamp] {
        var stamps: [String: FieldStamp] = [:]
        for (name, field) in fields.fields {
            if known[field.stamp] == nil {
                known.merge(try self.stamps(db, ids: [field.stamp])) { old, _ in old }
                guard known[field.stamp] != nil else {
                    throw TrackerError.storage("A merged field names stamp \(field.stamp), which is not kept.")
                }
            }
            stamps[name] = known[field.stamp]
        }
        return stamps
    }

    /// The operation (clock and id) of each of the stamps `ids` (those kept), a group of them
    /// to a query.
    static func stamps(_ db: Database, ids: Set<Int64>) throws -> [Int64: FieldStamp] {
        let ids = Array(ids)
        var stamps: [Int64: FieldStamp] = [:]
        stamps.reserveCapacity(ids.count)
        for group in rowGroups(ids.count) {
            let query = DirectBinding(try db.cachedStatement(sql: stampsSQLs[group.count]!))
            for (index, id) in ids[group].enumerated() { try query.bind(id, at: Int32(index + 1)) }
            while try query.step() {
                stamps[query.int64(at: 0)] = FieldStamp(
                    clock: HybridTime(wall: query.int64(at: 1), counter: UInt32(clamping: query.int64(at: 2)), device: query.text(at: 3)),
                    operation: query.text(at: 4))
            }
        }
        return stamps
    }

    static let stampsSQLs = groupSQL { rows in
        "SELECT id, wall, counter, device, op FROM sync_stamp WHERE id IN (" + repeatElement("?", count: rows).joined(separator: ", ") + ")"
    }

    /// The merged fields of the entities `operations` name (those kept), a group of them to a
    /// query. Only the ids up to the greatest kept of their kind are looked up: UUIDv7s come
    /// in the order they were made, so a peer's history replayed in order names entities
    /// newer than every one kept here, and none of them is looked up.
    static func mergedFields(_ db: Database, of operations: [SyncOperation]) throws -> [EntityKey: StampedFields] {
        var greatest: [SyncEntity: String] = [:]
        for entity in Set(operations.lazy.map(\.entity)) {
            greatest[entity] = try String.fetchOne(
                db.cachedStatement(sql: "SELECT max(uuid) FROM sync_entity WHERE kind = ?"), arguments: [entity.rawValue])
        }
        // Lowercase UUIDs (`UUIDText`): their order as strings is SQLite's order of their bytes.
        var named: [SyncEntity: [String]] = [:]
        var seen: Set<EntityKey> = []
        for operation in operations {
            guard let greatest = greatest[operation.entity], operation.entityID <= greatest,
                seen.insert(EntityKey(entity: operation.entity, id: operation.entityID)).inserted
            else { continue }
            named[operation.entity, default: []].append(operation.entityID)
        }
        var stored: [EntityKey: StampedFields] = [:]
        for (entity, ids) in named {
            for group in rowGroups(ids.count) {
                let query = DirectBinding(try db.cachedStatement(sql: entitiesSQLs[group.count]!))
                try query.bind(entity.rawValue, at: 1)
                for (index, id) in ids[group].enumerated() { try query.bind(id, at: Int32(index + 2)) }
                while try query.step() {
                    let id = query.text(at: 0)
                    stored[EntityKey(entity: entity, id: id)] = try storedFields(query.text(at: 1), entity, id)
                }
            }
        }
        return stored
    }

    static let entitiesSQLs = groupSQL { rows in
        "SELECT uuid, fields FROM sync_entity WHERE kind = ? AND uuid IN (" + repeatElement("?", count: rows).joined(separator: ", ") + ")"
    }
}
