// Work and focus in agreement: each timer follows the other's changes.

extension WorkTimer {
    /// Makes work follow a focus timer that went from `before` to `after`: while a phase that
    /// drives work runs, its project runs (StartProject semantics, so work runs too); when
    /// such a phase ends, pauses or stops, work stops — at the instant the phase ended, which
    /// for a phase that ended while the daemon was down is in the past.
    public mutating func follow(
        focus before: FocusTimer?, _ after: FocusTimer?, outcome: FocusOutcome, at now: Micros, rules: DayRules
    ) -> [SegmentChange] {
        if let after, after.drivesWork, let project = after.plan.project {
            guard activeProject != project else { return [] }
            return startProject(project, at: after.stretchStart ?? now, rules: rules)
        }
        guard before?.drivesWork == true, running else { return [] }
        let stoppedAt = outcome.ended.first?.end ?? outcome.records.last?.end ?? now
        return stop(at: stoppedAt)
    }
}

extension FocusTimer {
    /// The other way round: when work no longer runs the project a running phase drives (work
    /// stopped by hand, another project started, time away), the focus timer pauses.
    public mutating func follow(work state: WorkTimer, at now: Micros) -> FocusOutcome {
        // A phase that drives work is running, so it pauses without a refusal to lose.
        guard drivesWork, state.activeProject != plan.project else { return FocusOutcome() }
        return pauseRunning(at: now)
    }
}
