/// Focus timers: pomodoro, countdown and interval rounds, as a pure state machine.
///
/// A focus timer counts down through phases, each ending at an absolute instant, so nothing
/// happens between transitions. Every operation takes the instant it happens at and returns
/// what it did: the stretches of phases that ran (for the history) and the phases that ended
/// (for the `PhaseEnded` signal and the notification). No clock, no I/O.

import BiomaText

/// A focus timer that exists (running, paused, waiting or done).
public struct FocusTimer: Sendable, Equatable, Codable {
    public var plan: FocusPlan
    public var state: FocusRunState
    /// The current phase; while waiting, the one that comes next; when done, the last one.
    public var phase: FocusPhase
    /// The work phase's or round's number, from 1.
    public var round: Int
    /// The phase's planned length, extensions included.
    public var phaseDuration: Micros
    /// When the phase's first stretch started (for `PhaseEnded`).
    public var phaseStart: Micros
    /// When the running stretch started; nil unless running.
    public var stretchStart: Micros?
    /// The instant the phase ends; nil unless running.
    public var endsAt: Micros?
    /// Time left while paused or waiting (the waiting phase's whole length).
    public var remaining: Micros
    /// Completed work phases since the last long break (or the start).
    public var sinceLongBreak = 0
    /// Completed work phases (pomodoro) or rounds (intervals) in this run.
    public var completedRounds = 0

    /// Starts `plan` at `now` with its first phase running.
    public static func start(_ plan: FocusPlan, at now: Micros) throws(FocusError) -> FocusTimer {
        try plan.validate()
        let phase = plan.firstPhase
        let length = plan.length(of: phase)
        return FocusTimer(
            plan: plan, state: .running, phase: phase, round: 1, phaseDuration: length, phaseStart: now,
            stretchStart: now, endsAt: now + length, remaining: length)
    }

    /// Time left at `now`, never negative.
    public func remaining(at now: Micros) -> Micros {
        if state == .running, let endsAt { return max(0, endsAt - max(now, stretchStart ?? now)) }
        return max(0, remaining)
    }

    /// Whether the driven project should run in this state.
    public var drivesWork: Bool { state == .running && plan.project != nil && plan.drivesWork(in: phase) }

    // MARK: - Time passing

    /// Ends every phase whose end has passed by `now`. A phase that ended more than `lateAfter`
    /// ago ended while nobody was there to see it: it is announced as late, and the next phase
    /// waits for confirmation instead of starting (missed phases are never replayed). A phase
    /// that ends on time starts the next at that very instant, so the schedule never drifts.
    public mutating func advance(to now: Micros, lateAfter: Micros) -> FocusOutcome {
        var outcome = FocusOutcome()
        while state == .running, let endsAt, endsAt <= now {
            let late = now - endsAt > lateAfter
            endPhase(at: endsAt, completed: true, late: late, into: &outcome)
        }
        return outcome
    }

    // MARK: - Operations

    /// Holds the remaining time. A no-op when paused; `noFocus` when nothing runs.
    public mutating func pause(at now: Micros) throws(FocusError) -> FocusOutcome {
        switch state {
        case .paused: return FocusOutcome()
        case .running: return pauseRunning(at: now)
        case .waiting: throw .noFocus("Nothing is running: the next phase waits to be started.")
        case .done, .off: throw .noFocus("Nothing is running: the focus timer is done.")
        }
    }

    /// Pauses the running phase: its stretch is recorded and its time left kept (also when
    /// work stops under it, `follow(work:at:)`).
    mutating func pauseRunning(at now: Micros) -> FocusOutcome {
        var outcome = FocusOutcome()
        let at = max(now, stretchStart ?? now)
        remaining = remaining(at: at)
        record(until: at, completed: false, into: &outcome)
        state = .paused
        endsAt = nil
        stretchStart = nil
        return outcome
    }

    /// Continues from the remaining time; starts a waiting phase. A no-op when running.
    public mutating func resume(at now: Micros) throws(FocusError) {
        switch state {
        case .running: return
        case .paused, .waiting: run(at: now)
        case .done, .off: throw .noFocus("The focus timer is done: start another.")
        }
    }

    /// A paused or waiting phase runs from `now`.
    private mutating func run(at now: Micros) {
        state = .running
        if stretchStart == nil && phaseStart == 0 { phaseStart = now }
        stretchStart = now
        endsAt = now + remaining
    }

    /// Starts the waiting phase; a no-op unless one waits.
    public mutating func confirm(at now: Micros) {
        guard state == .waiting else { return }
        phaseStart = now
        run(at: now)
    }

    /// Ends the phase now, not completed, and moves on as if it had ended. A waiting phase is
    /// passed over and the one after it starts (whoever skips is there to see it).
    public mutating func skip(at now: Micros) throws(FocusError) -> FocusOutcome {
        var outcome = FocusOutcome()
        switch state {
        case .running, .paused:
            endPhase(at: now, completed: false, late: false, into: &outcome)
        case .waiting:
            // The waiting phase never ran: nothing to record; what follows it starts now.
            moveOn(from: phase, at: now, completed: false, late: false, start: true, into: &outcome, announce: false)
            if state == .waiting { confirm(at: now) }
        case .done, .off:
            throw .noFocus("Nothing to skip: the focus timer is done.")
        }
        return outcome
    }

    /// Adds `delta` to the current phase (negative removes time; if nothing would be left the
    /// phase ends now). On a finished countdown, a positive `delta` runs it again that long.
    public mutating func extend(by delta: Micros, at now: Micros) throws(FocusError) -> FocusOutcome {
        guard delta != 0, delta.magnitude <= UInt64(FocusPlan.maximumDuration) else {
            throw .invalid("The extension must be between 1 s and 24 h, added or removed.")
        }
        var outcome = FocusOutcome()
        switch state {
        case .running:
            let left = remaining(at: now)
            guard left + delta <= FocusPlan.maximumDuration else { throw .invalid("A phase lasts at most 24 h.") }
            phaseDuration = max(0, phaseDuration + delta)
            if left + delta <= 0 {
                endPhase(at: now, completed: true, late: false, into: &outcome)
            } else {
                endsAt = now + left + delta
            }
        case .paused, .waiting:
            guard remaining + delta <= FocusPlan.maximumDuration else { throw .invalid("A phase lasts at most 24 h.") }
            if remaining + delta <= 0 {
                if state == .waiting { throw .invalid("The waiting phase would have no time left.") }
                // Paused, it did not run to its end: it ends as if skipped.
                phaseDuration = max(0, phaseDuration + delta)
                endPhase(at: now, completed: false, late: false, into: &outcome)
            } else {
                remaining += delta
                phaseDuration = max(0, phaseDuration + delta)
            }
        case .done:
            guard delta > 0 else { throw .invalid("The focus timer is done: only time can be added.") }
            state = .running
            phaseDuration = delta
            phaseStart = now
            stretchStart = now
            endsAt = now + delta
            remaining = delta
        case .off:
            throw .noFocus("There is no focus timer to extend.")
        }
        return outcome
    }

    /// Ends the timer; the part of the phase that ran is recorded.
    public func stop(at now: Micros) -> FocusOutcome {
        var outcome = FocusOutcome()
        if state == .running {
            var copy = self
            copy.record(until: max(now, stretchStart ?? now), completed: false, into: &outcome)
        }
        return outcome
    }

    // MARK: - Rules

    private mutating func record(until end: Micros, completed: Bool, into outcome: inout FocusOutcome) {
        guard let start = stretchStart, end > start else { return }
        outcome.records.append(
            FocusRecord(
                kind: plan.kind, phase: phase, round: round, label: plan.label, project: plan.project, start: start, end: end,
                planned: phaseDuration, completed: completed))
        stretchStart = nil
    }

    /// The phase ends at `end`: its stretch is recorded, and the next one follows.
    private mutating func endPhase(at end: Micros, completed: Bool, late: Bool, into outcome: inout FocusOutcome) {
        // A phase that ran no time at all (its time removed the instant it started) did not
        // run to its end: completed phases are exactly those whose last stretch says so.
        let ran = state == .running && stretchStart.map { end > $0 } == true
        let completed = completed && ran
        if state == .running { record(until: end, completed: completed, into: &outcome) }
        moveOn(from: phase, at: end, completed: completed, late: late, start: !late, into: &outcome, announce: true)
    }

    /// Moves to the phase after `ended`. `start` false makes it wait whatever the options say.
    private mutating func moveOn(
        from ended: FocusPhase, at end: Micros, completed: Bool, late: Bool, start: Bool, into outcome: inout FocusOutcome,
        announce: Bool
    ) {
        let endedRound = round
        let endedStart = phaseStart
        let endedLength = phaseDuration
        var next: FocusPhase?
        var auto = true
        switch plan.kind {
        case .pomodoro:
            switch ended {
            case .work:
                if completed {
                    sinceLongBreak += 1
                    completedRounds += 1
                }
                if plan.cycles > 0 && round >= plan.cycles {
                    next = nil
                } else {
                    next = completed && sinceLongBreak >= plan.longBreakEvery ? .longBreak : .shortBreak
                }
                auto = plan.autoStartBreaks
            default:
                if ended == .longBreak { sinceLongBreak = 0 }
                next = .work
                round += 1
                auto = plan.autoStartWork
            }
        case .countdown:
            next = nil
        case .intervals:
            switch ended {
            case .active:
                if completed { completedRounds += 1 }
                let last = plan.cycles > 0 && round >= plan.cycles
                if last {
                    next = nil
                } else if plan.rest > 0 {
                    next = .rest
                } else {
                    next = .active
                    round += 1
                }
            default:
                next = .active
                round += 1
            }
        }
        let starts = next != nil && auto && start
        if announce {
            outcome.ended.append(
                FocusPhaseEnd(
                    record: FocusRecord(
                        kind: plan.kind, phase: ended, round: endedRound, label: plan.label, project: plan.project,
                        start: endedStart, end: end, planned: endedLength, completed: completed),
                    late: late, next: next, nextStarted: starts))
        }
        stretchStart = nil
        guard let next else {
            state = .done
            endsAt = nil
            remaining = 0
            return
        }
        phase = next
        phaseDuration = plan.length(of: next)
        remaining = phaseDuration
        if starts {
            state = .running
            phaseStart = end
            stretchStart = end
            endsAt = end + phaseDuration
        } else {
            state = .waiting
            endsAt = nil
            phaseStart = 0
        }
    }
}
