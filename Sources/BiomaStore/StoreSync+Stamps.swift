import BiomaCore
import Foundation
import GRDB

/// What a merge keeps of each entity and operation: the merged fields with their stamps
/// (`sync_entity`) and the operations' stamps (`sync_stamp`), read and written a group of rows
/// to a statement.
extension StoreSync {
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
    static let keepSQLs = DirectBinding.groupSQL(keepSQL)

    /// `keep` for the entities a merge changed (`texts`: its operations'), in groups of rows to
    /// a statement (`rowGroups`), each group's texts written into one buffer.
    static func keepAll(_ entities: [Changed], texts: [StampedText], _ db: Database) throws {
        var text: [UInt8] = []
        var ends: [Int] = []
        for group in DirectBinding.rowGroups(entities.count) {
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
        for group in DirectBinding.rowGroups(operations.count) {
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

    static let stampSQLs = DirectBinding.groupSQL { rows in
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
        for group in DirectBinding.rowGroups(ids.count) {
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

    static let stampsSQLs = DirectBinding.groupSQL { rows in
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
            for group in DirectBinding.rowGroups(ids.count) {
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

    static let entitiesSQLs = DirectBinding.groupSQL { rows in
        "SELECT uuid, fields FROM sync_entity WHERE kind = ? AND uuid IN (" + repeatElement("?", count: rows).joined(separator: ", ") + ")"
    }
}
