import BiomaCore
import BiomaStore
import BiomaText
import CContract
import DBusKit

/// The daily work targets as the settings file gives them; `target set` (the store) beats
/// them weekday by weekday.
public struct TargetSettings: Sendable, Equatable {
    public var targets: WorkTargets
    /// The balance's first day; nil: the first recorded day.
    public var balanceSince: Day?

    public init(targets: WorkTargets = WorkTargets(), balanceSince: Day? = nil) {
        self.targets = targets
        self.balanceSince = balanceSince
    }

    /// The targets that hold: the stored value of a weekday, else the settings'.
    public func effective(stored: [Int: Micros]) -> WorkTargets {
        var byWeekday = (1...7).map { stored[$0] ?? targets.byWeekday[$0 - 1] }
        // `WorkTargets(mondayFirst:)` wants Monday first: Sunday moves to the end.
        byWeekday.append(byWeekday.removeFirst())
        return WorkTargets(mondayFirst: byWeekday)
    }
}

/// Targets, progress and balance on Timer1, `SetTargets`, and the one notice the moment the
/// day's target is reached (a deadline at that instant while work runs; every publication
/// also checks, the deadline is only a wake-up).
extension WorkService {
    /// The targets that hold now (the store's read at start and kept by `SetTargets`).
    var targets: WorkTargets { goals.effective(stored: storedTargets) }

    /// The balance's first day: the setting, else the first recorded day, else today.
    func balanceSince(today: Day) -> Day {
        if let since = goals.balanceSince { return since }
        do {
            return try tracker.firstRecordedDay() ?? today
        } catch {
            log("cannot read the first recorded day (\(error)); the balance starts today")
            return today
        }
    }

    /// `DailyTarget`, `TargetProgress` and `Balance` for a snapshot, at its instant.
    func addTargets(to status: inout WorkStatus, _ snapshot: TrackerSnapshot) {
        let targets = targets
        let progress = TargetProgress(snapshot: snapshot, targets: targets)
        status.dailyTarget = progress.target
        status.targetProgress = progress.fraction
        guard targets.isSet else { return }
        let since = balanceSince(today: snapshot.day)
        do {
            let workSince = since <= snapshot.day ? try tracker.workTotal(since: since, at: snapshot.updatedAt) : 0
            status.balance =
                Balance(
                    since: since, today: snapshot.day, targets: targets, workSince: workSince,
                    workToday: snapshot.dailyTotal, running: snapshot.running, at: snapshot.updatedAt
                ).value
        } catch {
            log("cannot read the work since \(since) (\(error)); Balance shows 0")
        }
    }

    /// Announces the day's target once when it is reached, and moves the deadline to the
    /// instant it will be (none while stopped or once announced).
    func checkTarget(_ snapshot: TrackerSnapshot) {
        let progress = TargetProgress(snapshot: snapshot, targets: targets)
        if progress.shouldAnnounce(lastAnnounced: announcedTargetDay) {
            announcedTargetDay = snapshot.day
            do {
                try tracker.saveTargetAnnounced(snapshot.day)
            } catch {
                log("cannot record the target notice (\(error)); a restart today may show it again")
            }
            publication.occurred(
                .targetReached(day: snapshot.day, target: progress.target, worked: progress.worked), at: snapshot.updatedAt)
            notifier?.show(
                Notifier.Notice(
                    summary: "Daily target reached",
                    body: "\(DurationClock.hoursMinutes(progress.worked)) worked today, target \(progress.targetText)."),
                onAction: { _ in })
        }
        guard let deadlines, let targetDue else { return }
        let pending = announcedTargetDay == snapshot.day ? nil : progress.reachedAt
        deadlines.schedule(targetDue, at: pending)
    }

    /// `SetTargets(a{sv})`: `Daily` sets every day, `Mon` … `Sun` one weekday (µs, `x`).
    func setTargets(_ call: MethodCall) throws {
        let changes = try Self.targetChanges(call.arguments[0].vardict ?? [:])
        try change { _ in
            try tracker.setTargets(changes)
            storedTargets.merge(changes) { _, new in new }
        }
    }

    /// `ListTargets()`: `Days` aa{sv} (`Day` s `Mon` … `Sun`, `Target` x, `Source` s `store`,
    /// `config` or `none`), `BalanceSince` s and its `BalanceSinceSource` s (`config`,
    /// `first-recorded-day` or `today`).
    func listTargets() -> DBusValue {
        let targets = targets
        var listing = TargetsListing()
        listing.days = [2, 3, 4, 5, 6, 7, 1].map { weekday in
            var day = TargetDayListing()
            (day.day, day.target) = (Self.targetKeys[weekday - 1], targets.byWeekday[weekday - 1])
            day.source = storedTargets[weekday] != nil ? "store" : goals.targets.byWeekday[weekday - 1] > 0 ? "config" : "none"
            return day
        }
        let today = tracker.rules.day(containing: clock.now())
        let since = balanceSince(today: today)
        // Only the label: `balanceSince` above read the same day and logged a failure (the
        // balance then starts today, and so does the label).
        listing.balanceSinceSource =
            goals.balanceSince != nil ? "config" : (try? tracker.firstRecordedDay()) != nil ? "first-recorded-day" : "today"
        listing.balanceSince = since.description
        return listing.dbusValue
    }

    static let targetKeys = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// The weekdays (1 Sunday … 7 Saturday) and their new targets; a bad key, type or value is
    /// an `InvalidArgument` naming it.
    static func targetChanges(_ entries: [String: DBusValue]) throws -> [Int: Micros] {
        guard !entries.isEmpty else {
            throw DaemonAPI.invalidArgument("No targets given: use the keys Daily or Mon … Sun (x, µs).")
        }
        var changes: [Int: Micros] = [:]
        // `Daily` first: a weekday given beside it beats it.
        for (key, value) in entries.sorted(by: { ($0.key == "Daily" ? 0 : 1, $0.key) < ($1.key == "Daily" ? 0 : 1, $1.key) }) {
            let weekdays: [Int]
            if key == "Daily" {
                weekdays = Array(1...7)
            } else if let index = targetKeys.firstIndex(of: key) {
                weekdays = [index + 1]
            } else {
                throw DaemonAPI.invalidArgument("Unknown key \(quoted(key)): use Daily or Mon, Tue, Wed, Thu, Fri, Sat, Sun.")
            }
            guard case .int64(let micros) = value else {
                throw DaemonAPI.invalidArgument("\(key) must be of type x (µs), not \(value.signature).")
            }
            guard micros >= 0 else { throw DaemonAPI.invalidArgument("\(key) is negative: a target is 0 (none) or more.") }
            guard micros <= WorkTargets.maximum else {
                throw DaemonAPI.invalidArgument("\(key) is longer than 24 hours.")
            }
            for weekday in weekdays { changes[weekday] = micros }
        }
        return changes
    }
}
