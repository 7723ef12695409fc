import BiomaCore
import GRDB
import GRDBSQLite

/// Values bound straight to a prepared statement's parameters, for bulk writes (an import's
/// inserts, a merge's intervals): GRDB's `StatementArguments` box each value in an existential
/// and validate the list on every execution, which cost a quarter of a ten-year insert.
///
/// Made once per execution: it resets the statement and clears its bindings, and every
/// parameter must then be bound before `execute()` (or `step()`), which run it straight
/// through SQLite. A statement bound here and later run through `execute(arguments:)` is bound
/// again there as usual.
struct DirectBinding {
    let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
        // Clears the previous run and bindings; each is bound below. (GRDB's own run of the
        // statement binds its arguments again.)
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_clear_bindings(statement.sqliteStatement)
    }

    /// SQLite copies the text before the call returns (the Swift string need not outlive it).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(statement.sqliteStatement, index, value))
    }

    func bind(_ value: Int64?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        try bind(value, at: index)
    }

    func bind(_ value: String?, at index: Int32) throws {
        guard var value else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        try value.withUTF8 { try bind(text: $0, at: index) }
    }

    /// Text given as its UTF-8 bytes (without a string made and checked between).
    func bind(utf8 bytes: [UInt8], at index: Int32) throws {
        try bytes.withUnsafeBufferPointer { try bind(text: $0, at: index) }
    }

    func bind(utf8 bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws { try bind(text: bytes, at: index) }

    private func bind(text bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        // An empty buffer may have no address, which SQLite would take for NULL.
        try check(
            bytes.isEmpty
                ? sqlite3_bind_text(statement.sqliteStatement, index, "", 0, Self.transient)
                : sqlite3_bind_text(
                    statement.sqliteStatement, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count), Self.transient))
    }

    /// Runs the statement with the values bound, straight through SQLite: GRDB's execution
    /// (its arguments checked, its observers told) was a tenth of a peer's replay. Inside a
    /// transaction GRDB began, on a connection with no transaction observer.
    func execute() throws {
        while try step() {}
        sqlite3_reset(statement.sqliteStatement)
    }

    /// Steps a query with the values bound: true with a row to read (`int64(at:)`,
    /// `text(at:)`, 0-based columns), false once done. Without GRDB's row and cursor, for the
    /// lookups a merge makes per operation; `finish()` once read.
    func step() throws -> Bool {
        switch sqlite3_step(statement.sqliteStatement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(statement.sqliteStatement)))
            sqlite3_reset(statement.sqliteStatement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(statement.sqliteStatement, column) }

    /// `RowDigest` of the row's columns after the first, as SQLite holds them.
    func rowDigest() -> UInt64 {
        var digest = RowDigest()
        let statement = statement.sqliteStatement
        for column in 1..<sqlite3_column_count(statement) {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                digest.add(sqlite3_column_int64(statement, column))
            case SQLITE_NULL:
                digest.addNull()
            case let type:
                // Text (and anything else) by its bytes.
                let count = Int(sqlite3_column_bytes(statement, column))
                digest.add(type: type, bytes: UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, column), count: count))
            }
        }
        return digest.value
    }

    func text(at column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement.sqliteStatement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.sqliteStatement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Ends a query's reading (its read of the database is let go).
    func finish() { sqlite3_reset(statement.sqliteStatement) }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "binding failed") }
    }
}

/// A digest of a row's values (FNV-1a, 64 bits, over each one's type and value as SQLite holds
/// it): the same values give the same digest, on any machine and in any version of this
/// program. Made from a row read back (`DirectBinding.rowDigest`), or from the values an insert
/// binds (`add(_:)` in column order), which give the same digest.
struct RowDigest {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    private mutating func add(byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }

    private mutating func add(word: Int64) { withUnsafeBytes(of: word.littleEndian) { for byte in $0 { add(byte: byte) } } }

    mutating func add(_ integer: Int64) {
        add(byte: UInt8(SQLITE_INTEGER))
        add(word: integer)
    }

    mutating func addNull() { add(byte: UInt8(SQLITE_NULL)) }

    /// A value of another type (text, a blob) by its bytes, after its length.
    mutating func add(type: Int32, bytes: UnsafeRawBufferPointer) {
        add(byte: UInt8(truncatingIfNeeded: type))
        add(word: Int64(bytes.count))
        for byte in bytes { add(byte: byte) }
    }

    /// Text as SQLite holds it in a TEXT column (its UTF-8 bytes), or NULL.
    mutating func add(_ text: String?) {
        guard var text else { return addNull() }
        text.withUTF8 { add(type: SQLITE_TEXT, bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension DirectBinding {
    /// Runs `INSERT … INTO sync_stamp (wall, counter, device, op) VALUES (?, ?, ?, ?)` for an
    /// operation's stamp: what the stamping of this device's changes and the merge of a peer's
    /// both record.
    static func insertStamp(_ statement: Statement, _ time: HybridTime, operation id: String) throws {
        let stamp = DirectBinding(statement)
        try stamp.bind(time, operation: id, at: 1)
        try stamp.execute()
    }

    /// An operation's stamp as the four values `(wall, counter, device, op)` from `index` on.
    func bind(_ time: HybridTime, operation id: String, at index: Int32) throws {
        try bind(time.wall, at: index)
        try bind(Int64(time.counter), at: index + 1)
        try bind(time.device, at: index + 2)
        try bind(id, at: index + 3)
    }
}

extension DirectBinding {
    /// Rows per statement for many rows: `insertRows`, then 16, 4 and 1 for the rest. A few
    /// statement texts, each prepared once per connection (one for every remainder was
    /// prepared again at nearly every slice of a merge).
    static let groupSizes = [StoreHistory.insertRows, 16, 4, 1]

    /// `count` rows as the ranges each statement takes (`groupSizes`).
    static func rowGroups(_ count: Int) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var start = 0
        for size in groupSizes {
            while count - start >= size {
                groups.append(start..<start + size)
                start += size
            }
        }
        return groups
    }

    /// `sql(rows)` for each of `groupSizes`, made once.
    static func groupSQL(_ sql: (Int) -> String) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: groupSizes.map { ($0, sql($0)) })
    }
}
