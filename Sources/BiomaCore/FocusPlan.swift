// Focus timers' settings: the kinds, the phases, a plan and what is out of range.

/// The three kinds of focus timer.
public enum FocusKind: String, Sendable, Codable, CaseIterable {
    case pomodoro, countdown, intervals
}

/// A phase of a focus timer.
public enum FocusPhase: String, Sendable, Codable, CaseIterable {
    case work
    case shortBreak = "short-break"
    case longBreak = "long-break"
    case countdown
    case active
    case rest

    /// Work, a countdown and an active round are focus time; breaks and rests are not.
    public var isFocus: Bool {
        switch self {
        case .work, .countdown, .active: return true
        case .shortBreak, .longBreak, .rest: return false
        }
    }

    /// Completed phases that count as pomodoros and rounds (`CompletedToday`, reports).
    public var counts: Bool { self == .work || self == .active }
}

/// A focus timer's settings: what a preset saves and what `Start…` takes.
public struct FocusPlan: Sendable, Equatable, Codable {
    public static let minimumDuration: Micros = microsPerSecond
    public static let maximumDuration: Micros = 24 * 3600 * microsPerSecond

    public var kind: FocusKind
    /// Pomodoro lengths.
    public var work: Micros = 25 * 60 * microsPerSecond
    public var shortBreak: Micros = 5 * 60 * microsPerSecond
    public var longBreak: Micros = 15 * 60 * microsPerSecond
    /// A long break after every N-th completed work phase.
    public var longBreakEvery = 4
    /// Pomodoro: work phases in all (0 = endless); intervals: rounds (0 = endless).
    public var cycles = 0
    public var autoStartBreaks = true
    public var autoStartWork = false
    /// Breaks keep the driven project running.
    public var breaksAreWork = false
    /// Countdown length.
    public var duration: Micros = 0
    /// Interval lengths; `rest` 0 means active phases back to back.
    public var active: Micros = 0
    public var rest: Micros = 0
    public var label = ""
    /// The project it drives (an id), nil for none.
    public var project: String?

    public init(kind: FocusKind) { self.kind = kind }

    public static func pomodoro() -> FocusPlan { FocusPlan(kind: .pomodoro) }

    public static func countdown(_ duration: Micros, label: String = "") -> FocusPlan {
        var plan = FocusPlan(kind: .countdown)
        plan.duration = duration
        plan.label = label
        return plan
    }

    public static func intervals(active: Micros, rest: Micros, rounds: Int, label: String = "") -> FocusPlan {
        var plan = FocusPlan(kind: .intervals)
        plan.active = active
        plan.rest = rest
        plan.cycles = rounds
        plan.label = label
        return plan
    }

    /// Throws `FocusError.invalid` naming the first setting out of range.
    public func validate() throws(FocusError) {
        func length(_ value: Micros, _ name: String, allowZero: Bool = false) throws(FocusError) {
            if allowZero && value == 0 { return }
            guard value >= Self.minimumDuration && value <= Self.maximumDuration else {
                throw .invalid("\(name) must be between 1 s and 24 h.")
            }
        }
        switch kind {
        case .pomodoro:
            try length(work, "Work")
            try length(shortBreak, "ShortBreak")
            try length(longBreak, "LongBreak")
            guard (1...100).contains(longBreakEvery) else { throw .invalid("LongBreakEvery must be between 1 and 100.") }
            guard (0...1000).contains(cycles) else { throw .invalid("Cycles must be between 0 (endless) and 1000.") }
        case .countdown:
            try length(duration, "The duration")
        case .intervals:
            try length(active, "The active time")
            try length(rest, "The rest time", allowZero: true)
            guard (0...1000).contains(cycles) else { throw .invalid("Rounds must be between 0 (endless) and 1000.") }
        }
        guard label.count <= 100, !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalid("A label has at most 100 characters and no control characters.") }
    }

    /// The first phase.
    var firstPhase: FocusPhase {
        switch kind {
        case .pomodoro: return .work
        case .countdown: return .countdown
        case .intervals: return .active
        }
    }

    /// The planned length of a phase.
    public func length(of phase: FocusPhase) -> Micros {
        switch phase {
        case .work: return work
        case .shortBreak: return shortBreak
        case .longBreak: return longBreak
        case .countdown: return duration
        case .active: return active
        case .rest: return rest
        }
    }

    /// Whether the driven project runs during `phase`.
    public func drivesWork(in phase: FocusPhase) -> Bool { phase.isFocus || breaksAreWork }

    /// The number of rounds (or work phases) planned, 0 = endless, or 1 for a countdown.
    public var plannedRounds: Int { kind == .countdown ? 1 : cycles }
}

public enum FocusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting or argument out of range.
    case invalid(String)
    /// There is no focus timer (or none in a state the operation applies to).
    case noFocus(String)

    public var description: String {
        switch self {
        case .invalid(let text), .noFocus(let text): return text
        }
    }
}
