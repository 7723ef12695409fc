import BiomaCore
import BiomaReports
import BiomaText
import Testing
import TestSupport

/// `report --chart`'s strip and `report --svg`'s document, from a fixed picture: exact output.
@Suite struct DayChartRendererTests {
    /// Mon 2026-01-05: Client A 09:00–12:00 (#FF0000), a hostile name 13:00–15:30 (#0000FF),
    /// no project 16:00–17:00; the hand at 16:40 when `today`.
    static func picture(today: Bool = false) -> (chart: DayChart, legend: ChartLegend) {
        let (chart, projects) = ChartFixture.chart(
            arcs: [
                (0, 9, .unaccounted), (9, 12, .project(0)), (12, 13, .unaccounted), (13, 15.5, .project(1)),
                (15.5, 16, .unaccounted), (16, 17, .noProject), (17, 24, .unaccounted),
            ],
            projects: [("Client A", "#FF0000"), ("R&D <b>\"x\"</b>\u{1B}[31m", "#0000FF")],
            now: today ? 16 * 3600 + 40 * 60 : nil)
        return (chart, ChartLegend(chart, projects: projects))
    }

    static func strip(_ picture: (chart: DayChart, legend: ChartLegend), color: Bool) -> String {
        ChartText.render(picture.chart, legend: picture.legend, style: Terminal(color: color))
    }

    static func svg(_ picture: (chart: DayChart, legend: ChartLegend)) -> String {
        ChartSVG.render(picture.chart, legend: picture.legend)
    }

    @Test func plainStrip() {
        let text = Self.strip(Self.picture(), color: false)
        #expect(
            text == """
                2026-01-05
                                0     3     6     9     12    15    18    21
                Mon 2026-01-05  ··················██████··▓▓▓▓▓·░░··············    6:30:00

                  █ Client A                    3:00:00  12.5%
                  ▓ R&D <b>"x"</b> [31m         2:30:00  10.4%
                  ░ no project                  1:00:00   4.2%
                  · unaccounted                17:30:00  72.9%

                """)
        #expect(!text.contains("\u{1B}"))
    }

    @Test func colouredStripWithTheHand() {
        let text = Self.strip(Self.picture(today: true), color: true)
        func paint(_ text: String, _ rgb: String) -> String { "\u{1B}[38;2;\(rgb)m\(text)\u{1B}[0m" }
        let grey = "224;224;224"
        let strip =
            paint(String(repeating: "·", count: 18), grey) + paint(String(repeating: "█", count: 6), "255;0;0")
            + paint("··", grey) + paint(String(repeating: "█", count: 5), "0;0;255") + paint("·", grey)
            + paint("░░", "142;142;147") + paint(String(repeating: "·", count: 14), grey)
        let expected =
            "2026-01-05\n"
            + "                0     3     6     9     12    15    18    21\n"
            + "Mon 2026-01-05  \(strip)    6:30:00\n"
            + String(repeating: " ", count: 16 + 33) + paint("▲ 16:40", "255;0;0") + "\n"
            + "\n"
            + "  \(paint("█", "255;0;0")) Client A                    3:00:00  12.5%\n"
            + "  \(paint("█", "0;0;255")) R&D <b>\"x\"</b> [31m         2:30:00  10.4%\n"
            + "  \(paint("░", "142;142;147")) no project                  1:00:00   4.2%\n"
            + "  \(paint("·", grey)) unaccounted                17:30:00  72.9%\n"
        #expect(text == expected)
    }

    /// A half-hour cell shows what filled most of it; the hour a DST day skips shows blank.
    @Test func cellsTakeTheMajorityAndGapsStayBlank() {
        let gap = ChartFixture.chart(
            day: "2024-03-31", hours: 23,
            arcs: [(0, 2, .unaccounted), (3, 11_000.0 / 3600, .project(0)), (11_000.0 / 3600, 24, .unaccounted)],
            projects: [("p", "#000000")])
        let cells = ChartText.cells(of: gap.chart.days[0], legend: ChartLegend(gap.chart, projects: gap.projects))
        #expect(cells.count == 48)
        #expect(cells[3] == .unaccounted && cells[4] == nil && cells[5] == nil && cells[6] == .unaccounted)
        let many = ChartFixture.chart(
            day: "2024-03-31", hours: 23,
            arcs: [(0, 2, .project(0)), (3, 4, .project(1)), (4, 5, .project(2)), (5, 24, .unaccounted)],
            projects: (0..<3).map { ("p\($0)", "#000000") })
        let line = Self.strip((many.chart, ChartLegend(many.chart, projects: many.projects)), color: false)
            .split(separator: "\n")[2]
        #expect(line.hasPrefix("Sun 2024-03-31  ████  ▓▓##····"), "\(line)")
    }

    @Test func svgEscapesNamesAndDrawsTheHandForTodayOnly() {
        let svg = Self.svg(Self.picture())
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains(">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; [31m</text>"), "\(svg)")
        #expect(!svg.contains("\u{1B}"))
        #expect(svg.contains("fill=\"#E0E0E0\"") && svg.contains("fill=\"#8E8E93\"") && svg.contains("fill=\"#FF0000\""))
        #expect(!svg.contains("stroke=\"#FF0000\" stroke-width=\"3\""), "no hand on another day")
        #expect(svg.contains(">6:30:00 work</text>"))
        #expect(svg.contains(">72.9%</text>"))
        let today = Self.svg(Self.picture(today: true))
        #expect(today.contains("stroke=\"#FF0000\" stroke-width=\"3\""))
        // 09:00–12:00 as one sector: outer arc from the 09:00 point to the 12:00 point.
        #expect(svg.contains("A 170 170 0 0 1 230 410 "), "the 09:00–12:00 sector ends at the bottom (12:00)")
    }
}
