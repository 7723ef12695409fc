import BiomaCore
import Foundation
import GRDB

// Sync, part 4 (continued): this device's changes stamped into operations inside every write.
extension StoreSync {
    // MARK: Inside every write

    /// Makes the oldest `limit` changes the triggers recorded (in this transaction or, for a
    /// backlog, in earlier ones) into this device's next operations: stamped with the hybrid
    /// clock, kept in the outbox (until the folder has them) and as the fields' stamps. Returns
    /// them, to append to the folder after the commit. `enough`, asked after each operation,
    /// ends the slice early (a time budget). What is left stays in `sync_change`, in order, for
    /// the next write (`journal.backlog`).
    static func drainChanges(
        _ db: Database, _ journal: inout SyncJournal, physical: Micros, limit: Int? = StoreSync.drainSlice,
        enough: (() -> Bool)? = nil
    ) throws -> [SyncOperation] {
        guard journal.recording, var clock = journal.clock, var device = journal.device else { return [] }
        journal.backlog = false
        var lastSeq: Int64 = 0
        // The operations' ids: seeded once a slice (a draw of the system's generator is a
        // system call, two per operation).
        var generator = SplitMix()
        var operations: [SyncOperation] = []
        // Whether `enough` ended the slice with rows left.
        var rowsLeft = false
        let outboxInsert = try db.cachedStatement(sql: "INSERT INTO sync_outbox (seq, line) VALUES (?, ?)")
        let stampInsert = try db.cachedStatement(sql: "INSERT INTO sync_stamp (wall, counter, device, op) VALUES (?, ?, ?, ?)")
        // Read as they are stamped (a slice its budget ends early reads no more than it takes),
        // and let go before the rows stamped are deleted.
        do {
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT seq, kind, uuid, fields FROM sync_change ORDER BY seq LIMIT ?"),
                arguments: [limit ?? -1])
            while let row = try rows.next() {
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
                let outbox = DirectBinding(outboxInsert)
                try outbox.bind(operation.sequence, at: 1)
                try outbox.bind(operation.line, at: 2)
                try outbox.execute()
                try DirectBinding.insertStamp(stampInsert, time, operation: operation.id)
                let stampID = db.lastInsertedRowID
                if !fields.isEmpty {
                    var merged = try mergedFields(db, entity, operation.entityID) ?? StampedFields()
                    merged.set(fields, stamp: stampID)
                    try keep(merged, entity, operation.entityID, db)
                }
                operations.append(operation)
                lastSeq = row[0]
                if let enough, enough() {
                    rowsLeft = try rows.next() != nil
                    break
                }
            }
        }
        guard !operations.isEmpty else { return [] }
        try db.cachedStatement(sql: "DELETE FROM sync_change WHERE seq <= ?").execute(arguments: [lastSeq])
        try db.cachedStatement(sql: "DELETE FROM sync_outbox WHERE seq <= ?").execute(arguments: [journal.written])
        try db.cachedStatement(
            sql: "UPDATE sync_self SET last_seq = ?, last_op = ?, hlc_wall = ?, hlc_counter = ? WHERE id = 1"
        ).execute(arguments: [device.lastSequence, device.lastOperation, clock.wall, Int64(clock.counter)])
        // A slice its budget ended left rows it read; a full one may have left more.
        journal.backlog =
            try rowsLeft
            || (operations.count == limit && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_change)") ?? false)
        journal.clock = clock
        journal.device = device
        return operations
    }
}
