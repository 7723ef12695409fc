// The focus timer (org.biomatimer.Focus1: pomodoro, countdown, interval rounds) as a bar
// shows it: the time left counting down, the phase, the round, the label, and a mark for
// running, paused, waiting and done. Computed once per instant like `WidgetDisplay`;
// renderers arrange and escape these plain strings.

import BiomaText
import BiomaContract

/// The marks of the focus timer's states.
public struct FocusGlyphs: Sendable, Equatable {
    /// A phase counts down.
    public var running: String
    /// Paused: the time left is frozen.
    public var paused: String
    /// A phase ended and the next one waits to be started.
    public var waiting: String
    /// The last phase ended (a countdown's alarm); shown until the timer is stopped.
    public var done: String
    /// Between the focus timer's part of a line and the work timer's.
    public var separator: String

    /// Glyphs found in DejaVu Sans (◷ U+25F7, ‖ U+2016, ◌ U+25CC, ✓ U+2713, │ U+2502).
    public static let unicode = FocusGlyphs(running: "◷", paused: "‖", waiting: "◌", done: "✓", separator: " │ ")
    /// Seven-bit fallback (`--ascii`).
    public static let ascii = FocusGlyphs(running: "~", paused: "||", waiting: "..", done: "!!", separator: " | ")
}

extension RenderOptions {
    /// The focus marks for the chosen glyph set.
    public var focusGlyphs: FocusGlyphs { ascii ? .ascii : .unicode }
}

/// What a bar displays of the focus timer at one instant. All strings are plain text,
/// single-line, not yet escaped. `active` is false when there is no focus timer (state
/// `off`) or the daemon is offline; then every bar prints exactly what it prints without
/// focus timers.
public struct FocusDisplay: Sendable, Equatable {
    public var state: FocusRunState
    /// `pomodoro`, `countdown`, `intervals` as published (single-line), `""` when off.
    public var kind: String
    /// `work`, `short-break`, `long-break`, `countdown`, `active`, `rest` as published
    /// (while waiting: the phase that comes next), `""` when off.
    public var phase: String
    /// The phase in words: `Work`, `Short break`, `Long break`, `Countdown`, `Active`, `Rest`.
    public var phaseName: String
    /// The kind in words: `Pomodoro`, `Countdown`, `Intervals`.
    public var kindName: String
    /// The label, shortened to `RenderOptions.maxNameWidth`.
    public var label: String
    /// The label, not shortened (tooltips, the JSON object).
    public var fullLabel: String
    /// The time left, `12:34` under an hour, `1:02:03` from an hour; seconds begun (a
    /// countdown reads `0:01` in its last second and `0:00` when it ends).
    public var remaining: String
    /// The whole seconds `remaining` shows.
    public var remainingSeconds: Int64
    /// The time left in µs at the instant rendered (live while running).
    public var remainingMicros: Int64
    /// `2/4`, or `2` when the rounds are endless; `""` for a countdown or round 0.
    public var round: String
    /// How much of the phase has passed, 0–100, from the displayed seconds (so it changes
    /// only when `remaining` does); 100 when done, 0 while waiting.
    public var progress: Int
    /// Work phases and active rounds completed today.
    public var completedToday: Int
    /// The mark for the state (empty when off).
    public var mark: String
    /// Between the focus part and the work part of a line.
    public var separator: String
    /// Between the phase and the label.
    public var labelSeparator: String
    /// Whether the focus timer leads the line (see `WidgetState.focusLeads`).
    public var leads: Bool

    public var active: Bool { state != .off }

    public init(_ state: WidgetState, now: Int64, options: RenderOptions) {
        let focus = state.focus
        let glyphs = options.focusGlyphs
        separator = glyphs.separator
        labelSeparator = options.glyphs.separator
        let published = focus.state
        self.state = state.online ? published : .off
        leads = self.state != .off && state.focusLeads
        guard self.state != .off else {
            kind = ""
            phase = ""
            phaseName = ""
            kindName = ""
            label = ""
            fullLabel = ""
            remaining = ""
            remainingSeconds = 0
            remainingMicros = 0
            round = ""
            progress = 0
            completedToday = 0
            mark = ""
            return
        }
        kind = TextEscaping.singleLine(focus.kind)
        phase = TextEscaping.singleLine(focus.phase)
        phaseName = Self.phaseNames[phase] ?? phase
        kindName = Self.kindNames[kind] ?? kind
        fullLabel = TextEscaping.singleLine(focus.label)
        label = DisplayWidth.truncate(fullLabel, to: options.maxNameWidth, ellipsis: options.glyphs.ellipsis)
        if let moving = state.focusRemaining {
            remainingMicros = moving.value(at: now)
            remainingSeconds = moving.displayedSeconds(at: now)
        } else {
            remainingMicros = Swift.max(0, focus.remaining)
            remainingSeconds = MovingTime(remainingMicros, at: 0, .down).displayedSeconds(at: 0)
        }
        remaining = Self.clock(remainingSeconds)
        if focus.kind != "countdown" && focus.round > 0 {
            round = focus.rounds > 0 ? "\(focus.round)/\(focus.rounds)" : "\(focus.round)"
        } else {
            round = ""
        }
        switch self.state {
        case .done: progress = 100
        case .waiting, .off: progress = 0
        case .running, .paused:
            let duration = focus.phaseDuration
            if duration <= 0 {
                progress = 0
            } else {
                let (shownLeft, overflow) = remainingSeconds.multipliedReportingOverflow(by: 1_000_000)
                let left = overflow ? duration : Swift.min(duration, shownLeft)
                progress = Int((Double(duration - left) / Double(duration) * 100).rounded(.down))
            }
        }
        completedToday = Int(focus.completedToday)
        switch self.state {
        case .running: mark = glyphs.running
        case .paused: mark = glyphs.paused
        case .waiting: mark = glyphs.waiting
        case .done: mark = glyphs.done
        case .off: mark = ""
        }
    }

    /// `Work 2/4`: the phase in words and the round.
    public var phaseAndRound: String { round.isEmpty ? phaseName : "\(phaseName) \(round)" }

    /// What the timer is called when it is done: its label, else its kind (`Tea`, `Pomodoro`).
    public var title: String { label.isEmpty ? kindName : label }

    /// The focus part of a bar's line, plain text:
    /// running `◷ 12:34 Work 2/4 · Deep work`, paused `‖ 12:34 Work 2/4 · Deep work`,
    /// waiting `◌ Next: Work 2/4, waiting · Deep work`, done `✓ Tea done`; `""` when off.
    public var segment: String {
        let labelPart = label.isEmpty ? "" : labelSeparator + label
        switch state {
        case .off: return ""
        case .running, .paused: return "\(mark) \(remaining) \(phaseAndRound)\(labelPart)"
        case .waiting: return "\(mark) Next: \(phaseAndRound), waiting\(labelPart)"
        case .done: return "\(mark) \(title) done"
        }
    }

    /// The short form (i3bar's `short_text`): `◷ 12:34`, `◌ Next: Work`, `✓ Tea done`.
    public var shortSegment: String {
        switch state {
        case .off: return ""
        case .running, .paused: return "\(mark) \(remaining)"
        case .waiting: return "\(mark) Next: \(phaseName)"
        case .done: return "\(mark) \(title) done"
        }
    }

    /// One sentence for tooltips and `biomatimer status`, with the full label:
    /// `Focus: Work 2/4, 12:34 left · Deep work`, `Focus paused: …`,
    /// `Focus: next Work 2/4, waiting to start · …`, `Focus: Tea done`.
    public var sentence: String {
        let labelPart = fullLabel.isEmpty ? "" : labelSeparator + fullLabel
        switch state {
        case .off: return ""
        case .running: return "Focus: \(phaseAndRound), \(remaining) left\(labelPart)"
        case .paused: return "Focus paused: \(phaseAndRound), \(remaining) left\(labelPart)"
        case .waiting: return "Focus: next \(phaseAndRound), waiting to start\(labelPart)"
        case .done:
            return "Focus: \(fullLabel.isEmpty ? kindName : fullLabel) done"
        }
    }

    /// `12:34` under an hour, `1:02:03` from an hour (whole seconds).
    public static func clock(_ seconds: Int64) -> String { DurationFormat.clock(seconds: seconds) }

    /// The phases in words, by their published names.
    public static var phaseNames: [String: String] { FocusRunState.phaseNames }
    static let kindNames = ["pomodoro": "Pomodoro", "countdown": "Countdown", "intervals": "Intervals"]

    /// A CSS class name from a published word (`short-break`), nil unless it is made of
    /// lowercase ASCII letters, digits and dashes (a daemon's value is not trusted to be).
    static func cssWord(_ word: String) -> String? {
        guard !word.isEmpty, word.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D })
        else { return nil }
        return word
    }

    /// The waybar classes: `focus`, `focus-<state>`, `kind-<kind>`, `phase-<phase>`; none when off.
    public var cssClasses: [String] {
        guard active else { return [] }
        var classes = ["focus", "focus-\(state.rawValue)"]
        if let kind = Self.cssWord(kind) { classes.append("kind-\(kind)") }
        if let phase = Self.cssWord(phase) { classes.append("phase-\(phase)") }
        return classes
    }
}

extension WidgetState {
    /// The focus timer's time left as a value counting down, while a phase runs (online);
    /// nil otherwise: paused, waiting and done hold still.
    public var focusRemaining: MovingTime? {
        guard online, focus.state == .running else { return nil }
        return MovingTime(focus.remaining(at: focus.updatedAt), at: focus.updatedAt, .down)
    }

    /// Whether the focus timer is shown and leads the line: any state but off, except a
    /// paused one while work runs (then work is what is happening, and the paused focus
    /// timer follows it).
    public var focusLeads: Bool {
        guard online, focus.isActive else { return false }
        return !(focus.state == .paused && timer.running)
    }
}
