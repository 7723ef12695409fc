import BiomaCore
import Foundation
import GRDB

// Sync, part 4 (continued): a peer's operations merged, and the merged fields kept per entity.
extension StoreSync {
    /// Merges a batch of `device`'s operations, read up to `peer` (its new cursor), in one
    /// transaction: operations applied before are skipped; each field keeps the value with
    /// the greatest stamp; entities are written from their merged fields; intervals are kept
    /// apart (the later start keeps an overlap, and a cut here is written as this device's
    /// operation); what runs here follows. Nothing raises a notification here: the caller
    /// says what the merge did, once. `texts` are the operations' fields as `sync_entity` keeps
    /// them (made here when not given: a caller makes them ahead, off this thread).
    public func merge(
        _ operations: [SyncOperation], texts: [StampedText]? = nil, peer: SyncPeerState, at now: Micros
    ) throws -> SyncMerged {
        let texts = texts ?? operations.map { StampedText($0.fields) }
        precondition(texts.count == operations.count, "a text for each operation")
        try drainWholeBacklog()
        guard var clock = tracker.syncJournal.clock else { throw TrackerError.invalidArgument("Sync is off.") }
        // Every later tick here (the cuts this merge records, too) orders after what it read.
        for operation in operations { clock.observe(operation.clock, physical: now) }
        tracker.syncJournal.clock = clock
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
                let (loaded, _, _, _) = try Tracker.load(db)
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
                try Tracker.persist(before: before, after: after, bootID: tracker.bootID, now: now, db)
            }
        }
        tracker.take(after)
        return merged
    }

    /// Whether the interval running here was started by another device (with sync on): this
    /// machine's reboot does not end it.
    func openIntervalRunsOnAPeer() throws -> Bool {
        guard let me = tracker.syncJournal.device, me.folder != nil else { return false }
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
}
