/// Time away from the computer: sleep, a locked screen, an idle session. Away time is not
/// work: how it is handled is the user's policy.

/// Why the user is away.
public enum AwayReason: String, Sendable, Equatable, CaseIterable {
    case sleep, lock, idle
}

/// `away = …` in the settings file.
public enum AwayPolicy: String, Sendable, Equatable, CaseIterable {
    /// Away time past the threshold (and any sleep) is removed from work from its start; work
    /// stays stopped on return (the default).
    case stop
    /// The same, and work resumes by itself on return.
    case pause
    /// Away time counts as work; nothing happens.
    case keep
}

/// The policy and the threshold, with the rules that apply them.
public struct AwayRules: Sendable, Equatable {
    public var policy: AwayPolicy
    /// Lock and idle absences shorter than this count as work (`away_after`, default 10 min).
    public var threshold: Micros

    public static let defaultThreshold: Micros = 10 * 60 * microsPerSecond

    public init(policy: AwayPolicy = .stop, threshold: Micros = AwayRules.defaultThreshold) {
        self.policy = policy
        self.threshold = threshold
    }

    /// The instant from which an absence that began at `since` is removed from work, as seen
    /// at `now`: its start, once it counts (a sleep at once, a lock or idle past the
    /// threshold); nil while it does not (yet), or never under `keep`.
    public func removal(reason: AwayReason, since: Micros, now: Micros) -> Micros? {
        guard policy != .keep else { return nil }
        if reason == .sleep { return since }
        return now - since >= threshold ? since : nil
    }

    /// When a lock or idle absence that began at `since` starts to count, to look again then;
    /// nil for a sleep (it counts at once) or under `keep`.
    public func decisionInstant(reason: AwayReason, since: Micros) -> Micros? {
        guard policy != .keep, reason != .sleep else { return nil }
        return since + threshold
    }

    /// Whether work starts again by itself when the user is back.
    public var resumesOnReturn: Bool { policy == .pause }
}

/// A sleep nobody announced shows as growth of `CLOCK_BOOTTIME` over `CLOCK_MONOTONIC`
/// (the first counts suspended time, the second does not).
public struct SuspendGap: Sendable, Equatable {
    /// `CLOCK_BOOTTIME − CLOCK_MONOTONIC` at the last look, µs.
    public var last: Micros

    /// Suspends shorter than this are not worth a record (a second's jitter of the clocks).
    public static let minimum: Micros = 5 * microsPerSecond

    public init(_ gap: Micros) { last = gap }

    /// The sleep since the last look, as (start, end) on the wall clock at `now` (the look is
    /// taken right after the resume), or nil when there was none; the gap is remembered.
    public mutating func sleep(gap: Micros, now: Micros) -> (start: Micros, end: Micros)? {
        let slept = gap - last
        last = max(last, gap)
        guard slept >= Self.minimum else { return nil }
        return (now - slept, now)
    }
}

extension WorkTimer {
    /// Counts the interval of work removed for an absence as work after all: the stopwatches
    /// gain it back (the history gets the interval in the same transaction).
    public mutating func credit(_ removed: Interval) {
        let length = max(0, removed.end - removed.start)
        workSession += length
        if let project = removed.projectID { addProjectSession(project, length) }
    }
}

/// The choices of the "welcome back" notice after an absence removed work: resume (unless
/// work resumed by itself), count the time away as work, or count it for one of the first
/// projects of the list (an hour in a meeting room away from the desk was work on a project).
public enum AwayReturn {
    /// How many projects the notice offers.
    public static let projectChoices = 3
    static let projectPrefix = "keep-project:"

    /// The notice's actions, keys with their labels, in order.
    public static func actions(resumesOnReturn: Bool, projects: [Project]) -> [(key: String, label: String)] {
        var actions: [(key: String, label: String)] = []
        if !resumesOnReturn { actions.append((key: "resume", label: "Resume")) }
        actions.append((key: "keep", label: "Count the time away"))
        for project in projects.sorted(by: { $0.position < $1.position }).prefix(projectChoices) {
            actions.append((key: projectPrefix + project.id, label: "Count it for \(project.name)"))
        }
        return actions
    }

    /// The project id an action key names (`keep-project:<id>`), nil for the other actions.
    public static func project(fromAction key: String) -> String? {
        guard key.hasPrefix(projectPrefix), key.count > projectPrefix.count else { return nil }
        return String(key.dropFirst(projectPrefix.count))
    }
}

extension Interval {
    /// The removed away time, counted for `projectID` (`away keep --project X`, or the
    /// notice's "Count it for X"): the same time under that project.
    public func counted(for projectID: String?) -> Interval {
        Interval(start: start, end: end, projectID: projectID)
    }
}
