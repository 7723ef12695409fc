import BiomaReports
import Foundation
import Testing

import TestSupport

/// The SVG as real readers take it: xmllint parses it, rsvg-convert draws it, and the PNG's
/// pixels are read back (Tests/peers/png_pixels.py) at known hours of the ring.
struct SVGRender {
    let directory: URL
    let png: URL

    /// Checks and draws `svg`; throws with the tool's message when either refuses it.
    init(_ svg: String) throws {
        let directory = try makeTemporaryDirectory("biomatimer-svg")
        let file = directory.appendingPathComponent("chart.svg")
        try svg.write(to: file, atomically: true, encoding: .utf8)
        try self.init(file: file, directory: directory)
    }

    init(file: URL, directory: URL) throws {
        self.directory = directory
        png = directory.appendingPathComponent("chart.png")
        let lint = try runProcess("/usr/bin/xmllint", ["--noout", file.path])
        guard lint.status == 0, lint.stderr.isEmpty else { throw TestSupportError("xmllint: \(lint.stderr)") }
        let draw = try runProcess("/usr/bin/rsvg-convert", ["-o", png.path, file.path])
        guard draw.status == 0, draw.stderr.isEmpty else { throw TestSupportError("rsvg-convert: \(draw.stderr)") }
    }

    /// `#RRGGBB` of the pixel under each point.
    func colors(_ points: [(x: Double, y: Double)]) throws -> [String] {
        let r = try runProcess(
            "/usr/bin/python3",
            [repositoryRoot.appendingPathComponent("Tests/peers/png_pixels.py").path, png.path]
                + points.map { "\(Int($0.x.rounded(.down))),\(Int($0.y.rounded(.down)))" })
        guard r.status == 0 else { throw TestSupportError("png_pixels.py: \(r.stderr)") }
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// The pixel in the middle of the ring at a clock time `HH:MM`, and just inside the ring
    /// (where only the hand is drawn).
    static func ring(_ time: String) -> (x: Double, y: Double) {
        ChartSVG.point(second: seconds(time), radius: (ChartSVG.outerRadius + ChartSVG.innerRadius) / 2)
    }

    static func hand(_ time: String) -> (x: Double, y: Double) {
        ChartSVG.point(second: seconds(time), radius: ChartSVG.innerRadius - 7)
    }

    static func seconds(_ time: String) -> Double {
        let parts = time.split(separator: ":").map { Double($0)! }
        return parts[0] * 3600 + parts[1] * 60
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite(.ownThread, .timeLimit(.minutes(1)))
struct ChartSVGRenderTests {
    static let hour: Int64 = 3_600_000_000

    /// Mon 2026-01-05 with `arcs` (hours), the projects named `names` in red and blue.
    static func svg(now: Int?, arcs: [(Double, Double, ChartFixture.Kind)], names: [String] = ["Client A", "Ops"])
        -> String
    {
        let (chart, projects) = ChartFixture.chart(
            arcs: arcs, projects: zip(names, ["#FF0000", "#0000FF"]).map { ($0, $1) }, now: now)
        return ChartSVG.render(chart, legend: ChartLegend(chart, projects: projects))
    }

    /// Where `day` is looked at, and what is there.
    static let dayTimes = ["10:30", "03:00", "14:00", "16:30", "12:30", "23:59", "00:01", "09:05", "11:55"]
    static let dayColors = ["#FF0000", "#E0E0E0", "#0000FF", "#8E8E93", "#E0E0E0", "#E0E0E0", "#E0E0E0", "#FF0000", "#FF0000"]
    /// Today at 16:40: on and around the hand.
    static let handPoints = [
        SVGRender.hand("16:40"), SVGRender.ring("16:40"), SVGRender.hand("15:40"), SVGRender.ring("16:10"),
    ]
    static let handColors = ["#FF0000", "#FF0000", "#FFFFFF", "#8E8E93"]

    static let day: [(Double, Double, ChartFixture.Kind)] = [
        (0, 9, .unaccounted), (9, 12, .project(0)), (12, 13, .unaccounted), (13, 15, .project(1)),
        (15, 16, .unaccounted), (16, 17, .noProject), (17, 24, .unaccounted),
    ]

    @Test func segmentsSitAtTheHoursTheyHappened() throws {
        let render = try SVGRender(Self.svg(now: nil, arcs: Self.day))
        defer { render.remove() }
        let colors = try render.colors(Self.dayTimes.map(SVGRender.ring))
        #expect(colors == Self.dayColors, "\(zip(Self.dayTimes, colors).map { "\($0) \($1)" })")
        // No hand on a day that is not today: inside the ring is the white page.
        #expect(try render.colors([SVGRender.hand("16:40")]) == ["#FFFFFF"])
    }

    /// Today, under an injected clock at 16:40: the red hand at 16:40, nowhere else.
    @Test func theHandForToday() throws {
        let render = try SVGRender(Self.svg(now: 16 * 3600 + 40 * 60, arcs: Self.day))
        defer { render.remove() }
        #expect(try render.colors(Self.handPoints) == Self.handColors)
    }

    /// A whole day of one project is a whole ring (two half sectors), and the hour a DST day
    /// skips is left to the face.
    @Test func aWholeRingAndTheSkippedHour() throws {
        var render = try SVGRender(Self.svg(now: nil, arcs: [(0, 24, .project(1))]))
        #expect(try render.colors(["00:30", "06:00", "11:50", "12:10", "18:00", "23:30"].map(SVGRender.ring)) == Array(repeating: "#0000FF", count: 6))
        render.remove()
        render = try SVGRender(Self.svg(now: nil, arcs: [(0, 2, .unaccounted), (3, 24, .unaccounted)]))
        defer { render.remove() }
        #expect(try render.colors(["01:30", "02:30", "03:30"].map(SVGRender.ring)) == ["#E0E0E0", "#F7F7F7", "#E0E0E0"])
    }

    /// Names with XML's special characters, control characters and non-characters still give
    /// a well-formed document.
    @Test func hostileNamesStayWellFormed() throws {
        let names = ["R&D <b>\"x\"</b> 'q' ]]> &amp;", "\u{1}\u{1B}[31m\u{7F}\u{85}\u{FFFE}\u{FFFF}\u{2028}€"]
        let svg = Self.svg(now: 3600, arcs: Self.day, names: names)
        let render = try SVGRender(svg)
        defer { render.remove() }
        #expect(svg.contains(">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; &#39;q&#39; ]]&gt; &amp;amp;</text>"))
        #expect(try render.colors([SVGRender.ring("10:30")]) == ["#FF0000"])
    }
}
