import DBusCore
import Testing
import BiomaContract

/// Method results go through their row's table both ways: what the daemon writes is what a
/// client reads, key by key, and the D-Bus types are the table's.
@Suite struct ResultTableTests {
    @Test func listProjectsRoundTrips() throws {
        var a = ProjectListing()
        (a.id, a.name, a.color, a.position, a.running) = ("p1", "Client A", "#FF8800", 0, true)
        (a.sessionTime, a.dailyTotal) = (5_000_000, 90_000_000)
        var b = ProjectListing()
        (b.id, b.name, b.color, b.position) = ("p2", "R&D \u{1B}", "#00AA00", 1)
        let result = ProjectListing.list([a, b])
        #expect(result.signature == "aa{sv}")
        let first = try #require(result.array?.first?.vardict)
        #expect(first["Position"] == .uint32(0) && first["SessionTime"] == .int64(5_000_000) && first["Name"] == .string("Client A"))
        #expect(ProjectListing.rows(result) == [a, b])
    }

    @Test func listTasksRoundTrips() throws {
        var t = TaskListing()
        (t.id, t.title, t.project, t.due, t.remind, t.done, t.doneAt) = ("t1", "Call", "p1", 7, true, true, 9)
        let result = TaskListing.list([t, TaskListing()])
        let first = try #require(result.array?.first?.vardict)
        #expect(first["Due"] == .int64(7) && first["Remind"] == .boolean(true) && first["DoneAt"] == .int64(9))
        #expect(TaskListing.rows(result) == [t, TaskListing()])
    }

    @Test func listBackupsRoundTrips() throws {
        var b = BackupListing()
        (b.name, b.taken, b.reason, b.size) = ("biomatimer-202611240915000000-daily.sqlite", 1_795_511_700_000_000, "daily", 98_304)
        let result = BackupListing.list([b])
        #expect(result.signature == "aa{sv}")
        let first = try #require(result.array?.first?.vardict)
        #expect(first["Name"] == .string(b.name) && first["Taken"] == .int64(b.taken) && first["Reason"] == .string("daily"))
        #expect(first["Size"] == .int64(98_304))
        #expect(BackupListing.rows(result) == [b])
        #expect(BackupListing(dbusValue: b.dbusValue) == b)
    }

    /// A missing entry, or one of another type, keeps the default; an element that is not an
    /// `a{sv}` is no row.
    @Test func missingAndMistypedEntriesKeepTheDefault() {
        let result = DBusValue.array(
            .array(.dictEntry(.string, .variant)), [.vardict(ordered: [("Id", .string("p3")), ("Name", .int64(3))])])
        let rows = ProjectListing.rows(result)
        #expect(rows.count == 1 && rows[0].id == "p3" && rows[0].name == "" && rows[0].color == "")
        #expect(ProjectListing.rows(nil).isEmpty)
        #expect(ProjectListing.rows(.array(.string, [.string("p4")])).isEmpty)
    }

    /// The daemon's rows (the table's order) are read in step with the table; the same entries
    /// in any other order read the same, and a value of another type keeps the default either way.
    @Test func entriesInAnyOrderReadTheSame() {
        var a = ProjectListing()
        (a.id, a.name, a.color, a.position, a.running, a.sessionTime) = ("p1", "Client A", "#FF8800", 2, true, 7)
        let ordered = ProjectListing.table.entries(of: a)
        #expect(ProjectListing(dbusValue: .vardict(ordered: ordered)) == a)
        #expect(ProjectListing(dbusValue: .vardict(ordered: Array(ordered.reversed()))) == a)
        let mistyped = ordered.map { $0.0 == "Name" ? ($0.0, DBusValue.int64(3)) : $0 }
        var expected = a
        expected.name = ""
        #expect(ProjectListing(dbusValue: .vardict(ordered: mistyped)) == expected)
        #expect(ProjectListing(dbusValue: .vardict(ordered: Array(mistyped.reversed()))) == expected)
        let partial = Array(ordered.dropLast())
        #expect(
            ProjectListing(dbusValue: .vardict(ordered: partial))
                == ProjectListing.table.decode(Dictionary(uniqueKeysWithValues: partial), over: ProjectListing()))
    }

    /// A row inside a property: `Sync1.Devices` is an array of rows.
    @Test func rowsNestInProperties() {
        var row = SyncDeviceRow()
        (row.id, row.name, row.readUpTo) = ("d1", "Laptop", 42)
        var status = SyncStatus()
        status.devices = [row, SyncDeviceRow()]
        let entries = Dictionary(uniqueKeysWithValues: SyncStatus.table.entries(of: status))
        #expect(entries["Devices"]?.signature == "aa{sv}")
        #expect(SyncStatus.table.decode(entries, over: SyncStatus()).devices == [row, SyncDeviceRow()])
    }
}
