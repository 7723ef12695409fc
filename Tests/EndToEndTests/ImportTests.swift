import BiomaCore
import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// `biomatimer import --format timewarrior|watson`: the real `timew` makes the data, the real
/// CLI imports it into a daemon on a private bus, and the totals must be what Timewarrior's own
/// `timew summary` says.
@Suite(.ownThread, .timeLimit(.minutes(3)))
struct ImportEndToEndTests {
    static let timew = "/usr/bin/timew"

    /// A Timewarrior database in a temporary folder, driven through the real binary in `zone`.
    final class Timewarrior {
        let directory: URL
        let zone: String

        init(zone: String) throws {
            directory = try makeTemporaryDirectory("timewarrior")
            self.zone = zone
            try "verbose = no\nconfirmation = no\n".write(
                to: directory.appendingPathComponent("timewarrior.cfg"), atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            var env = ProcessInfo.processInfo.environment
            env["TIMEWARRIORDB"] = directory.path
            env["TZ"] = zone
            let r = try runProcess(ImportEndToEndTests.timew, arguments + [":yes"], environment: env)
            guard r.status == 0 else { throw TestSupportError("timew \(arguments): \(r.status) \(r.stderr)") }
            return r.stdout
        }

        /// The grand total `timew summary` prints for the range and filter (its last line).
        func summaryTotal(_ from: String, _ to: String, _ tags: [String] = []) throws -> Micros {
            let text = try run(["summary", from, "-", to] + tags)
            let last = try #require(text.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
            let parts = last.trimmingCharacters(in: .whitespaces).split(separator: ":").compactMap { Int64($0) }
            try #require(parts.count == 3, "timew summary ended with \(last)")
            return ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * microsPerSecond
        }
    }

    /// A daemon on a private bus, in time zone `zone`.
    static func daemon(zone: String) throws -> (DaemonFixture, ChildProcess) {
        let f = try DaemonFixture(activation: false)
        var env = f.environment
        env["TZ"] = zone
        let daemon = try ChildProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: env)
        #expect(waitUntil { (try? f.daemonPID()) != nil }, "the daemon did not start")
        return (f, daemon)
    }

    /// `biomatimer report --json` for the period containing `day`: work, no-project and
    /// per-project totals.
    static func report(_ f: DaemonFixture, _ period: String, _ day: String) throws -> (work: Micros, none: Micros, projects: [String: Micros]) {
        let r = try f.cli(["report", "--\(period)", "--date", day, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var projects: [String: Micros] = [:]
        for p in json["projects"] as? [[String: Any]] ?? [] {
            projects[p["name"] as? String ?? ""] = (p["total"] as? NSNumber)?.int64Value
        }
        return ((json["work_total"] as? NSNumber)?.int64Value ?? -1, (json["no_project_total"] as? NSNumber)?.int64Value ?? -1, projects)
    }

    @Test func timewarriorTotalsEqualTimewSummary() throws {
        // Berlin, across a midnight and the spring DST change (2024-03-31 02:00 → 03:00).
        let zone = "Europe/Berlin"
        let tw = try Timewarrior(zone: zone)
        try tw.run(["track", "2024-03-28T09:00:00", "-", "2024-03-28T10:30:00", "meeting", "acme"])
        try tw.run(["track", "2024-03-28T11:00:00", "-", "2024-03-28T12:15:00", "beta"])
        try tw.run(["track", "2024-03-30T23:30:00", "-", "2024-03-31T04:00:00", "Café ☕"])
        try tw.run(["track", "2024-03-31T10:00:00", "-", "2024-03-31T11:00:00"])
        try tw.run(["track", "2024-04-02T08:00:00", "-", "2024-04-02T09:00:00", "acme"])
        try tw.run(["track", "2024-04-02T09:00:00", "-", "2024-04-02T09:30:20", "zz-later", "beta"])
        let export = try tw.run(["export"])
        let file = tw.directory.appendingPathComponent("export.json")
        try export.write(to: file, atomically: true, encoding: .utf8)

        let (f, daemon) = try Self.daemon(zone: zone)
        defer { daemon.terminate() }
        var r = try f.cli(["import", "--format", "timewarrior", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 6 intervals.\n")
        #expect(r.stderr == "")

        // The year, each project's tag, and the day of the DST change and midnight split.
        let year = try Self.report(f, "year", "2024-03-28")
        #expect(year.work == (try tw.summaryTotal("2024-01-01", "2025-01-01")))
        for tag in ["acme", "beta", "Café ☕"] {
            #expect(year.projects[tag] == (try tw.summaryTotal("2024-01-01", "2025-01-01", [tag])), "\(tag)")
        }
        #expect(year.projects.count == 3)
        #expect(year.none == 60 * minute)
        let day = try Self.report(f, "day", "2024-03-31")
        #expect(day.work == (try tw.summaryTotal("2024-03-31", "2024-04-01")))
        #expect(day.projects["Café ☕"] == (try tw.summaryTotal("2024-03-31", "2024-04-01", ["Café ☕"])))
        #expect(day.projects["Café ☕"] == 3 * hour)
        let week = try Self.report(f, "week", "2024-03-28")
        #expect(week.work == (try tw.summaryTotal("2024-03-25", "2024-04-01")))

        // Twice adds nothing; standard input works the same.
        let before = try f.durableState()
        r = try f.cli(["import", "--format", "timewarrior", "-"], input: export)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 0 intervals.\n")
        #expect(try f.durableState() == before)

        // The same time sent to another project is refused as overlapping, naming the entry.
        r = try f.cli(["import", "--format", "timewarrior", "--tag-map", "beta=Other", file.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Timewarrior entry "), "\(r.stderr)")
        #expect(r.stderr.contains("overlaps recorded time"), "\(r.stderr)")
        #expect(try f.durableState() == before)

        // An interval still being tracked is refused, by its id.
        try tw.run(["start", "2024-04-03T09:00:00", "acme"])
        let open = try tw.run(["export"])
        r = try f.cli(["import", "--format", "timewarrior", "-"], input: open)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("Timewarrior entry 7 (id @1): it is still open (it has no \"end\"): stop it with `timew stop`"),
            "\(r.stderr)")
        #expect(try f.durableState() == before)
        try tw.run(["stop", "2024-04-03T10:00:00"])
        r = try f.cli(["import", "--format", "timewarrior", "-"], input: try tw.run(["export"]))
        #expect(r.stdout == "Imported 1 interval.\n", "\(r.stderr)")
        #expect(try Self.report(f, "year", "2024-04-03").projects["acme"] == (try tw.summaryTotal("2024-01-01", "2025-01-01", ["acme"])))
    }

    /// Watson is not packaged for Debian, so it cannot run here. This is the frames file
    /// Watson 2.1.0 wrote (`watson add` of the four frames in UTC; json.dump with indent=1 and
    /// UTF-8 as is), and the totals are the ones its `watson report --from 2024-05-06 --to
    /// 2024-05-12 --json` printed for it: acme 12600 s, beta 1200 s, Café ☕ 8100 s, 21900 s in
    /// all. Those with a tag map are worked out by hand below.
    static let watsonFrames = """
        [
         [
          1714982400,
          1714987800,
          "acme",
          "f5c3d054afe2405db09736b33b382289",
          [
           "meeting"
          ],
          1795437002
         ],
         [
          1714989600,
          1714996800,
          "acme",
          "8d873760bb474a8c9b9700f614e07423",
          [
           "code"
          ],
          1795437002
         ],
         [
          1715036400,
          1715044500,
          "Café ☕",
          "e4b8d23c570b4271b295ea41e8880885",
          [],
          1795437002
         ],
         [
          1715072400,
          1715073600,
          "beta",
          "fc3fdea44be24d1aaa1a8fc9a0e924ec",
          [
           "meeting",
           "code"
          ],
          1795437002
         ]
        ]
        """

    @Test func watsonFramesAsWatsonReportsThem() throws {
        let (f, daemon) = try Self.daemon(zone: "UTC")
        defer { daemon.terminate() }
        let file = f.dataDirectory.appendingPathComponent("frames")
        try Self.watsonFrames.write(to: file, atomically: true, encoding: .utf8)
        var r = try f.cli(["import", "--format", "watson", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 4 intervals.\n")
        let week = try Self.report(f, "week", "2024-05-06")
        #expect(week.projects == ["acme": 12600 * microsPerSecond, "beta": 1200 * microsPerSecond, "Café ☕": 8100 * microsPerSecond])
        #expect(week.work == 21900 * microsPerSecond)
        #expect(week.none == 0)

        let before = try f.durableState()
        r = try f.cli(["import", "--format", "watson", file.path])
        #expect(r.stdout == "Imported 0 intervals.\n", "\(r.stderr)")
        #expect(try f.durableState() == before)
    }

    @Test func watsonFramesWithATagMap() throws {
        let (f, daemon) = try Self.daemon(zone: "UTC")
        defer { daemon.terminate() }
        // Meetings go to their own project wherever they were; the rest stays by Watson project.
        let r = try f.cli(["import", "--format", "watson", "--tag-map", "meeting=Meetings", "-"], input: Self.watsonFrames)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 4 intervals.\n")
        // By hand: acme 10:00–12:00 = 2:00; Meetings 8:00–9:30 + 9:00–9:20 (the 7th) = 1:50;
        // Café ☕ 23:00–01:15 = 2:15, of which 1:00 on the 6th and 1:15 on the 7th.
        let week = try Self.report(f, "week", "2024-05-06")
        #expect(week.projects == ["acme": 2 * hour, "Meetings": 110 * minute, "Café ☕": 135 * minute])
        #expect(week.work == 2 * hour + 110 * minute + 135 * minute)
        #expect(try Self.report(f, "day", "2024-05-06").work == 4 * hour + 30 * minute)
        #expect(try Self.report(f, "day", "2024-05-07").work == 95 * minute)
    }

    @Test func brokenFilesAndUsageErrors() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Kept"])
        let before = try f.durableState()
        let broken = """
            [
            {"id":3,"start":"20240304T080000Z","end":"20240304T093000Z","tags":["acme"]},
            {"id":2,"start":"20240304T100000Z","end":"20240304T110000Z","tags":["beta"]},
            {"id":1,"start":"20240305T090000Z","end":"yesterday"}
            ]
            """
        var r = try f.cli(["import", "--format", "timewarrior", "-"], input: broken)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(#"Timewarrior entry 3 (id @1): "end" "yesterday" is not a time like "20240131T170000Z". Nothing was imported."#),
            "\(r.stderr)")
        #expect(r.stdout == "")
        r = try f.cli(["import", "--format", "watson", "-"], input: "[[1709539200, 1709542800, \"acme\"]]")
        #expect(r.status == 1)
        #expect(r.stderr.contains("Watson frame 1: expected 4 to 7 fields"), "\(r.stderr)")
        r = try f.cli(["import", "--format", "watson", "-"], input: "[[1709539200, 1709542800, \"acme\", \"x\"],]")
        #expect(r.status == 1)
        #expect(r.stderr.contains("The Watson frames file is not valid JSON: line 1, column 40"), "\(r.stderr)")
        r = try f.cli(["import", "--format", "timewarrior", "-"], input: "")
        #expect(r.status == 1)
        #expect(r.stderr.contains("The Timewarrior export is empty"), "\(r.stderr)")
        #expect(try f.durableState() == before)

        // Usage errors (2), before any call.
        for arguments in [
            ["import", "--format", "timewarrior", "--tag-map", "acme", "x.json"],
            ["import", "--format", "timewarrior", "--tag-map", "=ACME", "x.json"],
            ["import", "--format", "watson", "--tag-map", "a=B", "--tag-map", "a=C", "x.json"],
            ["import", "--tag-map", "a=B", "x.csv"],
            ["import", "--format", "toggl", "x.json"],
        ] {
            r = try f.cli(arguments)
            #expect(r.status == 2, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains("Usage: biomatimer import"), "\(arguments): \(r.stderr)")
        }
        #expect(try f.durableState() == before)
    }

    /// Big imports say what they are doing first, on a terminal only (`script` gives the
    /// command one).
    @Test func progressOnATerminal() throws {
        let f = try DaemonFixture()
        let base = t("2020-01-01T00:00:00Z") / microsPerSecond
        let frames = (0..<10_000).map { i in
            "[\(base + Int64(i) * 3600), \(base + Int64(i) * 3600 + 1800), \"p\(i % 3)\", \"id\(i)\", [], \(base)]"
        }
        let file = f.dataDirectory.appendingPathComponent("frames")
        try ("[\n" + frames.joined(separator: ",\n") + "\n]").write(to: file, atomically: true, encoding: .utf8)
        var r = try runProcess(
            "/usr/bin/script", ["-qec", "\(DaemonFixture.binary) import --format watson \(file.path)", "/dev/null"],
            environment: f.environment)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout == "Importing 10000 intervals…\r\nImported 10000 intervals.\r\n")
        r = try f.cli(["import", "--format", "watson", file.path])
        #expect(r.stdout == "Imported 0 intervals.\n")
        #expect(r.stderr == "", "no progress line without a terminal")
    }

    /// The private bus keeps dbus-daemon's default max_message_size (32 MiB): a bigger import
    /// sent by biomatimer-tool is dropped by the bus, and it says why instead of blaming the
    /// daemon. Through the front the daemon reads the file from the descriptor it is given, so
    /// the bus's limit does not apply.
    @Test func tooBigForTheBus() throws {
        let f = try DaemonFixture()
        try f.cliOK(["status"])
        let before = try f.durableState()
        let file = f.dataDirectory.appendingPathComponent("big.json")
        try ("[" + String(repeating: " ", count: 33 << 20) + "]").write(to: file, atomically: false, encoding: .utf8)
        let front = try f.cli(["import", "--format", "timewarrior", file.path])
        #expect(front.status == 0 && front.stdout == "Imported 0 intervals.\n", "status \(front.status): \(front.stderr)")
        let r = try runProcess(
            productsDirectory.appendingPathComponent("biomatimer-tool").path, ["import", "--format", "timewarrior", file.path],
            environment: f.environment)
        try? FileManager.default.removeItem(at: file)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("big.json has 33 MiB: the bus may have refused a message that large (its max_message_size). Split it and import the parts."),
            "\(r.stderr)")
        #expect(try f.durableState() == before)
    }

    @Test func importOverDBus() throws {
        let f = try DaemonFixture()
        try f.cliOK(["status"])
        let before = try f.durableState()
        let prefix = ContractNames.errorPrefix
        let good = #"[{"start":"20240304T080000Z","end":"20240304T093000Z","tags":["acme"]}]"#
        func gdbus(_ args: [String]) throws -> ProcessResult {
            try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.interface).Import"] + args)
        }
        let refused: [([String], String, String)] = [
            (["toggl", "[]", "{}"], "InvalidArgument", "Unknown import format 'toggl': use csv, timewarrior, watson."),
            (["timewarrior", "[]", "{'Bogus': <true>}"], "InvalidArgument", "Unknown option 'Bogus': use TagMap."),
            (["timewarrior", "[]", "{'TagMap': <'acme=ACME'>}"], "InvalidArgument", "TagMap must be of type a{ss}, not s."),
            (["timewarrior", "[]", "{'TagMap': <{'acme': <'ACME'>}>}"], "InvalidArgument", "TagMap must be of type a{ss}, not a{sv}."),
            (["timewarrior", "[]", "{'TagMap': <{'acme': 'A\\tB'}>}"], "InvalidArgument", "TagMap: the project for tag \"acme\" is not a valid name"),
            (["csv", "", "{'TagMap': <{'acme': 'ACME'}>}"], "InvalidArgument", "TagMap is for the timewarrior and watson formats"),
            (["timewarrior", "[{\"start\":\"20240304T080000Z\"}]", "{}"], "InvalidImport", "Timewarrior entry 1: it is still open"),
            (["watson", "{}", "{}"], "InvalidImport", "The Watson frames file must be a JSON array"),
            (["csv", "project,color,start,end,duration\nA,#12,x,y,z\n", "{}"], "InvalidImport", "CSV line 2: "),
        ]
        for (args, error, message) in refused {
            let r = try gdbus(args)
            #expect(r.status != 0, "\(args) was accepted")
            #expect(r.stderr.contains("GDBus.Error:\(prefix)\(error): \(message)"), "\(args): \(r.stderr)")
        }
        #expect(try f.durableState() == before)

        var r = try gdbus(["timewarrior", good, "{'TagMap': <{'acme': 'ACME Corp'}>}"])
        #expect(r.stdout == "(uint32 1,)\n", "\(r.stderr)")
        r = try gdbus(["timewarrior", good, "{'TagMap': <{'acme': 'ACME Corp'}>}"])
        #expect(r.stdout == "(uint32 0,)\n", "\(r.stderr)")
        #expect(try f.properties()["Projects"]?.array?.compactMap { $0.fields?[1].string } == ["ACME Corp"])
        // CSV through Import reads what ExportCSV writes.
        let csv = try #require(try f.method("ExportCSV", [.string(""), .string("")]).first?.string)
        let g = try DaemonFixture()
        #expect(try g.method("Import", [.string("csv"), .string(csv), .vardict([:])]).first == .uint32(1))
        #expect(try g.method("ExportCSV", [.string(""), .string("")]).first?.string == csv)
    }
}
