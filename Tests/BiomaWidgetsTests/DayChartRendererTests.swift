import BiomaWidgets
import Testing

/// `report --chart`'s strip and `report --svg`'s document, from a fixed picture: exact output.
@Suite struct DayChartRendererTests {
    static let hour: Int64 = 3_600_000_000

    /// Mon 2026-01-05: Client A 09:00–12:00 (#FF0000), a hostile name 13:00–15:30 (#0000FF),
    /// no project 16:00–17:00; the hand at 16:40 when `today`.
    static func picture(today: Bool = false) -> DayPicture {
        func arc(_ from: Double, _ to: Double, _ kind: DayPicture.Kind) -> DayPicture.Arc {
            DayPicture.Arc(from: Int(from * 3600), to: Int(to * 3600), kind: kind)
        }
        return DayPicture(
            from: "2026-01-05", to: "2026-01-05",
            projects: [
                .init(name: "Client A", color: "#FF0000", total: 3 * hour),
                .init(name: "R&D <b>\"x\"</b>\u{1B}[31m", color: "#0000FF", total: 5 * hour / 2),
            ],
            noProject: hour,
            days: [
                DayPicture.Day(
                    day: "2026-01-05", weekday: 2, length: 24 * hour, work: 13 * hour / 2,
                    arcs: [
                        arc(0, 9, .unaccounted), arc(9, 12, .project(0)), arc(12, 13, .unaccounted),
                        arc(13, 15.5, .project(1)), arc(15.5, 16, .unaccounted), arc(16, 17, .noProject),
                        arc(17, 24, .unaccounted),
                    ],
                    now: today ? 16 * 3600 + 40 * 60 : nil)
            ])
    }

    @Test func plainStrip() {
        let text = ChartText.render(Self.picture(), style: Terminal(color: false))
        #expect(
            text == """
                2026-01-05
                                0     3     6     9     12    15    18    21
                Mon 2026-01-05  ··················██████··▓▓▓▓▓·░░··············    6:30:00

                  █ Client A                    3:00:00  12.5%
                  ▓ R&D <b>"x"</b>�[31m         2:30:00  10.4%
                  ░ no project                  1:00:00   4.2%
                  · unaccounted                17:30:00  72.9%

                """)
        #expect(!text.contains("\u{1B}"))
    }

    @Test func colouredStripWithTheHand() {
        let text = ChartText.render(Self.picture(today: true), style: Terminal(color: true))
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
            + "  \(paint("█", "0;0;255")) R&D <b>\"x\"</b>�[31m         2:30:00  10.4%\n"
            + "  \(paint("░", "142;142;147")) no project                  1:00:00   4.2%\n"
            + "  \(paint("·", grey)) unaccounted                17:30:00  72.9%\n"
        #expect(text == expected)
    }

    /// A half-hour cell shows what filled most of it; the hour a DST day skips shows blank.
    @Test func cellsTakeTheMajorityAndGapsStayBlank() {
        let day = DayPicture.Day(
            day: "2024-03-31", weekday: 1, length: 23 * Self.hour, work: 0,
            arcs: [
                .init(from: 0, to: 7200, kind: .unaccounted), .init(from: 10_800, to: 11_000, kind: .project(0)),
                .init(from: 11_000, to: 86_400, kind: .unaccounted),
            ], now: nil)
        let cells = ChartText.cells(of: day)
        #expect(cells.count == 48)
        #expect(cells[3] == .unaccounted && cells[4] == nil && cells[5] == nil && cells[6] == .unaccounted)
        let many = DayPicture(
            from: "2024-03-31", to: "2024-03-31",
            projects: (0..<3).map { .init(name: "p\($0)", color: "#000000", total: 0) }, noProject: 0,
            days: [
                DayPicture.Day(
                    day: "2024-03-31", weekday: 1, length: 23 * Self.hour, work: 3 * Self.hour,
                    arcs: [
                        .init(from: 0, to: 7200, kind: .project(0)), .init(from: 10_800, to: 14_400, kind: .project(1)),
                        .init(from: 14_400, to: 18_000, kind: .project(2)), .init(from: 18_000, to: 86_400, kind: .unaccounted),
                    ], now: nil)
            ])
        let line = ChartText.render(many, style: Terminal(color: false)).split(separator: "\n")[2]
        #expect(line.hasPrefix("Sun 2024-03-31  ████  ▓▓##····"), "\(line)")
    }

    @Test func svgEscapesNamesAndDrawsTheHandForTodayOnly() {
        let svg = ChartSVG.render(Self.picture())
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains(">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; [31m</text>"), "\(svg)")
        #expect(!svg.contains("\u{1B}"))
        #expect(svg.contains("fill=\"#E0E0E0\"") && svg.contains("fill=\"#8E8E93\"") && svg.contains("fill=\"#FF0000\""))
        #expect(!svg.contains("stroke=\"#FF0000\" stroke-width=\"3\""), "no hand on another day")
        #expect(svg.contains(">6:30:00 work</text>"))
        #expect(svg.contains(">72.9%</text>"))
        let today = ChartSVG.render(Self.picture(today: true))
        #expect(today.contains("stroke=\"#FF0000\" stroke-width=\"3\""))
        // 09:00–12:00 as one sector: outer arc from the 09:00 point to the 12:00 point.
        #expect(svg.contains("A 170 170 0 0 1 230 410 "), "the 09:00–12:00 sector ends at the bottom (12:00)")
    }
}
