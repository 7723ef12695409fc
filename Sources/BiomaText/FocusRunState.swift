/// The focus timer's state, one type for the rules (BiomaCore's `FocusTimer`), the contract
/// (`FocusStatus.state`, published as the word of its raw value) and the bars (`FocusDisplay`).
/// `off` is the absence of a timer.
public enum FocusRunState: String, Sendable, Equatable, Codable, CaseIterable {
    case off, running, paused, waiting, done
}
