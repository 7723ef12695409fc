import BiomaCore
import BiomaStore
import BiomaText
import CContract
import DBusKit

/// The daily work targets as the settings file gives them; `target set` (the store) beats
/// them weekday by weekday, from the day it was set.
public struct TargetSettings: Sendable, Equatable {
    /// The file's values (each holding always: the daemon records from which day it first
    /// read each, `StoreTargets.configTargets`).
    public var targets: WorkTargets
    /// The balance's first day; nil: the first day a target counts.
    public var balanceSince: Day?

    public init(targets: WorkTargets = WorkTargets(), balanceSince: Day? = nil) {
        self.targets = targets
        self.balanceSince = balanceSince
    }
}

/// Targets, progress and balance on Timer1, `SetTargets`, and the one notice the moment the
/// day's target is reached (a deadline at that instant while work runs; every publication
/// also checks, the deadline is only a wake-up). Owned by `WorkService`, which adds them to
/// what it publishes and calls `check` after each publication; on the loop thread only.
final class DailyTargets: @unchecked Sendable {
    let tracker: Tracker
    let notices: GoalNotices
    let log: @Sendable (String) -> Void
    let settings: TargetSettings
    /// The settings file's targets, each from the day the daemon first read its value.
    var configTargets: WorkTargets
    /// The last day whose reached target was announced (`target_announced`).
    var announcedDay: Day?
    /// The instant today's target will be reached: a wake-up for the publication's check.
    var due: Deadlines.Handle?

    init(
        tracker: Tracker, notices: GoalNotices, settings: TargetSettings, today: Day, log: @escaping @Sendable (String) -> Void
    ) {
        (self.tracker, self.notices, self.settings, self.log) = (tracker, notices, settings, log)
        configTargets = settings.targets
        do {
            configTargets = try tracker.targets.configTargets(settings.targets, seenFrom: today)
        } catch {
            log("cannot record when the settings file's targets were first read (\(error)); they count always")
        }
        do {
            announcedDay = try tracker.daemonState.targetAnnouncedDay()
        } catch {
            log("cannot read the day the target was last announced (\(error)); today's may show again")
        }
    }

    /// Once `notices` is attached.
    func attach() { due = notices.wakeUp() }

    /// The targets that hold, each day's as it held that day: the store's (read at each use,
    /// so a target a peer set counts from the publication its merge makes), over the
    /// settings file's from the day the daemon first read them.
    var current: WorkTargets { targets(stored: storedTargetHistories()) }

    /// The store's targets by weekday; none (logged) when they cannot be read.
    func storedTargetHistories() -> [Int: TargetHistory] {
        do {
            return try tracker.targets.storedTargetHistories()
        } catch {
            log("cannot read the stored targets (\(error)); the settings file's hold")
            return [:]
        }
    }

    /// `stored` over the settings file's; with `balance_since` each weekday's first value
    /// holds always (the setting says where the balance starts, whatever day it was set).
    func targets(stored: [Int: TargetHistory]) -> WorkTargets {
        let targets = configTargets.overlaid(with: stored)
        return settings.balanceSince == nil ? targets : targets.fromAlways
    }

    /// Where the balance starts, and why: the setting `balance_since` (`config`), else the first
    /// day a target counts (`target-set`), else, for a target with no day recorded (a store
    /// written before targets kept their days, or its peer), the first recorded day
    /// (`first-recorded-day`), else today (`none`: no target, no balance).
    func balanceStart(today: Day, targets: WorkTargets) -> (day: Day, source: String) {
        if let since = settings.balanceSince { return (since, "config") }
        switch targets.firstTargetDay {
        case .some(.some(let day)): return (day, "target-set")
        case .some(.none):
            do {
                return (try tracker.targets.firstRecordedDay() ?? today, "first-recorded-day")
            } catch {
                log("cannot read the first recorded day (\(error)); the balance starts today")
                return (today, "first-recorded-day")
            }
        case .none: return (today, "none")
        }
    }

    func balanceSince(today: Day) -> Day { balanceStart(today: today, targets: current).day }

    /// `DailyTarget`, `TargetProgress` and `Balance` for a snapshot, at its instant.
    func add(to status: inout WorkStatus, _ snapshot: TrackerSnapshot, targets: WorkTargets) {
        let progress = TargetProgress(snapshot: snapshot, targets: targets)
        status.dailyTarget = progress.target
        status.targetProgress = progress.fraction
        guard targets.isSet else { return }
        let since = balanceStart(today: snapshot.day, targets: targets).day
        do {
            let workSince = since <= snapshot.day ? try tracker.targets.workTotal(since: since, at: snapshot.updatedAt) : 0
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
    func check(_ snapshot: TrackerSnapshot, targets: WorkTargets) {
        let progress = TargetProgress(snapshot: snapshot, targets: targets)
        if progress.shouldAnnounce(lastAnnounced: announcedDay) {
            announcedDay = snapshot.day
            do {
                try tracker.daemonState.saveTargetAnnounced(snapshot.day)
            } catch {
                log("cannot record the target notice (\(error)); a restart today may show it again")
            }
            notices.announce(
                .targetReached(day: snapshot.day, target: progress.target, worked: progress.worked), at: snapshot.updatedAt,
                summary: "Daily target reached",
                body: "\(DurationClock.hoursMinutes(progress.worked)) worked today, target \(progress.targetText).")
        }
        notices.schedule(due, at: announcedDay == snapshot.day ? nil : progress.reachedAt)
    }

    /// `ListTargets()`: `Days` aa{sv} (`Day` s `Mon` … `Sun`, `Target` x, `Source` s `store`,
    /// `config` or `none`, `Since` s: the day today's value took effect, empty when it holds
    /// always or there is none), `BalanceSince` s and its `BalanceSinceSource` s (`config`,
    /// `target-set`, `first-recorded-day` or `none`).
    func listTargets(today: Day) -> DBusValue {
        let stored = storedTargetHistories()
        let targets = targets(stored: stored)
        var listing = TargetsListing()
        listing.days = [2, 3, 4, 5, 6, 7, 1].map { weekday in
            var day = TargetDayListing()
            // With `balance_since` a first value holds always: no day to say.
            let history = targets.histories[weekday - 1]
            (day.day, day.target) = (Self.targetKeys[weekday - 1], history.current)
            let fromStore = stored[weekday].map { !$0.entries.isEmpty } ?? false
            day.source = fromStore ? "store" : history.current > 0 ? "config" : "none"
            day.since = history.current > 0 ? history.entries.last?.from?.description ?? "" : ""
            return day
        }
        let start = balanceStart(today: today, targets: targets)
        (listing.balanceSince, listing.balanceSinceSource) = (start.day.description, start.source)
        return listing.dbusValue
    }

    static let targetKeys = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// `SetTargets(a{sv})`'s argument: `Daily` sets every day, `Mon` … `Sun` one weekday (µs,
    /// `x`). The weekdays (1 Sunday … 7 Saturday) and their new targets; a bad key, type or value is
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
