/// Focus timers: pomodoro, countdown and interval rounds, as a pure state machine.
///
/// A focus timer counts down through phases, each ending at an absolute instant, so nothing
/// happens between transitions. Every operation takes the instant it happens at and returns
/// what it did: the stretches of phases that ran (for the history) and the phases that ended
/// (for the `PhaseEnded` signal and the notification). No clock, no I/O.

import BiomaText
import Foundation

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

/// One stretch of a phase that ran: the history's unit. A phase paused and resumed is one
/// stretch per run; the last says whether the phase ran to its end.
public struct FocusRecord: Sendable, Equatable {
    public var kind: FocusKind
    public var phase: FocusPhase
    public var round: Int
    public var label: String
    public var project: String?
    public var start: Micros
    public var end: Micros
    /// The phase's planned length (extensions included) when the stretch ended.
    public var planned: Micros
    public var completed: Bool

    public init(
        kind: FocusKind, phase: FocusPhase, round: Int, label: String, project: String?, start: Micros, end: Micros,
        planned: Micros, completed: Bool
    ) {
        (self.kind, self.phase, self.round, self.label) = (kind, phase, round, label)
        (self.project, self.start, self.end, self.planned) = (project, start, end, planned)
        self.completed = completed
    }
}

/// A phase that ended (ran out, was skipped, or ended by an extension below zero): the phase
/// as one record — which phase, from its first stretch's start to its end, its planned length
/// and whether it was completed, read as `end.kind`, `end.start` … — and what follows it.
@dynamicMemberLookup
public struct FocusPhaseEnd: Sendable, Equatable {
    public var record: FocusRecord
    public subscript<T>(dynamicMember field: KeyPath<FocusRecord, T>) -> T { record[keyPath: field] }
    /// It ended while the daemon was not there to see it.
    public var late: Bool
    /// The phase that follows, nil when the timer is done.
    public var next: FocusPhase?
    /// Whether that next phase started by itself (false: it waits for confirmation).
    public var nextStarted: Bool
}

/// What an operation did.
public struct FocusOutcome: Sendable, Equatable {
    public var records: [FocusRecord] = []
    public var ended: [FocusPhaseEnd] = []
    public init() {}
}

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

    /// Pauses the running phase: its stretch is recorded and its time left kept.
    private mutating func pauseRunning(at now: Micros) -> FocusOutcome {
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

// MARK: - The focus timer and the work timer

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

/// A named, saved focus timer setting: what `StartPreset` (and a keybinding) starts.
public struct FocusPreset: Sendable, Equatable {
    public static let maxNameLength = 64
    public var id: String
    public var name: String
    public var plan: FocusPlan

    public init(id: String, name: String, plan: FocusPlan) {
        (self.id, self.name, self.plan) = (id, name, plan)
    }

    /// The name trimmed, 1–64 characters, no control characters.
    public static func validatedName(_ name: String) throws(FocusError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxNameLength,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalid("Preset names are 1–64 characters without control characters.") }
        return trimmed
    }
}

extension [FocusPreset] {
    /// The preset with this id, or else this name (ignoring case).
    public func resolve(_ ref: String) -> FocusPreset? {
        first { $0.id == ref } ?? first { $0.name.lowercased() == ref.lowercased() }
    }
}

/// Pomodoros and focus time per day and per project, from the history's stretches.
public struct FocusTotals: Sendable, Equatable {
    /// Per day of the range: completed work phases and rounds, and focus time (work,
    /// countdown and active phases, split at day boundaries).
    public var completed: [Int]
    public var focusTime: [Micros]
    /// Completed work phases and rounds per project id.
    public var completedByProject: [String: Int] = [:]

    /// `boundaries` are the starts of the days and the end of the last; a completed phase
    /// counts on the day it ended.
    public init(_ records: [FocusRecord], boundaries: [Micros]) {
        let days = boundaries.count - 1
        completed = Array(repeating: 0, count: max(0, days))
        focusTime = Array(repeating: 0, count: max(0, days))
        guard days > 0 else { return }
        func day(of instant: Micros) -> Int {
            var lo = 0
            var hi = days - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if boundaries[mid] <= instant { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }
        for record in records {
            if record.completed && record.phase.counts && record.end > boundaries[0] && record.end <= boundaries[days] {
                completed[day(of: record.end - 1)] += 1
                if let project = record.project { completedByProject[project, default: 0] += 1 }
            }
            guard record.phase.isFocus else { continue }
            var cursor = max(record.start, boundaries[0])
            let end = min(record.end, boundaries[days])
            while cursor < end {
                let index = day(of: cursor)
                let cut = min(end, boundaries[index + 1])
                focusTime[index] += cut - cursor
                cursor = cut
            }
        }
    }
}
