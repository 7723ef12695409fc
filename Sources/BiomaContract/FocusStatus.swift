import BiomaText
import DBusCore

/// The state `org.biomatimer.Focus1` publishes: the focus timer (pomodoro, countdown or
/// intervals). `table` is that interface's list of properties.
///
/// Nothing here moves by itself but `remaining` while `state` is `running`: a client computes
/// `PhaseEndsAt − now` (equally `Remaining − (now − UpdatedAt)`), so the daemon sends one
/// `PropertiesChanged` per transition and none per second.
public struct FocusStatus: PublishedState {
    /// `State`: `off`, `running`, `paused`, `waiting` or `done`.
    public var state = FocusRunState.off
    /// `Kind`: `pomodoro`, `countdown`, `intervals`; `""` when off.
    public var kind = ""
    /// `Phase`: `work`, `short-break`, `long-break`, `countdown`, `active`, `rest`; while
    /// waiting, the phase that comes next; `""` when off.
    public var phase = ""
    /// `Label`: the preset's name or the label given.
    public var label = ""
    /// `Round`: the work phase's or the round's number, from 1.
    public var round: UInt32 = 0
    /// `Rounds`: planned work phases or rounds, 0 = endless.
    public var rounds: UInt32 = 0
    /// `PhaseDuration`: the current phase's planned length, extensions included (µs).
    public var phaseDuration: Int64 = 0
    /// `Remaining`: time left in the phase at `updatedAt` (µs).
    public var remaining: Int64 = 0
    /// `PhaseEndsAt`: the instant the phase ends while running (µs since the epoch), else 0.
    public var phaseEndsAt: Int64 = 0
    /// `UpdatedAt`: the instant at which `remaining` holds.
    public var updatedAt: Int64 = 0
    /// `Project`: the id of the project it drives, `""` for none.
    public var project = ""
    /// `CompletedToday`: work phases and active rounds completed in the current day.
    public var completedToday: UInt32 = 0

    public init() {}

    /// The properties of `org.biomatimer.Focus1`, in the order of the contract and of
    /// dbus/org.biomatimer.Timer1.xml. `Remaining` and `UpdatedAt` go with every change.
    public static let table = PropertyTable<FocusStatus>(
        interface: ContractNames.focusInterface,
        [
            .init("State", \.state),
            .init("Kind", \.kind),
            .init("Phase", \.phase),
            .init("Label", \.label),
            .init("Round", \.round),
            .init("Rounds", \.rounds),
            .init("PhaseDuration", \.phaseDuration),
            .init("Remaining", \.remaining, alwaysSent: true),
            .init("PhaseEndsAt", \.phaseEndsAt),
            .init("UpdatedAt", \.updatedAt, alwaysSent: true),
            .init("Project", \.project),
            .init("CompletedToday", \.completedToday),
        ])

    /// Whether a focus timer exists (any state but `off`).
    public var isActive: Bool { state != .off }

    /// Time left at `now`: counting down from `PhaseEndsAt` while running, else `Remaining`.
    /// Never negative.
    public func remaining(at now: Int64) -> Int64 {
        guard state == .running, phaseEndsAt > 0 else { return max(0, remaining) }
        let (left, overflow) = phaseEndsAt.subtractingReportingOverflow(now)
        if overflow { return now > phaseEndsAt ? 0 : Int64.max }
        return max(0, left)
    }

    /// The part of the phase done at `now`, 0…1 (0 when the phase has no length).
    public func progress(at now: Int64) -> Double {
        guard phaseDuration > 0 else { return 0 }
        let done = Double(phaseDuration - min(phaseDuration, remaining(at: now))) / Double(phaseDuration)
        return min(1, max(0, done))
    }
}

/// `State` travels as its word; a word this client does not know is not applied.
extension FocusRunState: DBusPropertyValue {
    public static var dbusType: DBusType { .string }
    public var dbusValue: DBusValue { .string(rawValue) }
    public init?(dbusValue: DBusValue) {
        guard case .string(let word) = dbusValue, let state = FocusRunState(rawValue: word) else { return nil }
        self = state
    }
}
