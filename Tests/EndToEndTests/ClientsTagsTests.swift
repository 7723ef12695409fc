import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Clients, rates and tags end to end: the real daemon on a private bus under libfaketime
/// (Friday 2026-11-20, 18:00 UTC), driven by the real CLI and busctl.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct ClientsTagsTests {
    typealias Daemon = NotesEndToEndTests.Daemon

    /// Everything a failed command must leave as it was: clients, projects, intervals, CSV.
    static func state(_ d: Daemon) throws -> String {
        let clients = try d.f.method("ListClients").first?.array ?? []
        let projects = try d.f.method("ListProjects").first?.array ?? []
        // The running project's times move: everything else is compared.
        let moving: Set<String> = ["SessionTime", "DailyTotal", "BudgetUsed"]
        let dump = { (rows: [DBusValue]) in
            rows.map { $0.vardict?.filter { !moving.contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } ?? [] }
        }
        return "\(dump(clients))\n\(dump(projects))\n\(try d.state())"
    }

    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    @Test func clientsRatesAndEarnings() throws {
        let d = try Daemon()
        #expect(try d.cliOK(["client", "add", "ACME", "--rate", "90", "--currency", "eur"]).stdout == "c1\n")
        #expect(try d.cliOK(["client", "add", "Globex"]).stdout == "c2\n")
        #expect(try d.cliOK(["project", "add", "Website", "--client", "acme"]).stdout == "p1\n")
        try d.cliOK(["project", "add", "Hosting", "--client", "ACME", "--rate", "120.50"])
        try d.cliOK(["project", "add", "Internal", "--client", "Globex", "--billable", "no"])
        try d.cliOK(["project", "add", "Loose"])
        // Bad input: a clear error, nothing changed (no project made for a missing client).
        let before = try Self.state(d)
        for (arguments, message) in [
            (["client", "add", "X", "--rate", "90", "--currency", "EURO"], "not an ISO 4217 code"),
            (["client", "add", "X", "--rate=-5", "--currency", "EUR"], "cannot be negative"),
            (["client", "add", "X", "--rate", "5000000", "--currency", "EUR"], "not a rate"),
            (["client", "add", "X", "--rate", "9.999", "--currency", "EUR"], "more decimals"),
            (["client", "add", "acme"], "already exists"),
            (["project", "add", "Other", "--client", "Initech"], "No client named"),
            (["project", "edit", "Loose", "--client", "Initech", "--name", "Renamed"], "No client named"),
            (["project", "edit", "Loose", "--rate", "50"], "needs its currency"),
            (["project", "add", "Other2", "--client", "ACME", "--currency", "XYZ"], "not an ISO 4217 code"),
            (["client", "edit", "Nobody", "--name", "Z"], "No client named"),
        ] {
            let result = try d.cli(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(try Self.state(d) == before, "\(arguments)")
        }
        // ListProjects carries the client and the rate in force.
        let rows = try d.f.method("ListProjects").first?.array ?? []
        let fields = rows.compactMap { $0.vardict }.map {
            [$0["Name"]?.string ?? "", $0["Client"]?.string ?? "", $0["ClientName"]?.string ?? "", "\($0["Rate"]?.int64 ?? -1)",
             $0["Currency"]?.string ?? "", "\($0["Billable"]?.bool ?? false)"]
        }
        #expect(fields == [
            ["Website", "c1", "ACME", "9000", "EUR", "true"], ["Hosting", "c1", "ACME", "12050", "EUR", "true"],
            ["Internal", "c2", "Globex", "0", "", "false"], ["Loose", "", "", "0", "", "true"],
        ])
        let list = try d.cliOK(["project", "list"]).stdout
        #expect(list.hasPrefix("ACME\n  ") && list.contains("\nGlobex\n  ") && list.contains("\nno client\n  "), "\(list)")
        #expect(try d.cliOK(["client", "list"]).stdout.contains("90.00 EUR/h"))
        // 70 min of Website, 20 of Hosting, 30 of Internal.
        try d.cliOK(["add", "09:00-10:10", "--project", "Website"])
        try d.cliOK(["add", "10:10-10:30", "--project", "Hosting"])
        try d.cliOK(["add", "11:00-11:30", "--project", "Internal"])
        // Exact: 105.00 + 40.17 (20 min × 120.50 = 40.1666…).
        let exact = try d.cliOK(["report"]).stdout
        #expect(exact.contains("Earnings\n"), "\(exact)")
        #expect(exact.contains("105.00 EUR") && exact.contains("40.17 EUR") && exact.contains("145.17 EUR"), "\(exact)")
        #expect(exact.contains("not billed"))
        // 15 minutes up, per interval: 1:15 × 90 = 112.50, 0:30 × 120.50 = 60.25.
        let rounded = try d.cliOK(["report", "--round", "15m"]).stdout
        #expect(rounded.contains("112.50 EUR") && rounded.contains("60.25 EUR") && rounded.contains("172.75 EUR"), "\(rounded)")
        let json = try Self.json(try d.cliOK(["report", "--round", "15m", "--json"]).stdout)
        let earnings = json["earnings"] as? [String: Any]
        #expect((earnings?["totals"] as? [String: Any])?["EUR"] as? Int == 17275)
        let lines = earnings?["lines"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["amount"] as? Int } == [11250, 6025, 0])
        #expect(lines.map { $0["billed"] as? Int } == [4_500_000_000, 1_800_000_000, 1_800_000_000])
        // Grouped and filtered: by client, by day, by tag, only a client's or a tag's time.
        try d.cliOK(["edit", "1", "--tag", "meeting"])
        try d.cliOK(["edit", "3", "--tag", "meeting", "--tag", "admin"])
        let byClient = try d.cliOK(["report", "--by", "client", "--round", "15m"]).stdout
        #expect(byClient.contains("Hours by client, 2026-11-20, rounded to 15m up per interval"), "\(byClient)")
        #expect(byClient.contains("ACME") && byClient.contains("1:30:00") && byClient.contains("172.75 EUR"), "\(byClient)")
        #expect(byClient.contains("Globex") && byClient.contains("0:30:00"))
        let byTag = try d.cliOK(["report", "--by", "tag"]).stdout
        #expect(byTag.contains("+meeting") && byTag.contains("1:40:00") && byTag.contains("+admin"), "\(byTag)")
        let tagged = try Self.json(try d.cliOK(["report", "--tag", "meeting", "--by", "project", "--json"]).stdout)
        #expect((tagged["groups"] as? [[String: Any]])?.map { $0["label"] as? String } == ["Website", "Internal"], "\(tagged)")
        #expect(tagged["exact_total"] as? Int == 6_000_000_000)
        let acme = try Self.json(try d.cliOK(["report", "--client", "ACME", "--json", "--by", "day"]).stdout)
        #expect((acme["totals"] as? [String: Any])?["EUR"] as? Int == 14517 && acme["filter"] as? String == "client ACME", "\(acme)")
        // Bars' templates get the running project's client.
        try d.cliOK(["project", "start", "Hosting"])
        #expect(try d.cliOK(["status", "--format", "{client}: {project}"]).stdout == "ACME: Hosting\n")
        #expect(try d.f.properties()["ActiveClient"]?.string == "ACME")
        try d.cliOK(["project", "start", "Loose"])
        #expect(try d.cliOK(["status", "--format", "[{client}] {project}"]).stdout == "[] Loose\n")
        try d.cliOK(["stop"])
        // Removing a client keeps its projects, client-less.
        try d.cliOK(["client", "remove", "Globex"])
        let after = try d.f.method("ListProjects").first?.array ?? []
        #expect(after.count == 4)
        #expect(after.compactMap { $0.vardict?["Client"]?.string } == ["c1", "c1", "", ""])
        // Over the bus: a rate changed, removed.
        try d.f.call("UpdateClient", ["sa{sv}", "ACME", "1", "Rate", "s", "100"]).requireSuccess("UpdateClient")
        #expect(try d.f.method("ListClients").first?.array?.first?.vardict?["Rate"]?.int64 == 10000)
        let bad = try d.f.call("UpdateClient", ["sa{sv}", "ACME", "1", "Colour", "s", "x"])
        #expect(bad.status != 0 && bad.stderr.contains("Unknown option"))
    }

    /// Tags of the interval at `index` of November's intervals.
    static func tags(_ d: Daemon) throws -> [[String]] {
        (try d.f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? [])
            .map { ($0.vardict?["Tags"]?.array ?? []).compactMap(\.string) }
    }

    @Test func tagsThroughStartAddEditTagAndUndo() throws {
        let d = try Daemon()
        try d.cliOK(["project", "add", "Website"])
        #expect(try d.cliOK(["add", "09:00-10:00", "+meeting", "+call", "--project", "Website"]).stdout == "1\n")
        try d.cliOK(["edit", "1", "--tag", "bug", "--untag", "call"])
        #expect(try Self.tags(d) == [["meeting", "bug"]])
        try d.cliOK(["undo"])
        #expect(try Self.tags(d) == [["meeting", "call"]])
        try d.cliOK(["start", "Website", "+deep-work", "+v1.2_x"])
        #expect(try Self.tags(d) == [["meeting", "call"], ["deep-work", "v1.2_x"]])
        #expect(try d.cliOK(["tag", "+review", "-deep-work"]).stdout == "+v1.2_x +review\n")
        #expect(try Self.tags(d).last == ["v1.2_x", "review"])
        #expect(try d.cliOK(["undo"]).stdout.contains("tags of interval 2"))
        #expect(try Self.tags(d).last == ["deep-work", "v1.2_x"])
        // log shows them, as text and JSON.
        let log = try d.cliOK(["log"]).stdout
        #expect(log.contains("+meeting  +call") && log.contains("+deep-work  +v1.2_x"), "\(log)")
        let json = try JSONSerialization.jsonObject(with: Data(try d.cliOK(["log", "--json"]).stdout.utf8)) as? [[String: Any]]
        #expect(json?.map { $0["tags"] as? [String] ?? [] } == [["meeting", "call"], ["deep-work", "v1.2_x"]])
        // Bad tags: a clear error, nothing changed.
        let before = try Self.state(d)
        let long = "+" + String(repeating: "a", count: 33)
        for arguments in [
            ["tag", "+two words"], ["tag", long], ["start", "+a<b"], ["add", "13:00-14:00", "+x y"], ["edit", "1", "--tag", "a b"],
            ["project", "start", "Website", "+é!"], ["tag", "+ok", "+" ], ["tag"],
            ["tag"] + (1...17).map { "+t\($0)" },
        ] {
            let result = try d.cli(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.lowercased().contains("tag"), "\(arguments): \(result.stderr)")
            #expect(try Self.state(d) == before, "\(arguments)")
        }
        // Over the bus the daemon checks them too.
        let bad = try d.f.call("TagRunning", ["asas", "1", "has space", "0"])
        #expect(bad.status != 0 && bad.stderr.contains("is not a word"), "\(bad.stderr)")
        let many = try d.f.call("TagRunning", ["asas", "15"] + (1...15).map { "t\($0)" } + ["0"])
        #expect(many.status != 0 && many.stderr.contains("at most 16 tags"), "\(many.stderr)")
        #expect(try Self.state(d) == before)
        // Both exports leave the running interval out; the CSV and the calendar carry the tags.
        let running = try d.cliOK(["export"]).stdout
        #expect(running.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2, "\(running)")
        #expect(try d.cliOK(["export", "--format", "ics"]).stdout.components(separatedBy: "BEGIN:VEVENT").count == 2)
        // Stopping leaves the interval's tags; with nothing running, tag is an error.
        try d.cliOK(["stop"])
        let none = try d.cli(["tag", "+x"])
        #expect(none.status == 1 && none.stderr.contains("No interval is running"))
        let csv = try d.cliOK(["export"]).stdout
        #expect(csv.hasPrefix("project,color,start,end,duration,note,tags\r\n") && csv.contains(",,meeting call\r\n"), "\(csv)")
        let ics = try d.cliOK(["export", "--format", "ics"]).stdout
        #expect(ics.contains("CATEGORIES:meeting,call\r\n") && ics.contains("CATEGORIES:deep-work,v1.2_x\r\n"), "\(ics)")
        // The CSV round trip keeps them.
        let file = d.f.bus.directory.appendingPathComponent("tags.csv")
        try csv.write(to: file, atomically: true, encoding: .utf8)
        try d.cliOK(["reset-history", "--yes"])
        #expect(try Self.tags(d).isEmpty)
        try d.cliOK(["import", file.path])
        #expect(try Self.tags(d) == [["meeting", "call"], ["deep-work", "v1.2_x"]])
        #expect(try d.cliOK(["export"]).stdout == csv)
    }
}
