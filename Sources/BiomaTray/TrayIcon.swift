import BiomaText
import BiomaWidgets
import Glibc
import BiomaContract

/// An sRGB colour, 8 bits a channel.
public struct RGB: Sendable, Equatable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        (self.r, self.g, self.b) = (r, g, b)
    }

    /// `#RRGGBB` (any case), or nil for anything else.
    public init?(hex text: String) {
        guard let (r, g, b) = ColorText.rgb(text) else { return nil }
        self.init(UInt8(r), UInt8(g), UInt8(b))
    }

    /// The daemon's default project colour (`#007AFF`).
    public static let defaultProject = RGB(0x00, 0x7A, 0xFF)
    static let grey = RGB(0x8A, 0x8A, 0x8A)
    static let accent = RGB(0xFF, 0x95, 0x00)
    static let focusWork = RGB(0xE5, 0x48, 0x4D)
    static let focusRest = RGB(0x30, 0xA4, 0x6C)
}

/// One square image of the item's icon: `IconPixmap`'s `(iiay)`, ARGB32 in network byte
/// order (A, R, G, B per pixel, not premultiplied), rows top to bottom.
public struct Pixmap: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var argb: [UInt8]

    /// The pixel at (x, y) as (a, r, g, b).
    public func pixel(_ x: Int, _ y: Int) -> (a: UInt8, r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 4
        return (argb[i], argb[i + 1], argb[i + 2], argb[i + 3])
    }
}

/// What the tray's icon shows, decided from the published state; `pixmaps()` draws it.
/// Equal icons draw equal pixels, so a change of this value is a change of the picture.
public struct TrayIcon: Sendable, Equatable {
    public enum Mark: Sendable, Equatable {
        /// The daemon is not on the bus: a dashed grey ring.
        case offline
        /// Work stopped: a hollow grey ring.
        case stopped
        /// Work runs without a project: a ring in the default colour.
        case work
        /// A project runs: a dot in its colour.
        case project(RGB)
    }

    public var mark: Mark
    /// A running (or paused) focus phase's progress in 48ths, drawn as an arc; nil when none.
    public var focusSteps: Int?
    /// Whether the phase is a work phase (red arc) rather than a break (green arc).
    public var focusIsWork: Bool
    /// The accent of `AttentionIconPixmap`.
    public var attention: Bool

    /// The sizes every host gets (swaybar drops non-square images; hosts pick the nearest).
    public static let sizes = [16, 22, 24, 32, 48]
    /// Steps of the focus arc: it changes at most this often per phase.
    public static let focusStepCount = 48

    public init(mark: Mark, focusSteps: Int? = nil, focusIsWork: Bool = true, attention: Bool = false) {
        (self.mark, self.focusSteps, self.focusIsWork) = (mark, focusSteps, focusIsWork)
        self.attention = attention
    }

    /// The icon for `state` at `now`.
    public init(state: WidgetState, now: Int64) {
        guard state.online else {
            self.init(mark: .offline)
            return
        }
        let mark: Mark
        if state.hasProject {
            mark = .project(RGB(hex: state.timer.activeProjectColor) ?? .defaultProject)
        } else if state.timer.running {
            mark = .work
        } else {
            mark = .stopped
        }
        var steps: Int?
        if state.focus.state == .running || state.focus.state == .paused {
            steps = Int(state.focus.progress(at: now) * Double(Self.focusStepCount))
        }
        let work = ["work", "countdown", "active"].contains(state.focus.phase)
        self.init(mark: mark, focusSteps: steps, focusIsWork: work)
    }

    /// The same icon with the attention accent.
    public var withAttention: TrayIcon {
        var copy = self
        copy.attention = true
        return copy
    }

    public func pixmaps(sizes: [Int] = TrayIcon.sizes) -> [Pixmap] { sizes.map(draw) }

    /// Draws one size: shapes as signed distances, their edges anti-aliased by coverage.
    public func draw(size: Int) -> Pixmap {
        var canvas = Canvas(size: size)
        let s = Double(size)
        let c = s / 2
        let dot = s * 0.28
        let ringWidth = max(1.5, s * 0.1)
        switch mark {
        case .project(let colour):
            canvas.fill(colour) { x, y in Canvas.disk(x, y, c, c, dot) }
        case .work:
            canvas.fill(.defaultProject) { x, y in Canvas.ring(x, y, c, c, dot, ringWidth) }
        case .stopped:
            canvas.fill(.grey) { x, y in Canvas.ring(x, y, c, c, dot, max(1.2, s * 0.07)) }
        case .offline:
            canvas.fill(.grey, alpha: 0.55) { x, y in
                // Eight dashes of a thin ring.
                let angle = Canvas.angle(x, y, c, c)
                let dash = Int(angle / (Double.pi / 8)) % 2 == 0
                return dash ? Canvas.ring(x, y, c, c, dot, max(1.2, s * 0.07)) : 0
            }
        }
        if let steps = focusSteps {
            let outer = s / 2 - 0.5
            let width = max(1.5, s * 0.09)
            let end = 2 * Double.pi * Double(min(steps, Self.focusStepCount)) / Double(Self.focusStepCount)
            canvas.fill(.grey, alpha: 0.35) { x, y in Canvas.ring(x, y, c, c, outer, width) }
            canvas.fill(focusIsWork ? .focusWork : .focusRest) { x, y in
                Canvas.angle(x, y, c, c) < end ? Canvas.ring(x, y, c, c, outer, width) : 0
            }
        }
        if attention {
            let r = s * 0.2
            canvas.fill(.accent) { x, y in Canvas.disk(x, y, s - r - 0.5, r + 0.5, r) }
        }
        return canvas.pixmap
    }
}

/// Premultiplied floating-point pixels, composited "over", then written as ARGB32.
struct Canvas {
    let size: Int
    var pixels: [(r: Double, g: Double, b: Double, a: Double)]

    init(size: Int) {
        self.size = size
        pixels = Array(repeating: (0, 0, 0, 0), count: size * size)
    }

    /// Paints `colour` over the canvas with each pixel's coverage (0…1) from `coverage`, which
    /// is given the pixel's centre.
    mutating func fill(_ colour: RGB, alpha: Double = 1, coverage: (Double, Double) -> Double) {
        let r = Double(colour.r) / 255
        let g = Double(colour.g) / 255
        let b = Double(colour.b) / 255
        for y in 0..<size {
            for x in 0..<size {
                let a = min(1, max(0, coverage(Double(x) + 0.5, Double(y) + 0.5))) * alpha
                if a == 0 { continue }
                let i = y * size + x
                let p = pixels[i]
                pixels[i] = (r * a + p.r * (1 - a), g * a + p.g * (1 - a), b * a + p.b * (1 - a), a + p.a * (1 - a))
            }
        }
    }

    /// Coverage of a disk of radius `r` centred at (cx, cy).
    static func disk(_ x: Double, _ y: Double, _ cx: Double, _ cy: Double, _ r: Double) -> Double {
        let d = ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
        return min(1, max(0, r - d + 0.5))
    }

    /// Coverage of a ring whose outer radius is `r` and whose width is `width`.
    static func ring(_ x: Double, _ y: Double, _ cx: Double, _ cy: Double, _ r: Double, _ width: Double) -> Double {
        let d = ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
        return min(1, max(0, r - d + 0.5)) * min(1, max(0, d - (r - width) + 0.5))
    }

    /// The angle of (x, y) around the centre, clockwise from twelve o'clock, in 0..<2π.
    static func angle(_ x: Double, _ y: Double, _ cx: Double, _ cy: Double) -> Double {
        var a = atan2(x - cx, cy - y)
        if a < 0 { a += 2 * Double.pi }
        return a
    }

    var pixmap: Pixmap {
        var bytes = [UInt8](repeating: 0, count: size * size * 4)
        for (i, p) in pixels.enumerated() {
            guard p.a > 0 else { continue }
            bytes[i * 4] = Self.byte(p.a)
            bytes[i * 4 + 1] = Self.byte(p.r / p.a)
            bytes[i * 4 + 2] = Self.byte(p.g / p.a)
            bytes[i * 4 + 3] = Self.byte(p.b / p.a)
        }
        return Pixmap(width: size, height: size, argb: bytes)
    }

    static func byte(_ v: Double) -> UInt8 { UInt8(min(255, max(0, (v * 255).rounded()))) }
}
