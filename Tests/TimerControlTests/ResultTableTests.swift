import DBusCore
import Testing
import TimerControl

/// Method results go through their row's table both ways: what the daemon writes is what a
/// client reads, key by key, and the D-Bus types are the table's.
@Suite struct ResultTableTests {
    @Test func listProjectsRoundTrips() throws {
        var a = ProjectListing()
        (a.id, a.name, a.color, a.position, a.running) = ("p1", "Client A", "#FF8800", 0, true)
        (a.sessionTime, a.dailyTotal) = (5_000_000, 90_000_000)
        var b = ProjectListing()
        (b.id, b.name, b.color, b.position) = ("p2", "R&D \u{1B}", "#00AA00", 1)
        let result = ProjectListing.table.list([a, b])
        #expect(result.signature == "aa{sv}")
        let first = try #require(result.array?.first?.vardict)
        #expect(first["Position"] == .uint32(0) && first["SessionTime"] == .int64(5_000_000) && first["Name"] == .string("Client A"))
        #expect(ProjectListing.table.rows(result, over: ProjectListing()) == [a, b])
    }

    @Test func listTasksRoundTrips() throws {
        var t = TaskListing()
        (t.id, t.title, t.project, t.due, t.remind, t.done, t.doneAt) = ("t1", "Call", "p1", 7, true, true, 9)
        let result = TaskListing.table.list([t, TaskListing()])
        let first = try #require(result.array?.first?.vardict)
        #expect(first["Due"] == .int64(7) && first["Remind"] == .boolean(true) && first["DoneAt"] == .int64(9))
        #expect(TaskListing.table.rows(result, over: TaskListing()) == [t, TaskListing()])
    }

    /// A missing entry, or one of another type, keeps the fallback's value.
    @Test func missingAndMistypedEntriesKeepTheFallback() {
        var fallback = ProjectListing()
        fallback.name = "?"
        let result = DBusValue.array(
            .array(.dictEntry(.string, .variant)), [.vardict(ordered: [("Id", .string("p3")), ("Name", .int64(3))])])
        let rows = ProjectListing.table.rows(result, over: fallback)
        #expect(rows.count == 1 && rows[0].id == "p3" && rows[0].name == "?")
        #expect(ProjectListing.table.rows(nil, over: fallback).isEmpty)
    }
}
