import BiomaText
import BiomaTray
import BiomaWidgets
import Foundation
import TestSupport
import Testing
import BiomaContract

/// The icon's pixmaps: sizes, byte order, what each state draws.
@Suite struct TrayIconTests {
    static let now: Int64 = 1_790_000_000_000_000

    static func state(running: Bool = true, color: String = "", focus: String = "off") -> WidgetState {
        var state = WidgetState(running: running, updatedAt: now, sessionTime: 330_000_000, dailyTotal: 9_915_000_000)
        if !color.isEmpty {
            state.timer.activeProject = "p1"
            state.timer.activeProjectName = "Client A"
            state.timer.activeProjectColor = color
        }
        if focus != "off" {
            state.focus.state = FocusRunState(rawValue: focus) ?? .off
            state.focus.kind = "pomodoro"
            state.focus.phase = "work"
            state.focus.phaseDuration = 1_500_000_000
            state.focus.remaining = 750_000_000
            state.focus.updatedAt = now
            state.focus.phaseEndsAt = focus == "running" ? now + 750_000_000 : 0
        }
        return state
    }

    @Test func squareSizesInNetworkByteOrder() {
        let pixmaps = TrayIcon(state: Self.state(color: "#12AB9F"), now: Self.now).pixmaps()
        #expect(pixmaps.map(\.width) == [16, 22, 24, 32, 48])
        #expect(pixmaps.map(\.height) == [16, 22, 24, 32, 48])
        for p in pixmaps {
            #expect(p.argb.count == p.width * p.height * 4)
            // A, R, G, B: the project's colour, opaque, at the centre; the corner transparent.
            let c = p.pixel(p.width / 2, p.height / 2)
            #expect(c.a == 255 && c.r == 0x12 && c.g == 0xAB && c.b == 0x9F, "size \(p.width): \(c)")
            #expect(p.pixel(0, 0).a == 0)
        }
    }

    @Test func eachStateDrawsItsMark() {
        // A ring without a project: its centre is empty, the ring around it in the default colour.
        let work = TrayIcon(state: Self.state(), now: Self.now).draw(size: 48)
        #expect(work.pixel(24, 24).a == 0)
        let ring = (0..<24).map { work.pixel(24 + $0, 24) }.first { $0.a == 255 }
        #expect(ring.map { [$0.r, $0.g, $0.b] } == [0x00, 0x7A, 0xFF])
        // Stopped: hollow and grey.
        let stopped = TrayIcon(state: Self.state(running: false), now: Self.now).draw(size: 48)
        #expect(stopped.pixel(24, 24).a == 0)
        let grey = (0..<24).map { stopped.pixel(24 + $0, 24) }.first { $0.a > 200 }
        #expect(grey.map { $0.r == $0.g && $0.g == $0.b } == true)
        // Offline differs from stopped.
        #expect(TrayIcon(state: .offline, now: Self.now).draw(size: 48) != stopped)
    }

    @Test func focusArcFollowsProgress() {
        let icon = TrayIcon(state: Self.state(color: "#00ff00", focus: "running"), now: Self.now)
        #expect(icon.focusSteps == 24)
        let p = icon.draw(size: 48)
        // Half done: the arc covers the right half (3 o'clock, red) but not the left (9 o'clock).
        let right = p.pixel(46, 24)
        let left = p.pixel(1, 24)
        #expect(right.a > 200 && right.r > 200 && right.g < 100)
        #expect(!(left.r > 200 && left.g < 100 && left.a > 200))
        // Later, more of the arc: a different icon.
        let later = TrayIcon(state: Self.state(color: "#00ff00", focus: "running"), now: Self.now + 600_000_000)
        #expect(later.focusSteps! > 24)
        #expect(later != icon)
        // The centre keeps the project's colour.
        #expect(p.pixel(24, 24).g == 255)
    }

    @Test func attentionAddsAnAccent() {
        let icon = TrayIcon(state: Self.state(color: "#0000ff"), now: Self.now)
        let plain = icon.draw(size: 32)
        let accented = icon.withAttention.draw(size: 32)
        #expect(plain != accented)
        let corner = accented.pixel(26, 5)
        #expect(corner.a == 255 && corner.r == 0xFF && corner.g == 0x95 && corner.b == 0)
        #expect(accented.pixel(16, 16) == plain.pixel(16, 16))
    }

    @Test func statusFollowsState() {
        #expect(TrayService.status(of: Self.state()) == "Active")
        // Never Passive: waybar hides Passive items, and a stopped timer is started from the icon.
        #expect(TrayService.status(of: Self.state(running: false)) == "Active")
        #expect(TrayService.status(of: .offline) == "Active")
        #expect(TrayService.status(of: Self.state(running: false, focus: "waiting")) == "NeedsAttention")
        var due = Self.state(running: false)
        due.tasks.dueTasks = 1
        #expect(TrayService.status(of: due) == "NeedsAttention")
    }

    /// The dot's PNG read back by netpbm's pngtopnm (an independent decoder): size and colour.
    @Test func pngDecodesWithNetpbm() throws {
        let png = PNG.dot(RGB(0xE0, 0x40, 0x10), size: 16)
        let folder = try makeTemporaryDirectory("tray-png")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("dot.png")
        try Data(png).write(to: file)
        let ppm = try runProcess("/usr/bin/pngtopnm", ["-plain", file.path])
        #expect(ppm.status == 0, "\(ppm.stderr)")
        let numbers = ppm.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).dropFirst().compactMap { Int($0) }
        #expect(Array(numbers.prefix(3)) == [16, 16, 255])
        let pixels = Array(numbers.dropFirst(3))
        #expect(pixels.count == 16 * 16 * 3)
        let centre = (8 * 16 + 8) * 3
        #expect(Array(pixels[centre..<centre + 3]) == [0xE0, 0x40, 0x10])
        let alpha = try runProcess("/usr/bin/pngtopnm", ["-alpha", "-plain", file.path])
        let a = alpha.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).dropFirst().compactMap { Int($0) }.dropFirst(3)
        #expect(Array(a)[8 * 16 + 8] == 255)
        #expect(Array(a)[0] == 0)
        // And the repository's own reader, with only python's zlib and struct.
        let read = try runProcess(
            "/usr/bin/python3", [repositoryRoot.appendingPathComponent("Tests/peers/png_pixels.py").path, file.path, "8,8"])
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) .lowercased() == "#e04010")
    }
}
