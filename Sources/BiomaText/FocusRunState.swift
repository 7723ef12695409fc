/// The focus timer's state, one type for the rules (BiomaCore's `FocusTimer`), the contract
/// (`FocusStatus.state`, published as the word of its raw value) and the bars (`FocusDisplay`).
/// `off` is the absence of a timer.
public enum FocusRunState: String, Sendable, Equatable, Codable, CaseIterable {
    case off, running, paused, waiting, done
}

extension FocusRunState {
    /// The phases in words, by their published names (bars, notifications, reports).
    public static let phaseNames = [
        "work": "Work", "short-break": "Short break", "long-break": "Long break", "countdown": "Countdown",
        "active": "Active", "rest": "Rest",
    ]
}
