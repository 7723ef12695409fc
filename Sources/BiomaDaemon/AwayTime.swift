import BiomaCore
import BiomaStore
import CContract
import CSystem
import DBusKit
import Glibc

/// Where the daemon reads `CLOCK_BOOTTIME − CLOCK_MONOTONIC`; tests pass their own.
public protocol SuspendClock: Sendable {
    /// µs the machine has spent suspended since it booted.
    func gap() -> Micros
}

public struct SystemSuspendClock: SuspendClock {
    public init() {}
    public func gap() -> Micros { csystem_clock_us(CLOCK_BOOTTIME) - csystem_clock_us(CLOCK_MONOTONIC) }
}

/// Time away is not work. A lock or an idle session (`AwayBegin`, from logind or the user's
/// idle daemon) counts once it lasts `away_after`, from its start; a sleep counts at once,
/// however it was noticed — logind, or the suspend gap looked at whenever the daemon wakes.
/// Counting means: work stops at the absence's start (policy `stop` or `pause`); on return
/// a notification offers "Resume" and "Count the time away", and `pause` resumes by itself.
///
/// Owned by `WorkService`, whose `ChangeRules` look at the suspend gap and apply the absence
/// at every change; Timer1's `Away*` and `KeepAway*` members and logind's entry points call
/// it on the loop thread.
public final class AwayTime: @unchecked Sendable {
    let tracker: Tracker
    let clock: any TimeSource
    /// The object's publication (`WorkService` hands it on when the object sets it).
    var publication: Publication
    let rules: AwayRules
    let notifier: Notifier?
    let suspendClock: any SuspendClock
    var suspendGap: SuspendGap
    let log: @Sendable (String) -> Void
    var deadlines: Deadlines?
    var decision: Deadlines.Handle?
    /// Called when the machine went to sleep at an instant (a running focus phase pauses).
    var onSleep: ((Micros) -> Void)?

    /// The current absence: why and since when, and the work removed for it so far. Saved in
    /// the store at every change, so a restart goes on with it.
    var current: (reason: AwayReason, since: Micros, removed: Interval?)? {
        didSet { save() }
    }
    /// The work removed for the last absence, until counted (`KeepAway`) or superseded; saved.
    var lastRemoved: Interval? {
        didSet { save() }
    }
    /// The "welcome back" notification shown last; saved, so a restart replaces it.
    var notice: UInt32 = 0 {
        didSet {
            do {
                try tracker.daemonState.saveShownNotification(notice, for: "away")
            } catch {
                log("cannot record the away notification (\(error)); after a restart the next one shows beside it")
            }
        }
    }

    init(
        tracker: Tracker, clock: any TimeSource, publication: Publication, rules: AwayRules, notifier: Notifier?,
        suspendClock: any SuspendClock, log: @escaping @Sendable (String) -> Void
    ) {
        (self.tracker, self.clock, self.publication, self.rules, self.notifier) = (tracker, clock, publication, rules, notifier)
        (self.suspendClock, self.log) = (suspendClock, log)
        suspendGap = SuspendGap(suspendClock.gap())
        // What a previous run saved (not readable: logged, and the daemon starts as not away
        // with nothing to give back, which is what a store without them means).
        do {
            let saved = try tracker.daemonState.savedAway()
            current = saved.current.map { ($0.reason, $0.since, $0.removed) }
            lastRemoved = saved.lastRemoved
        } catch {
            log("cannot read the saved absence (\(error)); starting as not away")
        }
        do {
            notice = try tracker.daemonState.shownNotifications()["away"] ?? 0
        } catch {
            log("cannot read the away notification's id (\(error)); the next one shows beside it")
        }
    }

    /// Writes the absence and the removed away time (in `didSet`, on the loop thread).
    private func save() {
        do {
            try tracker.daemonState.saveAway(
                current: current.map { AwayRecord(reason: $0.reason, since: $0.since, removed: $0.removed) },
                lastRemoved: lastRemoved)
        } catch {
            // The timers are right; only a restart before the next change would forget it.
            log("cannot save the absence (\(error)); a restart now would forget it")
        }
    }

    /// The decision deadline, registered once on the loop.
    func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        decision = deadlines.add { [self] _ in decide() }
    }

    /// An absence saved by the previous run: decided now, or its deadline set.
    func resumeSaved() {
        if current != nil { decide() }
    }

    /// `AwayBegin(reason, since)`: `lock` or `idle`; `since` 0 is now, never in the future.
    func awayBegin(reason text: String, since: Micros) throws {
        guard let reason = AwayReason(rawValue: text), reason != .sleep else {
            throw DaemonAPI.invalidArgument("Unknown reason \(quoted(text)): use lock or idle.")
        }
        let now = clock.now()
        guard since <= now else {
            throw DaemonAPI.invalidArgument("since is in the future: give an instant before now, or 0 for now.")
        }
        guard since >= 0 else { throw DaemonAPI.invalidArgument("since must be an instant after 1970, or 0 for now.") }
        try publication.change(clock) { now in
            // Already away: the absence began at the first report (a lock during idleness
            // keeps the idle start).
            if current == nil { current = (reason, since == 0 ? now : since, nil) }
            try applyAway(at: now)
        }
    }

    /// Removes the work of the current absence once it counts; otherwise waits for the
    /// instant it will.
    func applyAway(at now: Micros) throws {
        guard let current, current.removed == nil else { return }
        if let from = rules.removal(reason: current.reason, since: current.since, now: now) {
            self.current?.removed = try tracker.timers.stopForAway(since: from, at: now)
            if let deadlines, let decision { deadlines.schedule(decision, at: nil) }
        } else if let deadlines, let decision {
            deadlines.schedule(decision, at: rules.decisionInstant(reason: current.reason, since: current.since))
        }
    }

    /// The absence's decision instant came (the user is still away).
    func decide() {
        do {
            try publication.change(clock) { try applyAway(at: $0) }
        } catch {
            log("cannot decide the absence: \(error)")
        }
    }

    /// `AwayEnd`: the user is back. Nothing when not away. The absence is decided with the
    /// facts at the return, whether or not its decision deadline fired (the clock may have
    /// moved under the daemon, or the machine been busy): one that lasted `away_after` is
    /// removed from work now.
    func awayEnd() throws { try publication.change(clock) { try awayEnd(at: $0) } }

    func awayEnd(at now: Micros) throws {
        try applyAway(at: now)
        guard let current else { return }
        self.current = nil
        if let deadlines, let decision { deadlines.schedule(decision, at: nil) }
        guard var removed = current.removed else { return }
        // Removed up to the return.
        removed.end = max(removed.start, now)
        returned(from: current.reason, removed: removed, at: now)
    }

    /// After an absence that removed work: `pause` resumes; the user is offered to resume or
    /// to count the time after all.
    func returned(from reason: AwayReason, removed: Interval, at now: Micros) {
        lastRemoved = removed
        if rules.resumesOnReturn {
            do {
                try tracker.timers.start(at: now)
            } catch {
                log("cannot resume work after the absence: \(error)")
            }
        }
        let what = reason == .sleep ? "asleep" : reason == .lock ? "locked" : "idle"
        let actions = AwayReturn.actions(resumesOnReturn: rules.resumesOnReturn, projects: tracker.projects)
        let notice = Notifier.Notice(
            summary: rules.resumesOnReturn ? "Welcome back: work goes on" : "Welcome back: work is stopped",
            body: "Not counted as work: \(Self.spoken(removed.end - removed.start)) \(what).", actions: actions)
        notifier?.show(
            notice, replacing: self.notice,
            onAction: { [self] key in awayAction(key) },
            completion: { [self] id in self.notice = id ?? 0 })
    }

    /// A clicked action: the method of that name (`Start`, `KeepAway`, `KeepAwayFor`),
    /// published the same way.
    private func awayAction(_ key: String) {
        do {
            switch key {
            case "resume": try publication.change(clock) { try tracker.timers.start(at: $0) }
            case "keep": try keepAway()
            default:
                guard let project = AwayReturn.project(fromAction: key) else { return }
                try keepAway(for: project)
            }
        } catch {
            log("the \(key) action after the absence failed: \(error)")
        }
    }

    /// `45 s`, `12 min`, `2 h 5 min`.
    static func spoken(_ duration: Micros) -> String {
        let seconds = max(0, duration / 1_000_000)
        if seconds < 60 { return "\(seconds) s" }
        let minutes = (seconds + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// `KeepAway`: the last removed away time counts as work after all.
    func keepAway() throws { try publication.change(clock) { try keepAway(at: $0) } }

    /// `KeepAwayFor(s project)`: the same, counted as work on `project` (an hour in a meeting
    /// room away from the desk was work on it). An unknown project is `NoSuchProject`.
    func keepAway(for project: String) throws { try publication.change(clock) { try keepAway(at: $0, for: project) } }

    func keepAway(at now: Micros, for project: String? = nil) throws {
        guard var removed = lastRemoved else {
            throw DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_NOTHING_TO_UNDO, "No away time was removed from work: nothing to count.")
        }
        if let project { removed = removed.counted(for: try tracker.projects.resolve(project).id) }
        try tracker.timers.keepAway(removed, at: now)
        lastRemoved = nil
    }

    /// A sleep nobody announced: the suspend gap grew since the last look. Recorded once, as
    /// logind's path would (which moves the gap on, so the two never record the same sleep).
    public func checkSuspend() {
        guard let sleep = suspendGap.sleep(gap: suspendClock.gap(), now: clock.now()) else { return }
        recordSleep(from: sleep.start, to: sleep.end)
    }

    /// The machine slept from `start` to `end` (now): work stops at `start`, and the user is
    /// back at once.
    func recordSleep(from start: Micros, to end: Micros) {
        publication.change(at: end) {
            onSleep?(start)
            // An absence in progress that already removed work covers the sleep.
            guard rules.policy != .keep, current?.removed == nil else { return }
            do {
                if let removed = try tracker.timers.stopForAway(since: start, at: end) {
                    returned(from: .sleep, removed: removed, at: end)
                }
            } catch {
                log("cannot stop work for the sleep: \(error)")
            }
        }
    }

    /// The suspend gap now, for logind's path to move the gap rule past a sleep it recorded.
    func noteSuspendGap() { suspendGap.last = max(suspendGap.last, suspendClock.gap()) }

    // MARK: - From logind (on the loop thread)

    /// `PrepareForSleep(true)`: work stops now, written before the inhibitor goes. An
    /// absence that already removed work covers the sleep.
    func sleepBegins() {
        checkSuspend()
        let now = clock.now()
        publication.change(at: now) {
            onSleep?(now)
            guard rules.policy != .keep, current?.removed == nil else { return }
            let running = tracker.workTimer.open
            do {
                _ = try tracker.timers.stopForAway(since: now, at: now)
            } catch {
                log("cannot stop work for the sleep: \(error)")
                return
            }
            // What the sleep removes runs from here to the wake-up (`awayEnd` sets its end).
            current = (.sleep, now, running.map { Interval(start: max(now, $0.start), end: now, projectID: $0.projectID) })
        }
    }

    /// `PrepareForSleep(false)`: back from sleep; the gap rule is moved past this sleep.
    func sleepEnds() {
        noteSuspendGap()
        guard let current, current.reason == .sleep else { return }
        backFromLogind()
    }

    /// `LockedHint`/`Lock`, `IdleHint`: as `AwayBegin`.
    func awayFromLogind(_ reason: AwayReason, since: Micros) {
        do {
            try awayBegin(reason: reason.rawValue, since: min(since, clock.now()))
        } catch {
            log("cannot record the \(reason.rawValue) from logind: \(error)")
        }
    }

    /// Unlocked, or no longer idle: as `AwayEnd`.
    func backFromLogind() {
        do {
            try awayEnd()
        } catch {
            log("cannot record the return from logind: \(error)")
        }
    }
}
