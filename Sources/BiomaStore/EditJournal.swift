import BiomaCore
import Foundation
import GRDB

/// The edit journal (`edit_journal`, `edit_journal_row`, migration v5-edit-journal): per edit,
/// every row it touched before and after, which `undo` reads back; imports and a history
/// reset write their entries here too.
enum EditJournal {
    /// Entries kept in the journal (older ones go as new ones come).
    public static let journalKept = 100

    /// Journals intervals just added, in the caller's transaction, as one edit `undo` takes
    /// back (an import calls this with the ids it inserted and a description, e.g.
    /// "import of 12 intervals from Timewarrior"). Nothing when `ids` is empty.
    static func journalAdded(ids: [Int64], what: String, kind: String = "import", at now: Micros, _ db: Database) throws {
        var changes: [RowChange] = []
        for id in ids {
            guard let row = try IntervalRows.row(db, id: id) else { continue }
            changes.append(RowChange(id: id, before: nil, after: row))
        }
        guard !changes.isEmpty else { return }
        _ = try journal(kind: kind, what: what, changes: changes, run: nil, at: now, db)
    }

    /// The intervals with ids in [`first`, `end`), in id order, with their digests read back
    /// (`RowDigest` of `addedRowsSQL`'s columns), as `journalAdded` keeps them.
    static func addedRows(from first: Int64, before end: Int64 = .max, _ db: Database) throws -> AddedIntervals {
        var added = AddedIntervals()
        let rows = DirectBinding(try db.cachedStatement(sql: addedRowsSQL))
        try rows.bind(first, at: 1)
        try rows.bind(end, at: 2)
        while try rows.step() {
            added.ids.append(rows.int64(at: 0))
            withUnsafeBytes(of: rows.rowDigest().littleEndian) { added.digests.append(contentsOf: $0) }
        }
        return added
    }

    /// Journals intervals an insert added (`insertHistory`), with the digests it made as it
    /// bound them (or `addedRows` read back), as one edit undo takes back: the entry holds the
    /// first id and a digest of each row in id order (`RowDigest`, 8 bytes each), which
    /// `addedChanged` checks before undo deletes them. A row copied per interval was a tenth
    /// of a ten-year import; reading them back for their digests, a tenth of what was left.
    static func journalAdded(_ added: AddedIntervals, what: String, kind: String = "import", at now: Micros, _ db: Database) throws {
        guard let first = added.ids.first else { return }
        for (offset, id) in added.ids.enumerated() where id != first + Int64(offset) {
            throw TrackerError.storage("The intervals of an import did not take consecutive ids (\(first + Int64(offset)) was expected).")
        }
        guard added.digests.count == added.count * 8 else {
            throw TrackerError.storage("An import's journal entry has \(added.digests.count / 8) digests for \(added.count) intervals.")
        }
        let seq = try journal(kind: kind, what: what, changes: [], run: nil, at: now, db)
        try db.cachedStatement(sql: "UPDATE edit_journal SET added_first = ?, added_digests = ? WHERE seq = ?")
            .execute(arguments: [first, Data(added.digests), seq])
    }

    /// The rows with ids in [?1, ?2), in id order, with the columns `rowDigest` reads.
    static let addedRowsSQL = "SELECT id, start_us, end_us, project_id, note, tags FROM interval WHERE id >= ? AND id < ? ORDER BY id"

    /// Why undo cannot delete the intervals an import added (ids from `first`, one digest of
    /// 8 bytes each): the first of them deleted or changed since; nil when every one is as
    /// the import left it.
    static func addedChanged(from first: Int64, digests: Data, _ db: Database) throws -> String? {
        let count = Int64(digests.count / 8)
        var next = first
        let rows = DirectBinding(try db.cachedStatement(sql: addedRowsSQL))
        try rows.bind(first, at: 1)
        try rows.bind(first + count, at: 2)
        while try rows.step() {
            let id = rows.int64(at: 0)
            let offset = Int(id - first) * 8
            let kept = digests[digests.startIndex + offset..<digests.startIndex + offset + 8].withUnsafeBytes {
                UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
            }
            guard id == next, rows.rowDigest() == kept else {
                rows.finish()
                return id == next ? "interval \(id) has changed since" : "interval \(next) has been deleted since"
            }
            next += 1
        }
        return next == first + count ? nil : "interval \(next) has been deleted since"
    }

    /// The journal entry of a history reset: every row, in one INSERT … SELECT.
    static func journalReset(at now: Micros, _ db: Database) throws {
        let seq = try journal(kind: "reset-history", what: "reset-history", changes: [], run: nil, at: now, db)
        try db.execute(
            sql: """
                INSERT INTO edit_journal_row (seq, id, had_before, before_start_us, before_end_us, before_project_id, before_note, has_after,
                    before_tags)
                SELECT ?, id, 1, start_us, end_us, project_id, note, 0, tags FROM interval
                """, arguments: [seq])
        let count = db.changesCount
        try db.execute(
            sql: "UPDATE edit_journal SET what = ? WHERE seq = ?",
            arguments: ["reset-history (\(count) interval\(count == 1 ? "" : "s") deleted)", seq])
    }

    /// The running interval a reset restarted, in the reset's entry.
    static func journalRunningAfterReset(_ open: IntervalRow, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO edit_journal_row (seq, id, had_before, has_after, after_start_us, after_end_us, after_project_id, after_note,
                    after_tags)
                VALUES ((SELECT max(seq) FROM edit_journal), ?, 0, 1, ?, NULL, ?, ?, ?)
                """, arguments: [open.id, open.start, open.projectID, open.note, open.tags])
    }

    /// Writes a journal entry and drops the oldest beyond `journalKept`; returns its number.
    static func journal(
        kind: String, what: String, changes: [RowChange], run: (before: [Micros?], after: [Micros?])?, at now: Micros,
        _ db: Database
    ) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO edit_journal (kind, what, created_us, run_saved, work_run_before, project_run_before,
                    work_run_after, project_run_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                kind, what, now, run != nil, run?.before[0], run?.before[1], run?.after[0], run?.after[1],
            ])
        let seq = db.lastInsertedRowID
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO edit_journal_row (seq, id, had_before, before_start_us, before_end_us, before_project_id,
                    before_note, has_after, after_start_us, after_end_us, after_project_id, after_note, before_tags, after_tags)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for change in changes {
            try insert.execute(arguments: [
                seq, change.id, change.before != nil, change.before?.start, change.before?.end, change.before?.projectID,
                change.before?.note, change.after != nil, change.after?.start, change.after?.end, change.after?.projectID,
                change.after?.note, change.before?.tags, change.after?.tags,
            ])
        }
        try db.execute(sql: "DELETE FROM edit_journal WHERE seq <= ?", arguments: [seq - Int64(journalKept)])
        return seq
    }

    static func journalRows(_ db: Database, seq: Int64) throws -> [RowChange] {
        var changes: [RowChange] = []
        let cursor = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, had_before, before_start_us, before_end_us, before_project_id, before_note,
                    has_after, after_start_us, after_end_us, after_project_id, after_note, before_tags, after_tags
                    FROM edit_journal_row WHERE seq = ?
                """, arguments: [seq])
        while let row = try cursor.next() {
            let id: Int64 = row[0]
            let before: IntervalRow? =
                row[1] ? IntervalRow(id: id, start: row[2], end: row[3], projectID: row[4], note: row[5], tags: row[11]) : nil
            let after: IntervalRow? =
                row[6] ? IntervalRow(id: id, start: row[7], end: row[8], projectID: row[9], note: row[10], tags: row[12]) : nil
            changes.append(RowChange(id: id, before: before, after: after))
        }
        return changes
    }
}
