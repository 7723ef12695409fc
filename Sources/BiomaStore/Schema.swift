import GRDB

/// Versioned migrations. Never edit a shipped migration: add a new one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        /// Every migration is SQL alone, run in the migration's transaction.
        func migration(_ name: String, _ sql: String) {
            migrator.registerMigration(name) { db in try db.execute(sql: sql) }
        }
        // v1: projects, intervals (end NULL while running), the stopwatch state, key/values.
        migration(
            "v1",
            """
            CREATE TABLE project (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL UNIQUE,
                color TEXT NOT NULL,
                position INTEGER NOT NULL,
                session_us INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE interval (
                id INTEGER PRIMARY KEY,
                start_us INTEGER NOT NULL,
                end_us INTEGER,
                project_id TEXT REFERENCES project(id) ON DELETE CASCADE,
                CHECK (end_us IS NULL OR end_us > start_us)
            );
            CREATE INDEX interval_start ON interval(start_us);
            CREATE INDEX interval_project ON interval(project_id);
            CREATE TABLE timer_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                work_session_us INTEGER NOT NULL DEFAULT 0,
                work_run_start_us INTEGER,
                project_run_start_us INTEGER,
                resume_project_id TEXT,
                session_last_active_us INTEGER,
                last_change_us INTEGER NOT NULL DEFAULT 0
            );
            INSERT INTO timer_state (id) VALUES (1);
            CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            """)
        // v2: reboot recovery (boot id, heartbeat), and an index on the interval end so that
        // "intervals overlapping a day" is a bounded index range, whatever the history size.
        migration(
            "v2",
            """
            ALTER TABLE timer_state ADD COLUMN heartbeat_us INTEGER;
            ALTER TABLE timer_state ADD COLUMN boot_id TEXT;
            CREATE INDEX interval_end ON interval(end_us);
            CREATE UNIQUE INDEX interval_single_open ON interval(ifnull(end_us, 0))
                WHERE end_us IS NULL;
            """)
        // v3: tasks with optional due instants and reminders; a deleted project leaves its
        // tasks without one.
        migration(
            "v3",
            """
            CREATE TABLE task (
                id TEXT PRIMARY KEY NOT NULL,
                title TEXT NOT NULL,
                project_id TEXT REFERENCES project(id) ON DELETE SET NULL,
                due_us INTEGER,
                remind INTEGER NOT NULL DEFAULT 0,
                done INTEGER NOT NULL DEFAULT 0,
                done_us INTEGER,
                reminded_due_us INTEGER,
                created_us INTEGER NOT NULL
            );
            """)
        // v4: focus timers: every stretch of a phase that ran (the history), presets, and the
        // running timer itself (one row, its state as JSON; none when off).
        migration(
            "v4-focus",
            """
            CREATE TABLE focus_phase (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                phase TEXT NOT NULL,
                round INTEGER NOT NULL,
                label TEXT NOT NULL,
                project_id TEXT REFERENCES project(id) ON DELETE SET NULL,
                start_us INTEGER NOT NULL,
                end_us INTEGER NOT NULL,
                planned_us INTEGER NOT NULL,
                completed INTEGER NOT NULL,
                CHECK (end_us > start_us)
            );
            CREATE INDEX focus_phase_end ON focus_phase(end_us);
            CREATE TABLE focus_preset (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL UNIQUE,
                plan TEXT NOT NULL,
                created_us INTEGER NOT NULL
            );
            CREATE TABLE focus_timer (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                timer TEXT NOT NULL
            );
            """)
        // v5: the journal of edits, for Undo. The interval table is rebuilt with AUTOINCREMENT
        // so that an id is never given twice: an undo puts deleted rows back under their ids.
        migration("v5-edit-journal", Schema.editJournalSQL)
        // v6: what the daemon kept only in memory and must survive a restart: the absence in
        // progress (and the work removed for it so far), the away time `KeepAway` can give
        // back, and the ids of the notifications it showed (a reminder after a restart
        // replaces its old notification).
        migration(
            "v6-away-notifications",
            """
            -- 'current': the absence in progress (reason, since, the work removed so
            -- far); 'last_removed': the work removed for the last absence, until
            -- KeepAway counts it (no reason or start of its own).
            CREATE TABLE away_state (
                slot TEXT PRIMARY KEY CHECK (slot IN ('current', 'last_removed')),
                reason TEXT CHECK (reason IN ('sleep', 'lock', 'idle')),
                since_us INTEGER,
                removed_start_us INTEGER,
                removed_end_us INTEGER,
                removed_project_id TEXT,
                CHECK (slot = 'last_removed' OR (reason IS NOT NULL AND since_us IS NOT NULL)),
                CHECK (slot = 'current' OR removed_start_us IS NOT NULL)
            );
            CREATE TABLE shown_notification (
                owner TEXT PRIMARY KEY,
                notification_id INTEGER NOT NULL CHECK (notification_id > 0)
            );
            """)
        // v7: a note on an interval (one line, at most 500 characters: `IntervalNote`), and
        // the notes before and after an edit in its journal, so that undo takes a note back.
        migration(
            "v7-interval-notes",
            """
            ALTER TABLE interval ADD COLUMN note TEXT;
            ALTER TABLE edit_journal_row ADD COLUMN before_note TEXT;
            ALTER TABLE edit_journal_row ADD COLUMN after_note TEXT;
            """)
        // v8: the daily work targets `target set` gave (one row per weekday it set, beating the
        // settings file), and the last day whose reached target was announced.
        migration(
            "v8-targets",
            """
            -- weekday: 1 Sunday … 7 Saturday (Calendar's numbering).
            CREATE TABLE work_target (
                weekday INTEGER PRIMARY KEY CHECK (weekday BETWEEN 1 AND 7),
                target_us INTEGER NOT NULL CHECK (target_us BETWEEN 0 AND 86400000000)
            );
            CREATE TABLE target_announced (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                day TEXT NOT NULL
            );
            """)
        // v9: project budgets (an amount per week, month or in total) and, per project, the
        // period whose 80 % and 100 % notices were shown and which of them.
        migration(
            "v9-budgets",
            """
            ALTER TABLE project ADD COLUMN budget_us INTEGER CHECK (budget_us IS NULL OR budget_us > 0);
            ALTER TABLE project ADD COLUMN budget_period TEXT
                CHECK (budget_period IS NULL OR budget_period IN ('week', 'month', 'total'));
            -- thresholds: the notices shown in that period, as percentages ("80,100").
            CREATE TABLE budget_announced (
                project_id TEXT PRIMARY KEY REFERENCES project(id) ON DELETE CASCADE,
                period TEXT NOT NULL,
                thresholds TEXT NOT NULL
            );
            """)
        // v10: sync. Every project, preset, task, weekday target and interval gets a UUID
        // (its identity on every device); triggers record each change as an operation while
        // sync is on (`SyncSchema`); the merged fields, applied operations and peers' cursors.
        migration("v10-sync", SyncTable.migrationSQL)
        // v11: an entity's merged fields in one row (`sync_entity`) instead of one row per
        // field, and the entities that name a project not here yet (`sync_waiting`) instead of
        // an index over every field's value: a replayed interval writes a third as much.
        migration("v11-sync-entities", SyncTable.entitiesSQL)
        // v12: clients above projects, rates, non-billable projects, and an interval's tags
        // (`BillingSchema`).
        migration("v12-clients-tags", BillingSchema.sql)
        // v13: no index on an interval's start. Intervals never overlap, so their starts come
        // in the order of their ends: every query reads the end's index (the first recorded
        // day, the interval starting where another ends), and each interval written (an
        // import, a peer's replay) updates one index fewer. A project's intervals are indexed
        // by their ends too: a budget's period is one range of them, where every publication
        // read all of the project's years. An import's journal entry holds the ids it added
        // (consecutive, from `added_first`) and a digest of each row (`added_digests`), where
        // a row per interval was copied into `edit_journal_row`.
        migration(
            "v13-interval-indexes",
            """
            DROP INDEX interval_start;
            DROP INDEX interval_project;
            CREATE INDEX interval_project_end ON interval(project_id, end_us);
            ALTER TABLE edit_journal ADD COLUMN added_first INTEGER;
            ALTER TABLE edit_journal ADD COLUMN added_digests BLOB;
            """)
        // v14: a target counts from the day it was set. Each weekday's stored targets keep the
        // day each took effect (`TargetHistory.text`; travels with sync); a target stored
        // before counts from the day of this migration. The settings file's targets count from
        // the day the daemon first read each value (`config_target_seen`, this device only).
        migration(
            "v14-target-histories",
            """
            ALTER TABLE work_target ADD COLUMN history TEXT;
            UPDATE work_target SET history = date('now', 'localtime') || '=' || target_us;
            CREATE TABLE config_target_seen (
                weekday INTEGER PRIMARY KEY CHECK (weekday BETWEEN 1 AND 7),
                history TEXT NOT NULL
            );

            """ + SyncTable.named(.setting).triggersAgainSQL + "\n" + SyncTable.weekdayInsertTriggerSQL(dropFirst: true))
        return migrator
    }

    static let editJournalSQL = """
        CREATE TABLE interval_v5 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            start_us INTEGER NOT NULL,
            end_us INTEGER,
            project_id TEXT REFERENCES project(id) ON DELETE CASCADE,
            CHECK (end_us IS NULL OR end_us > start_us)
        );
        INSERT INTO interval_v5 (id, start_us, end_us, project_id) SELECT id, start_us, end_us, project_id FROM interval;
        DROP TABLE interval;
        ALTER TABLE interval_v5 RENAME TO interval;
        CREATE INDEX interval_start ON interval(start_us);
        CREATE INDEX interval_project ON interval(project_id);
        CREATE INDEX interval_end ON interval(end_us);
        CREATE UNIQUE INDEX interval_single_open ON interval(ifnull(end_us, 0)) WHERE end_us IS NULL;
        -- One entry per edit, newest last: kind (add, update, delete, split, reset-history,
        -- import), the words Undo answers with, and the stopwatch's run starts around the
        -- edit when it moved the running interval.
        CREATE TABLE edit_journal (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            what TEXT NOT NULL,
            created_us INTEGER NOT NULL,
            run_saved INTEGER NOT NULL DEFAULT 0,
            work_run_before INTEGER, project_run_before INTEGER,
            work_run_after INTEGER, project_run_after INTEGER
        );
        -- Each row the edit touched, by id: its image before (none: inserted) and after
        -- (none: deleted).
        CREATE TABLE edit_journal_row (
            seq INTEGER NOT NULL REFERENCES edit_journal(seq) ON DELETE CASCADE,
            id INTEGER NOT NULL,
            had_before INTEGER NOT NULL,
            before_start_us INTEGER, before_end_us INTEGER, before_project_id TEXT,
            has_after INTEGER NOT NULL,
            after_start_us INTEGER, after_end_us INTEGER, after_project_id TEXT
        );
        CREATE INDEX edit_journal_row_seq ON edit_journal_row(seq);
        """
}
