import BiomaCore
import GRDB

/// Which tables travel between a person's machines, and how a row becomes an operation's
/// fields: one description, from which the migration's triggers, the snapshot `sync enable`
/// writes and the merge's writes are all made.
///
/// Every row of these tables has a `uuid` (given by the migration, and by a trigger to every
/// row inserted later): the entity's identity on every device. The local ids (`p3`, `t2`,
/// interval numbers) stay for the command line and differ between devices.
struct SyncTable: Sendable {
    struct Column: Sendable {
        /// The field's name in an operation.
        var field: String
        var column: String
        /// The column holds a project's local id; the operation carries its UUID.
        var projectReference = false
        /// The column holds a client's local id; the operation carries its UUID.
        var clientReference = false
        /// A row cannot be made without it.
        var required = false
        /// Added by a migration after v10 (whose triggers, made before the column existed,
        /// leave it out): the migration that adds it makes the table's triggers again.
        var later = false
    }

    var entity: SyncEntity
    var table: String
    var columns: [Column]
    /// The table has a `name_key` (unique, `Project.nameKey(name)`), kept from `name`.
    var nameKey = false

    /// The tables, in the order the merge writes them (projects before what refers to them).
    static let all: [SyncTable] = [
        // Made by migration v12 (so not in v10's triggers), written before the projects that name them.
        SyncTable(
            entity: .client, table: "client",
            columns: [
                Column(field: "name", column: "name", required: true), Column(field: "rate", column: "rate_minor"),
                Column(field: "currency", column: "currency"), Column(field: "position", column: "position", required: true),
            ], nameKey: true),
        SyncTable(
            entity: .project, table: "project",
            columns: [
                Column(field: "name", column: "name", required: true), Column(field: "color", column: "color", required: true),
                Column(field: "position", column: "position"), Column(field: "budget", column: "budget_us"),
                Column(field: "budget_period", column: "budget_period"),
                Column(field: "client", column: "client_id", clientReference: true, later: true),
                Column(field: "rate", column: "rate_minor", later: true), Column(field: "currency", column: "currency", later: true),
                Column(field: "billable", column: "billable", later: true),
            ], nameKey: true),
        SyncTable(
            entity: .preset, table: "focus_preset",
            columns: [
                Column(field: "name", column: "name", required: true), Column(field: "plan", column: "plan", required: true),
                Column(field: "created", column: "created_us", required: true),
            ], nameKey: true),
        SyncTable(
            entity: .task, table: "task",
            columns: [
                Column(field: "title", column: "title", required: true),
                Column(field: "project", column: "project_id", projectReference: true), Column(field: "due", column: "due_us"),
                Column(field: "remind", column: "remind"), Column(field: "done", column: "done"),
                Column(field: "done_at", column: "done_us"), Column(field: "reminded_due", column: "reminded_due_us"),
                Column(field: "created", column: "created_us", required: true),
            ]),
        SyncTable(
            entity: .setting, table: "work_target",
            columns: [
                Column(field: "weekday", column: "weekday", required: true),
                Column(field: "target", column: "target_us", required: true),
                // The days each value took effect (`TargetHistory.text`), from v14.
                Column(field: "history", column: "history", later: true),
            ]),
        SyncTable(
            entity: .interval, table: "interval",
            columns: [
                Column(field: "start", column: "start_us", required: true), Column(field: "end", column: "end_us"),
                Column(field: "project", column: "project_id", projectReference: true), Column(field: "note", column: "note"),
                // One field: the space-separated text (`Tags`).
                Column(field: "tags", column: "tags", later: true),
            ]),
    ]

    static func named(_ entity: SyncEntity) -> SyncTable { all.first { $0.entity == entity }! }

    /// A fresh UUID in SQL for the row `row` (`NEW` in a trigger, the table in the migration):
    /// version 7's layout — the Unix time in milliseconds first — then the rowid and 32 random
    /// bits, so that rows made later sort later and the indexes keyed by UUID (here and on
    /// every device that merges them) grow at their end instead of everywhere.
    static func newUUIDSQL(_ row: String) -> String {
        let millis = "printf('%012x', CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER))"
        let number = "printf('%010x', \(row).rowid)"
        return """
            (substr(\(millis), 1, 8) || '-' || substr(\(millis), 9, 4) || '-7' || substr(\(number), 1, 3) || '-'
                || '8' || substr(\(number), 4, 3) || '-' || substr(\(number), 7, 4) || lower(hex(randomblob(4))))
            """
    }

    /// `newUUIDSQL`'s layout made here, for rows inserted without the trigger
    /// (`BulkIntervals`): `millis` (12 hex digits), then `number` (the row's place, 10) and
    /// 32 random bits (8), as `xxxxxxxx-xxxx-7nnn-8nnn-nnnnrrrrrrrr`.
    static func newUUID(millis: Int64, number: Int64, random: UInt32) -> String {
        let time = UInt64(max(0, millis)) & 0xFFFF_FFFF_FFFF
        let place = UInt64(max(0, number)) & 0xFF_FFFF_FFFF
        return UUIDText.text(
            high: time << 16 | 0x7000 | place >> 28,
            low: 0x8 << 60 | (place >> 16 & 0xFFF) << 48 | (place & 0xFFFF) << 32 | UInt64(random))
    }

    /// Whether changes are written as operations now: sync is on and the merge is not writing.
    static let recordingSQL = "(SELECT recording FROM sync_self WHERE id = 1) = 1"

    /// The value of `column` as the operation carries it, from the row named `row` (`NEW`,
    /// `OLD` or the table itself).
    func value(_ column: Column, of row: String) -> String {
        column.projectReference
            ? "(SELECT uuid FROM project WHERE id = \(row).\(column.column))"
            : column.clientReference
                ? "(SELECT uuid FROM client WHERE id = \(row).\(column.column))" : "\(row).\(column.column)"
    }

    /// `json_object('name', NEW.name, …)`: every field of the row; a row being made also says
    /// `deleted: false`, so that an entity made again after a delete (a weekday's target set
    /// again) is not kept deleted by its older tombstone.
    func fieldsJSON(of row: String, creating: Bool = false) -> String {
        let fields = columns.map { "'\($0.field)', \(value($0, of: row))" } + (creating ? ["'deleted', json('false')"] : [])
        return "json_object(" + fields.joined(separator: ", ") + ")"
    }

    /// The migration's SQL: the `uuid` column, filled, and the three triggers that write each
    /// insert, update and delete into `sync_change` while recording. An update writes only the
    /// fields it changed, so that two devices changing two fields of one entity both win.
    var triggersSQL: String {
        """
        ALTER TABLE \(table) ADD COLUMN uuid TEXT;
        UPDATE \(table) SET uuid = \(Self.newUUIDSQL(table));
        CREATE UNIQUE INDEX \(table)_uuid ON \(table)(uuid);

        """ + triggersOnlySQL
    }

    /// The table as migration v10 described it: without the columns added later.
    var asInV10: SyncTable {
        var table = self
        table.columns = columns.filter { !$0.later }
        return table
    }

    /// The three triggers alone, dropped first: what a migration adding a column runs again.
    var triggersAgainSQL: String {
        """
        DROP TRIGGER sync_\(table)_insert;
        DROP TRIGGER sync_\(table)_update;
        DROP TRIGGER sync_\(table)_delete;

        """ + triggersOnlySQL
    }

    /// The triggers that write each insert, update and delete into `sync_change`.
    var triggersOnlySQL: String {
        let changed = columns.map { "CASE WHEN NEW.\($0.column) IS OLD.\($0.column) THEN '$.\($0.field)' ELSE '$.\"\"' END" }
        return """
            CREATE TRIGGER sync_\(table)_insert AFTER INSERT ON \(table)
                WHEN NEW.uuid IS NULL OR \(Self.recordingSQL) BEGIN
                UPDATE \(table) SET uuid = \(Self.newUUIDSQL("NEW")) WHERE rowid = NEW.rowid AND uuid IS NULL;
                INSERT INTO sync_change (kind, uuid, fields)
                    SELECT '\(entity.rawValue)', uuid, \(fieldsJSON(of: "NEW", creating: true)) FROM \(table)
                    WHERE rowid = NEW.rowid AND \(Self.recordingSQL);
            END;
            CREATE TRIGGER sync_\(table)_update AFTER UPDATE OF \(columns.map(\.column).joined(separator: ", "))
                ON \(table) WHEN \(Self.recordingSQL) AND NEW.uuid IS NOT NULL BEGIN
                INSERT INTO sync_change (kind, uuid, fields)
                    SELECT '\(entity.rawValue)', NEW.uuid, f
                    FROM (SELECT json_remove(\(fieldsJSON(of: "NEW")), \(changed.joined(separator: ", "))) AS f)
                    WHERE f <> '{}';
            END;
            CREATE TRIGGER sync_\(table)_delete AFTER DELETE ON \(table)
                WHEN \(Self.recordingSQL) AND OLD.uuid IS NOT NULL BEGIN
                INSERT INTO sync_change (kind, uuid, fields) VALUES ('\(entity.rawValue)', OLD.uuid, '{"deleted":true}');
            END;
            """
    }

    /// Every row of the table as a change (the snapshot `sync enable` writes once).
    var snapshotSQL: String { creationsSQL() }

    /// The rows `filter` picks (`WHERE …`, or all) as creations, in rowid order: what the
    /// insert trigger records row by row, in one statement (`BulkIntervals`, the snapshot).
    func creationsSQL(_ filter: String = "") -> String {
        "INSERT INTO sync_change (kind, uuid, fields) SELECT '\(entity.rawValue)', uuid, \(fieldsJSON(of: table, creating: true)) FROM \(table)\(filter.isEmpty ? "" : " " + filter) ORDER BY rowid"
    }

    /// Every row of the table that has a uuid as a deletion, in rowid order: what the delete
    /// trigger records row by row, in one statement (a history reset).
    var deletionsSQL: String {
        "INSERT INTO sync_change (kind, uuid, fields) SELECT '\(entity.rawValue)', uuid, '{\"deleted\":true}' FROM \(table) WHERE uuid IS NOT NULL ORDER BY rowid"
    }

    /// Whether changes are being recorded now (`recordingSQL`, asked in `db`).
    static func isRecording(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT \(recordingSQL)") == true
    }

    /// The sync tables themselves.
    static let tablesSQL = """
        -- This device: its id and name, the folder, whether changes are recorded now, the last
        -- operation it wrote (sequence, id) and its hybrid clock.
        CREATE TABLE sync_self (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            device TEXT NOT NULL,
            name TEXT NOT NULL,
            folder TEXT,
            recording INTEGER NOT NULL DEFAULT 0,
            last_seq INTEGER NOT NULL DEFAULT 0,
            last_op TEXT,
            hlc_wall INTEGER NOT NULL DEFAULT 0,
            hlc_counter INTEGER NOT NULL DEFAULT 0
        );
        -- Changes the triggers recorded in the transaction under way; made into operations
        -- (sync_outbox) before it commits.
        CREATE TABLE sync_change (
            seq INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            uuid TEXT NOT NULL,
            fields TEXT NOT NULL
        );
        -- This device's operations not yet known to be in the folder, by sequence.
        CREATE TABLE sync_outbox (seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
        -- Each entity's fields as the merge sees them: the value with the greatest stamp; the
        -- stamp (the operation that set it: its clock and id) kept once per operation. Every
        -- operation written or applied here has one, so its id also says it was applied (a
        -- file read twice adds nothing).
        CREATE TABLE sync_stamp (
            id INTEGER PRIMARY KEY,
            wall INTEGER NOT NULL,
            counter INTEGER NOT NULL,
            device TEXT NOT NULL,
            op TEXT NOT NULL UNIQUE
        );
        CREATE TABLE sync_field (
            kind TEXT NOT NULL,
            uuid TEXT NOT NULL,
            field TEXT NOT NULL,
            value TEXT NOT NULL,
            stamp INTEGER NOT NULL,
            PRIMARY KEY (kind, uuid, field)
        ) WITHOUT ROWID;
        CREATE INDEX sync_field_project ON sync_field(value) WHERE field = 'project';
        -- Each peer: how far its log has been read, its last operation's instant, and what
        -- stopped the reading (damage named by file and byte).
        CREATE TABLE sync_peer (
            device TEXT PRIMARY KEY,
            segment INTEGER NOT NULL DEFAULT 1,
            offset INTEGER NOT NULL DEFAULT 0,
            sequence INTEGER NOT NULL DEFAULT 0,
            last_op_us INTEGER,
            problem TEXT
        );
        """

    /// From one row per merged field to one row per entity (`StampedFields` text), and the
    /// entities waiting for a project.
    static let entitiesSQL = """
        CREATE TABLE sync_entity (
            kind TEXT NOT NULL,
            uuid TEXT NOT NULL,
            fields TEXT NOT NULL,
            PRIMARY KEY (kind, uuid)
        ) WITHOUT ROWID;
        INSERT INTO sync_entity (kind, uuid, fields)
            SELECT kind, uuid, json_group_object(field, json_array(json(value), stamp))
            FROM (SELECT kind, uuid, field, value, stamp FROM sync_field ORDER BY kind, uuid, field)
            GROUP BY kind, uuid;
        -- Intervals and tasks whose merged project is not here yet: written again when it is.
        CREATE TABLE sync_waiting (
            project TEXT NOT NULL,
            kind TEXT NOT NULL,
            uuid TEXT NOT NULL,
            PRIMARY KEY (project, kind, uuid)
        ) WITHOUT ROWID;
        INSERT INTO sync_waiting (project, kind, uuid)
            SELECT json_extract(value, '$'), kind, uuid FROM sync_field
            WHERE field = 'project' AND value <> 'null'
                AND json_extract(value, '$') NOT IN (SELECT uuid FROM project WHERE uuid IS NOT NULL);
        DROP TABLE sync_field;
        """

    /// The whole migration: the tables, then each synced table's uuid and triggers. The
    /// settings that travel (the weekday targets) are keyed by weekday: their UUID is fixed
    /// by it, so that two devices setting Monday's target set the same entity.
    static var migrationSQL: String {
        var sql = tablesSQL
        for table in all where table.entity != .client { sql += "\n" + table.asInV10.triggersSQL }
        sql += "\n" + weekdayInsertTriggerSQL(dropFirst: true, table: named(.setting).asInV10) + """

            UPDATE work_target SET uuid = \(weekdayUUIDSQL("weekday"));
            """
        return sql
    }

    /// The weekday targets' insert trigger: a row's UUID is fixed by its weekday (the generic
    /// trigger gives a fresh one), with the fields of `table` (the columns of its migration).
    static func weekdayInsertTriggerSQL(dropFirst: Bool, table: SyncTable = named(.setting)) -> String {
        (dropFirst ? "DROP TRIGGER sync_work_target_insert;\n" : "") + """
            CREATE TRIGGER sync_work_target_insert AFTER INSERT ON work_target
                WHEN NEW.uuid IS NULL OR \(recordingSQL) BEGIN
                UPDATE work_target SET uuid = \(weekdayUUIDSQL("NEW.weekday")) WHERE rowid = NEW.rowid AND uuid IS NULL;
                INSERT INTO sync_change (kind, uuid, fields)
                    SELECT 'setting', uuid, \(table.fieldsJSON(of: "NEW", creating: true)) FROM work_target
                    WHERE rowid = NEW.rowid AND \(recordingSQL);
            END;
            """
    }

    /// `00000000-0000-4000-8000-00000000000N` for weekday N.
    static func weekdayUUIDSQL(_ weekday: String) -> String {
        "printf('00000000-0000-4000-8000-%012d', \(weekday))"
    }
}
