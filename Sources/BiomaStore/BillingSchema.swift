/// The migration for clients, rates and tags.
enum BillingSchema {
    /// A client has a name (unique ignoring case) and optionally a rate (minor units of its
    /// currency per hour); a project may name a client (removing the client keeps the project,
    /// client-less), its own rate and currency, and be not billable; an interval has its tags as
    /// one space-separated text, and the edit journal keeps them before and after an edit.
    static let sql =
        """
        CREATE TABLE client (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            rate_minor INTEGER CHECK (rate_minor IS NULL OR rate_minor > 0),
            currency TEXT CHECK (currency IS NULL OR length(currency) = 3),
            position INTEGER NOT NULL
        );
        ALTER TABLE project ADD COLUMN client_id TEXT REFERENCES client(id) ON DELETE SET NULL;
        ALTER TABLE project ADD COLUMN rate_minor INTEGER CHECK (rate_minor IS NULL OR rate_minor > 0);
        ALTER TABLE project ADD COLUMN currency TEXT CHECK (currency IS NULL OR length(currency) = 3);
        ALTER TABLE project ADD COLUMN billable INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE interval ADD COLUMN tags TEXT;
        ALTER TABLE edit_journal_row ADD COLUMN before_tags TEXT;
        ALTER TABLE edit_journal_row ADD COLUMN after_tags TEXT;

        """ + SyncTable.named(.interval).triggersAgainSQL + "\n" + SyncTable.named(.project).triggersAgainSQL + "\n"
        + SyncTable.named(.client).triggersSQL
}
