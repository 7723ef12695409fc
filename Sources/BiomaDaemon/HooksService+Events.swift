import BiomaCore
import BiomaStore
import BiomaText
import BiomaWidgets
import CContract
import CSystem
import DBusKit
import Foundation

/// What happened, as hook events: the facts before and after a change compared, the
/// occurrences the parts reported, and each event's `about` payload.
extension HooksService {
    // MARK: - Events

    /// What the hooks compare before and after a change.
    struct Facts {
        var running: Bool
        var project: Project?
        var session: Micros
        var focus: FocusTimer?
        var away: (reason: AwayReason, since: Micros)?
    }

    func facts(at now: Micros) -> Facts {
        let timer = tracker.workTimer
        let project = timer.activeProject.flatMap { id in tracker.projects.first { $0.id == id } }
        return Facts(
            running: timer.running, project: project, session: timer.workSessionTime(at: now), focus: tracker.focus.timer,
            away: work.away.current.map { ($0.reason, $0.since) })
    }

    /// The events a change made, by comparing what held before and after it.
    static func changes(from before: Facts, to after: Facts, tracker: Tracker, at now: Micros) -> [(HookEvent, JSON)] {
        var events: [(HookEvent, JSON)] = []
        if let away = before.away, after.away == nil {
            let fields: [(String, JSON)] = [
                ("reason", .string(away.reason.rawValue)), ("since", .int(away.since)), ("away_time", .int(now - away.since)),
            ]
            events.append((.back, .fields(fields)))
        }
        if let focus = before.focus, after.focus == nil { events.append((.focusStop, focusAbout(focus))) }
        if before.away == nil, let away = after.away {
            events.append((.away, .fields([("reason", .string(away.reason.rawValue)), ("since", .int(away.since))])))
        }
        if before.running && !after.running {
            events.append((.stop, .fields(projectFields(before.project) + [("session_time", .int(before.session))])))
        }
        if before.project?.id != after.project?.id {
            let fields: [(String, JSON)] = [
                ("old", .fields(projectFields(before.project))), ("new", .fields(projectFields(after.project))),
            ]
            events.append((.project, .fields(fields)))
        }
        if !before.running && after.running { events.append((.start, .fields(projectFields(after.project)))) }
        if let focus = after.focus, focus.state == .running, focus.phase.isFocus, !samePhase(before.focus, focus) {
            events.append((.focusStart, focusAbout(focus)))
        }
        return events
    }

    /// Whether `before` is the phase `after` runs, already begun (a resume, an extension).
    static func samePhase(_ before: FocusTimer?, _ after: FocusTimer) -> Bool {
        guard let before, before.state == .running || before.state == .paused else { return false }
        return before.phase == after.phase && before.round == after.round && before.plan.kind == after.plan.kind
            && before.phaseStart == after.phaseStart
    }

    static func projectFields(_ project: Project?) -> [(String, JSON)] {
        [("project", .string(project?.id ?? "")), ("project_name", .string(project?.name ?? ""))]
    }

    static func focusAbout(_ focus: FocusTimer) -> JSON {
        .fields([
            ("kind", .string(focus.plan.kind.rawValue)), ("phase", .string(focus.phase.rawValue)),
            ("round", .integer(focus.round)),
            ("label", .string(focus.plan.label)), ("project", .string(focus.plan.project ?? "")),
            ("phase_duration", .int(focus.phaseDuration)), ("ends_at", focus.endsAt.map { .int($0) } ?? .null),
        ])
    }

    /// An occurrence as an event and what it is about.
    func about(_ occurrence: Occurrence, at now: Micros) -> (HookEvent, JSON) {
        switch occurrence {
        case .phaseEnded(let end):
            return (
                .phaseEnd,
                .fields([
                    ("kind", .string(end.kind.rawValue)), ("phase", .string(end.phase.rawValue)), ("round", .integer(end.round)),
                    ("label", .string(end.label)), ("project", .string(end.project ?? "")), ("start", .int(end.start)),
                    ("end", .int(end.end)), ("completed", .bool(end.completed)), ("late", .bool(end.late)),
                    ("next", .string(end.next?.rawValue ?? "")),
                ])
            )
        case .targetReached(let day, let target, let worked):
            let fields: [(String, JSON)] = [("day", .string(day.description)), ("target", .int(target)), ("worked", .int(worked))]
            return (.targetReached, .fields(fields))
        case .budget(let project, let threshold, let budget, let used):
            return (
                .budget,
                .fields(
                    Self.projectFields(project) + [
                        ("threshold", .integer(threshold.rawValue)), ("budget", .int(budget.amount)),
                        ("period", .string(budget.period.rawValue)), ("used", .int(used)),
                    ])
            )
        case .taskDue(let task, let late):
            return (.taskDue, Self.taskAbout(task, late: late))
        case .merged(let operations, let devices):
            return (.merge, .fields([("operations", .integer(operations)), ("devices", .array(devices.map { .string($0) }))]))
        }
    }

    static func taskAbout(_ task: TaskItem, late: Bool) -> JSON {
        .fields([
            ("id", .string(task.id)), ("title", .string(task.title)), ("project", .string(task.projectID ?? "")),
            ("due", task.due.map { .int($0) } ?? .null), ("late", .bool(late)),
        ])
    }

    /// What a sample event (`hooks run EVENT`) is about: the fields its real payload has, from
    /// the state there is where it says something, else made up.
    static func sampleAbout(_ event: HookEvent, _ facts: Facts, tracker: Tracker, now: Micros) -> JSON {
        let project = facts.project ?? tracker.projects.first
        switch event {
        case .start: return .fields(projectFields(project))
        case .stop: return .fields(projectFields(project) + [("session_time", .int(facts.session))])
        case .project: return .fields([("old", .fields(projectFields(nil))), ("new", .fields(projectFields(project)))])
        case .focusStart, .focusStop:
            let focus = facts.focus ?? (try? FocusTimer.start(FocusPlan(kind: .pomodoro), at: now))
            return focus.map(focusAbout) ?? .fields([])
        case .phaseEnd:
            return .fields([
                ("kind", .string("pomodoro")), ("phase", .string("work")), ("round", .int(1)), ("label", .string("")),
                ("project", .string(project?.id ?? "")), ("start", .int(now - 25 * 60 * microsPerSecond)), ("end", .int(now)),
                ("completed", .bool(true)), ("late", .bool(false)), ("next", .string("short-break")),
            ])
        case .targetReached:
            return .fields([
                ("day", .string(tracker.rules.day(containing: now).description)), ("target", .int(8 * 3600 * microsPerSecond)),
                ("worked", .int(8 * 3600 * microsPerSecond)),
            ])
        case .budget:
            return .fields(
                projectFields(project) + [
                    ("threshold", .int(80)), ("budget", .int(10 * 3600 * microsPerSecond)), ("period", .string("week")),
                    ("used", .int(8 * 3600 * microsPerSecond)),
                ])
        case .taskDue:
            let task = tracker.tasks.items.first { !$0.done } ?? TaskItem(id: "k0", title: "A sample task", due: now)
            return taskAbout(task, late: false)
        case .away: return .fields([("reason", .string("lock")), ("since", .int(now))])
        case .back:
            let away = 600 * microsPerSecond
            return .fields([("reason", .string("lock")), ("since", .int(now - away)), ("away_time", .int(away))])
        case .merge:
            return .fields([("operations", .int(1)), ("devices", .array([.string("00000000-0000-7000-8000-000000000000")]))])
        }
    }

    // MARK: - The published state

    /// The whole published state as `status --json` prints it: the bars' interfaces read as
    /// `GetAll` reads them, decoded into a `WidgetState`, rendered by the json format.
    func publishedState(at now: Micros) -> JSON {
        if stateInterfaces == nil {
            stateInterfaces = stateParts.map { $0.interface() }.filter { WidgetState.interfaces.contains($0.name) }
        }
        var properties: [String: [String: DBusValue]] = [:]
        for interface in stateInterfaces ?? [] {
            do {
                let values = try interface.propertyValues?()
                var entries: [String: DBusValue] = [:]
                for property in interface.properties { entries[property.name] = try values?[property.name] ?? property.get() }
                properties[interface.name] = entries
            } catch {
                log("hooks: cannot read \(interface.name)'s properties (\(error)); the payload's state leaves them out")
            }
        }
        return JSONStateRenderer().object(WidgetState(properties: properties), now: now)
    }

    static func monotonic() -> Int64 { csystem_clock_us(CLOCK_MONOTONIC) }
}
