import BiomaCore
import BiomaText

/// The words of the focus timer's notifications.
public enum FocusNotice {
    public static func name(_ phase: FocusPhase) -> String { FocusRunState.phaseNames[phase.rawValue] ?? phase.rawValue }

    /// What ended and what comes next.
    public static func notice(_ end: FocusPhaseEnd, plan: FocusPlan?, projects: [Project]) -> (summary: String, body: String) {
        let label = end.label.isEmpty ? "" : "\(end.label): "
        let rounds = plan?.plannedRounds ?? 0
        let round = end.kind == .countdown ? "" : rounds > 0 ? " \(end.round)/\(rounds)" : " \(end.round)"
        let ended: String
        switch end.phase {
        case .work, .active: ended = end.completed ? "\(name(end.phase))\(round) done" : "\(name(end.phase))\(round) skipped"
        case .countdown: ended = end.completed ? "Time is up" : "Countdown skipped"
        case .shortBreak, .longBreak, .rest: ended = end.completed ? "\(name(end.phase)) over" : "\(name(end.phase)) skipped"
        }
        var summary = label + ended
        if end.late { summary += " (while biomatimer was not running)" }
        var body: String
        if let next = end.next {
            let length = plan.map { DurationFormat.clock($0.length(of: next)) } ?? ""
            let nextText = length.isEmpty ? name(next) : "\(name(next)) \(length)"
            body = end.nextStarted ? "\(nextText) started." : "Next: \(nextText), waiting for you to start it."
        } else {
            body = end.kind == .countdown ? "The countdown is done." : "The focus timer is done."
        }
        if let project = end.project.flatMap({ id in projects.first { $0.id == id } }) { body += " · \(project.name)" }
        return (summary, body)
    }
}
