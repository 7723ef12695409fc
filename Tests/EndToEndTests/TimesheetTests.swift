import Foundation
import Testing

import TestSupport

/// `report --html` and `report --pdf` end to end: the real daemon under libfaketime (Friday
/// 2026-11-20, 18:00 UTC) and the real CLI; the HTML drawn by headless chromium, the PDF read
/// back by poppler's pdftotext and drawn by pdftoppm, their colours counted by png_pixels.py.
@Suite(.ownThreadLong, .serialized, .timeLimit(.minutes(4)))
struct TimesheetTests {
    typealias Daemon = NotesEndToEndTests.Daemon
    static let hostileClient = "<img src=x onerror=alert(1)> & 'ACME'"
    static let hostileProject = "<b>Web</b> \"site\" مشروع"
    static let note = "<script>alert('x')</script> " + String(repeating: "ملاحظة & ", count: 60)

    /// ACME (90 EUR/h) with a hostile name: Website (#FF8800), Hosting (#22AA44, 120.50 EUR/h);
    /// 70 + 20 minutes on Friday, 3 hours of Website on Wednesday.
    static func setUp() throws -> Daemon {
        let d = try Daemon()
        try d.cliOK(["client", "add", hostileClient, "--rate", "90", "--currency", "EUR"])
        try d.cliOK(["project", "add", hostileProject, "--color", "#FF8800", "--client", "c1"])
        try d.cliOK(["project", "add", "Hosting", "--color", "#22AA44", "--client", "c1", "--rate", "120.50"])
        try d.cliOK(["add", "09:00-10:10", "--project", "p1", "+meeting", "--note", String(note.prefix(500))])
        try d.cliOK(["add", "10:10-10:30", "--project", "Hosting"])
        try d.cliOK(["add", "08:00-11:00", "--date", "2026-11-18", "--project", "p1"])
        return d
    }

    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timesheet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func counts(_ png: URL, top: Int, rows: Int, _ colors: [String]) throws -> [Int] {
        let r = try runProcess(
            "/usr/bin/python3",
            [repositoryRoot.appendingPathComponent("Tests/peers/png_pixels.py").path, "--count", png.path, "\(top)", "\(rows)"]
                + colors.map { String($0.dropFirst()) },
            // A whole page decoded in pure Python: seconds alone, longer beside a full suite.
            timeout: 180)
        guard r.status == 0 else { throw TestSupportError("png_pixels.py exited \(r.status): \(r.stderr)") }
        return r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
    }

    @Test func htmlIsSelfContainedEscapedAndDrawnByChromium() throws {
        let d = try Self.setUp()
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("week.html")
        try d.cliOK(["report", "--week", "--round", "15m", "--html", file.path])
        let html = try String(contentsOf: file, encoding: .utf8)
        #expect(try d.cliOK(["report", "--week", "--round", "15m", "--html", "-"]).stdout == html)
        // Totals: 70 min → 1:15 × 90 = 112.50, 20 → 0:30 × 120.50 = 60.25, 3 h → 270.00.
        #expect(html.contains("442.75 EUR") && html.contains("382.50 EUR") && html.contains("60.25 EUR"), "\(html.prefix(3000))")
        #expect(html.contains("2026-11-16 – 2026-11-22"))
        // Nothing runs, nothing is fetched, every name is escaped.
        for forbidden in ["<script", "<img", "<b>Web", "src=\"", "href=", "url(", "@import", "https:", "<link", "<iframe"] {
            #expect(!html.contains(forbidden), "\(forbidden)")
        }
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt; &amp; &#39;ACME&#39;") || html.contains("&lt;img src=x onerror=alert(1)&gt; &amp; &apos;ACME&apos;"))
        #expect(html.contains("&lt;script&gt;") && html.contains("مشروع"))
        #expect(html.contains("@media print"))
        // Chromium draws it with the projects' colours, and asks the network for nothing.
        let png = dir.appendingPathComponent("page.png")
        let netlog = dir.appendingPathComponent("net.json")
        let shot = try runProcess(
            "/usr/bin/timeout",
            [
                "--kill-after=5", "90", "/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--no-first-run", "--force-device-scale-factor=1", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--no-default-browser-check", "--disable-features=Translate,MediaRouter", "--user-data-dir=\(dir.appendingPathComponent("profile").path)",
                "--log-net-log=\(netlog.path)", "--window-size=1000,1600", "--screenshot=\(png.path)", file.absoluteString,
            ], timeout: 120)
        #expect(shot.status == 0, "\(shot.stderr.suffix(2000))")
        let counts = try Self.counts(png, top: 0, rows: 1600, ["#FF8800", "#22AA44"])
        #expect(counts.count == 2 && counts.allSatisfy { $0 > 400 }, "\(counts)")
        #expect(try Self.pageRequests(netlog).isEmpty)
    }

    /// The URLs the page asked for, from chromium's net log: requests with an initiator (the
    /// browser's own, its clock and updates, are "not an origin"), other than the file itself.
    static func pageRequests(_ netlog: URL) throws -> [String] {
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: netlog)) as? [String: Any]
        let events = log?["events"] as? [[String: Any]] ?? []
        #expect(!events.isEmpty)
        return events.compactMap { event in
            guard let params = event["params"] as? [String: Any], let url = params["url"] as? String,
                let initiator = params["initiator"] as? String, initiator != "not an origin", !url.hasPrefix("file:")
            else { return nil }
            return url
        }
    }

    @Test func pdfHasItsTotalsAsTextPagesAndColours() throws {
        let d = try Self.setUp()
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (paper, size) in [("a4", "595.276 x 841.89"), ("letter", "612 x 792")] {
            let file = dir.appendingPathComponent("\(paper).pdf")
            try d.cliOK(["report", "--week", "--round", "15m", "--client", "c1", "--pdf", file.path] + (paper == "a4" ? [] : ["--paper", paper]))
            let bytes = try Data(contentsOf: file)
            #expect(bytes.starts(with: Array("%PDF-".utf8)))
            let info = try runProcess("/usr/bin/pdfinfo", [file.path]).requireSuccess("pdfinfo").stdout
            #expect(info.contains(" \(size) pts"), "\(info)")
            // pdftotext marks the right-to-left runs with bidi controls: taken out to search.
            let text = String(
                String.UnicodeScalarView(
                    try runProcess("/usr/bin/pdftotext", ["-layout", file.path, "-"]).requireSuccess("pdftotext").stdout.unicodeScalars
                        .filter { !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value) }))
            for words in ["Timesheet 2026-11-16 – 2026-11-22", "442.75 EUR", "382.50 EUR", "60.25 EUR", "120.50 EUR/h", "Page 1 of",
                "<img src=x onerror=alert(1)> & 'ACME'", "Hosting", "<script>alert('x')</script", "<b>Web</b> \"site\""] {
                #expect(text.contains(words), "\(words)\n\(text.prefix(4000))")
            }
            // Each page drawn; the first has both projects' colours in its charts.
            let pages = Int(info.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ").last ?? "0") ?? 0
            #expect(pages >= 2)
            try runProcess("/usr/bin/pdftoppm", ["-png", "-r", "60", file.path, dir.appendingPathComponent(paper).path])
                .requireSuccess("pdftoppm")
            let shots = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(paper + "-") && $0.hasSuffix(".png") }
            #expect(shots.count == pages)
            let first = dir.appendingPathComponent(shots.sorted()[0])
            let counts = try Self.counts(first, top: 0, rows: 1000, ["#FF8800", "#22AA44"])
            #expect(counts.count == 2 && counts.allSatisfy { $0 > 50 }, "\(counts)")
        }
        // Bad input: a clear error and no file.
        for (arguments, message) in [
            (["--pdf", ""], "needs a file name"), (["--pdf", "x.pdf", "--paper", "a3"], "not a paper size"),
            (["--html", "x.html", "--client", "Initech"], "No client named"), (["--html", "x.html", "--tag", "a b"], "not a word"),
            (["--html", "x.html", "--from", "2026-11-20", "--to", "2026-11-01"], "ends (2026-11-01) before it starts"),
            (["--client", "c1", "--chart"], "go with the table, --json, --html or --pdf"), (["--by", "week"], "--by"),
        ] {
            let r = try d.cli(["report"] + arguments.map { $0.hasSuffix(".pdf") || $0.hasSuffix(".html") ? dir.appendingPathComponent($0).path : $0 })
            #expect(r.status != 0 && r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.html").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.pdf").path))
    }

    /// `--pdf -`: the PDF goes to standard output through the caller's own descriptor (the
    /// front passes it), and from biomatimer-tool straight; a terminal is refused.
    @Test func aPdfForStandardOutputGoesThroughTheCallersOwn() throws {
        let d = try Self.setUp()
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let env = fakeTime(d.env, at: NotesEndToEndTests.start)
        for program in [DaemonFixture.binary, productsDirectory.appendingPathComponent("biomatimer-tool").path] {
            let file = dir.appendingPathComponent("\(URL(fileURLWithPath: program).lastPathComponent).pdf")
            let r = try runProcess(
                "/bin/sh", ["-c", "\"$0\" report --week --round 15m --client c1 --pdf - > \"$1\"", program, file.path], environment: env)
            #expect(r.status == 0, "\(program): \(r.stderr)")
            let written = try Data(contentsOf: file)
            #expect(written.starts(with: Array("%PDF-".utf8)), "\(program): \(written.count) bytes: \(String(decoding: written.prefix(300), as: UTF8.self))")
            let text = try runProcess("/usr/bin/pdftotext", ["-layout", file.path, "-"]).requireSuccess("pdftotext").stdout
            #expect(text.contains("442.75 EUR"), "\(program): \(text.prefix(2000))")
        }
        let tty = try runProcess(
            "/usr/bin/script", ["-qec", "\(DaemonFixture.binary) report --week --pdf -", "/dev/null"], environment: env)
        #expect(tty.status != 0 && tty.stdout.contains("standard output is a terminal"), "\(tty.stdout)")
    }
}
