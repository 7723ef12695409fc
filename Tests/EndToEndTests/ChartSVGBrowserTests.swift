import BiomaReports
import Foundation
import Testing

import TestSupport

/// The same SVG document drawn by a browser: headless chromium takes a screenshot of the file
/// in a window of the document's own width and height, so a pixel of the screenshot is the
/// pixel of rsvg-convert's PNG at the same coordinates (both read back by png_pixels.py).
struct BrowserRender {
    let rsvg: SVGRender
    let png: URL

    /// Checks and draws `svg` with xmllint and rsvg-convert (SVGRender), then with chromium.
    init(_ svg: String) throws {
        rsvg = try SVGRender(svg)
        let file = rsvg.directory.appendingPathComponent("chart.svg")
        png = rsvg.directory.appendingPathComponent("chromium.png")
        let (width, height) = try Self.size(of: svg)
        // timeout(1) signals its whole process group, so chromium's helpers go with it.
        let shot = try runProcess(
            "/usr/bin/timeout",
            [
                "--kill-after=5", "90", "/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--no-first-run", "--force-device-scale-factor=1",
                "--user-data-dir=\(rsvg.directory.appendingPathComponent("profile").path)",
                "--window-size=\(width),\(height)", "--screenshot=\(png.path)", file.absoluteString,
            ],
            timeout: 120)
        guard shot.status == 0, FileManager.default.fileExists(atPath: png.path) else {
            throw TestSupportError("chromium exited \(shot.status): \(shot.stderr.suffix(2000))")
        }
        let drawn = try Self.pngSize(png)
        guard drawn == (width, height) else {
            throw TestSupportError("chromium drew \(drawn.0)x\(drawn.1), the document is \(width)x\(height)")
        }
    }

    /// The `width` and `height` attributes of the root `<svg>` element.
    static func size(of svg: String) throws -> (Int, Int) {
        guard let root = svg.range(of: "<svg "), let end = svg[root.upperBound...].firstIndex(of: ">") else {
            throw TestSupportError("no <svg> element")
        }
        let element = svg[root.upperBound..<end]
        func attribute(_ name: String) throws -> Int {
            guard let start = element.range(of: " \(name)=\""),
                let close = element[start.upperBound...].firstIndex(of: "\""),
                let value = Int(element[start.upperBound..<close])
            else { throw TestSupportError("no \(name) on <svg>") }
            return value
        }
        return (try attribute("width"), try attribute("height"))
    }

    /// Width and height from the PNG's IHDR chunk.
    static func pngSize(_ url: URL) throws -> (Int, Int) {
        let data = try Data(contentsOf: url)
        guard data.count >= 24 else { throw TestSupportError("short PNG") }
        func word(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    /// `#RRGGBB` of chromium's pixel under each point.
    func colors(_ points: [(x: Double, y: Double)]) throws -> [String] {
        let r = try runProcess(
            "/usr/bin/python3",
            [repositoryRoot.appendingPathComponent("Tests/peers/png_pixels.py").path, png.path]
                + points.map { "\(Int($0.x.rounded(.down))),\(Int($0.y.rounded(.down)))" })
        guard r.status == 0 else { throw TestSupportError("png_pixels.py: \(r.stderr)") }
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// The points where rsvg-convert's and chromium's colours differ by more than `tolerance`
    /// in a channel (anti-aliasing aside, the two must agree).
    func differences(_ points: [(x: Double, y: Double)], tolerance: Int = 8) throws -> [String] {
        let browser = try colors(points)
        let reference = try rsvg.colors(points)
        return zip(points, zip(reference, browser)).compactMap { point, pair in
            Self.close(pair.0, pair.1, tolerance) ? nil : "(\(Int(point.x)),\(Int(point.y))) rsvg \(pair.0) chromium \(pair.1)"
        }
    }

    static func close(_ a: String, _ b: String, _ tolerance: Int) -> Bool {
        func channels(_ s: String) -> [Int]? {
            guard s.count == 7, s.hasPrefix("#") else { return nil }
            let hex = Array(s.dropFirst())
            return stride(from: 0, to: 6, by: 2).compactMap { Int(String(hex[$0..<$0 + 2]), radix: 16) }
        }
        guard let x = channels(a), let y = channels(b), x.count == 3, y.count == 3 else { return false }
        return zip(x, y).allSatisfy { abs($0 - $1) <= tolerance }
    }

    func remove() { rsvg.remove() }
}

/// The documents of ChartSVGRenderTests, drawn by chromium: the same pixels at the same hours,
/// and rsvg-convert's PNG and chromium's screenshot alike at sample points inside the shapes.
/// One chromium launch per document; serialized so that the launches do not share the cores.
@Suite(.ownThreadLong, .serialized, .timeLimit(.minutes(3)))
struct ChartSVGBrowserTests {
    /// Points inside the segments, the hour ticks' gaps and the legend, away from edges.
    static let samples: [(x: Double, y: Double)] =
        ["10:30", "03:00", "14:00", "16:30", "12:30", "20:00", "06:00", "01:30"].map(SVGRender.ring)
        + [(5, 5), (Double(ChartSVG.width) - 5, 5), (Double(ChartSVG.width) / 2, 470)]
        + ["16:40", "15:40", "04:00"].map(SVGRender.hand)

    @Test func segmentsSitAtTheHoursTheyHappened() throws {
        let render = try BrowserRender(ChartSVGRenderTests.svg(now: nil, arcs: ChartSVGRenderTests.day))
        defer { render.remove() }
        let colors = try render.colors(ChartSVGRenderTests.dayTimes.map(SVGRender.ring))
        #expect(colors == ChartSVGRenderTests.dayColors, "\(zip(ChartSVGRenderTests.dayTimes, colors).map { "\($0) \($1)" })")
        #expect(try render.colors([SVGRender.hand("16:40")]) == ["#FFFFFF"])
        #expect(try render.differences(Self.samples) == [])
    }

    @Test func theHandForToday() throws {
        let render = try BrowserRender(
            ChartSVGRenderTests.svg(now: 16 * 3600 + 40 * 60, arcs: ChartSVGRenderTests.day))
        defer { render.remove() }
        #expect(try render.colors(ChartSVGRenderTests.handPoints) == ChartSVGRenderTests.handColors)
        #expect(try render.differences(Self.samples) == [])
    }

    @Test func aWholeRingAndTheSkippedHour() throws {
        var render = try BrowserRender(ChartSVGRenderTests.svg(now: nil, arcs: [(0, 24, .project(1))]))
        #expect(
            try render.colors(["00:30", "06:00", "11:50", "12:10", "18:00", "23:30"].map(SVGRender.ring))
                == Array(repeating: "#0000FF", count: 6))
        #expect(try render.differences(Self.samples) == [])
        render.remove()
        render = try BrowserRender(
            ChartSVGRenderTests.svg(now: nil, arcs: [(0, 2, .unaccounted), (3, 24, .unaccounted)]))
        defer { render.remove() }
        #expect(try render.colors(["01:30", "02:30", "03:30"].map(SVGRender.ring)) == ["#E0E0E0", "#F7F7F7", "#E0E0E0"])
        #expect(try render.differences(Self.samples) == [])
    }

    /// A browser parses the document as strict XML: a hostile name that broke it would give
    /// chromium's parse-error page instead of the ring.
    @Test func hostileNamesStayWellFormed() throws {
        let names = ["R&D <b>\"x\"</b> 'q' ]]> &amp;", "\u{1}\u{1B}[31m\u{7F}\u{85}\u{FFFE}\u{FFFF}\u{2028}€"]
        let render = try BrowserRender(ChartSVGRenderTests.svg(now: 3600, arcs: ChartSVGRenderTests.day, names: names))
        defer { render.remove() }
        #expect(try render.colors([SVGRender.ring("10:30")]) == ["#FF0000"])
        #expect(try render.differences(Self.samples) == [])
    }
}
