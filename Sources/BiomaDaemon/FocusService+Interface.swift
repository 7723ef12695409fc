import BiomaCore
import BiomaStore
import CContract
import DBusKit

/// The methods of `org.biomatimer.Focus1` and the option maps they take.
extension FocusService {
    static let pomodoroKeys = [
        "Work", "ShortBreak", "LongBreak", "LongBreakEvery", "Cycles", "AutoStartBreaks", "AutoStartWork", "BreaksAreWork",
        "Project", "Label",
    ]
    static let countdownKeys = ["Label", "Project"]
    static let intervalsKeys = ["Label", "Project"]

    /// The option keys a preset of `kind` takes: the kind's options, plus its lengths.
    static func presetKeys(_ kind: FocusKind) -> [String] {
        switch kind {
        case .pomodoro: return pomodoroKeys
        case .countdown: return countdownKeys + ["Duration"]
        case .intervals: return intervalsKeys + ["Active", "Rest", "Rounds"]
        }
    }

    /// `plan` with the options of `values` applied; unknown keys and wrong types are
    /// `InvalidArgument`. `Project` "" means none.
    static func apply(_ values: [String: DBusValue], to plan: inout FocusPlan, allowed: [String]) throws {
        let options = try Options(values, allowed: allowed)
        if let v = try options.int64("Work") { plan.work = v }
        if let v = try options.int64("ShortBreak") { plan.shortBreak = v }
        if let v = try options.int64("LongBreak") { plan.longBreak = v }
        if let v = try options.uint32("LongBreakEvery") { plan.longBreakEvery = Int(v) }
        if let v = try options.uint32("Cycles") { plan.cycles = Int(v) }
        if let v = try options.bool("AutoStartBreaks") { plan.autoStartBreaks = v }
        if let v = try options.bool("AutoStartWork") { plan.autoStartWork = v }
        if let v = try options.bool("BreaksAreWork") { plan.breaksAreWork = v }
        if let v = try options.int64("Duration") { plan.duration = v }
        if let v = try options.int64("Active") { plan.active = v }
        if let v = try options.int64("Rest") { plan.rest = v }
        if let v = try options.uint32("Rounds") { plan.cycles = Int(v) }
        if let v = try options.string("Label") { plan.label = v }
        if let v = try options.string("Project") { plan.project = v.isEmpty ? nil : v }
    }

    /// A preset or a plan as `ListPresets` shows it: the kind's options with their values.
    static func encode(_ plan: FocusPlan) -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = [("Kind", .string(plan.kind.rawValue))]
        switch plan.kind {
        case .pomodoro:
            entries += [
                ("Work", .int64(plan.work)), ("ShortBreak", .int64(plan.shortBreak)), ("LongBreak", .int64(plan.longBreak)),
                ("LongBreakEvery", .uint32(UInt32(clamping: plan.longBreakEvery))), ("Cycles", .uint32(UInt32(clamping: plan.cycles))),
                ("AutoStartBreaks", .boolean(plan.autoStartBreaks)), ("AutoStartWork", .boolean(plan.autoStartWork)),
                ("BreaksAreWork", .boolean(plan.breaksAreWork)),
            ]
        case .countdown:
            entries += [("Duration", .int64(plan.duration))]
        case .intervals:
            entries += [("Active", .int64(plan.active)), ("Rest", .int64(plan.rest)), ("Rounds", .uint32(UInt32(clamping: plan.cycles)))]
        }
        entries += [("Label", .string(plan.label)), ("Project", .string(plan.project ?? ""))]
        return entries
    }

    static func encode(_ record: FocusRecord) -> DBusValue {
        .vardict(ordered: [
            ("Kind", .string(record.kind.rawValue)), ("Phase", .string(record.phase.rawValue)),
            ("Round", .uint32(UInt32(clamping: record.round))), ("Label", .string(record.label)),
            ("Project", .string(record.project ?? "")), ("Start", .int64(record.start)), ("End", .int64(record.end)),
            ("Planned", .int64(record.planned)), ("Completed", .boolean(record.completed)),
        ])
    }

    static func kind(_ text: String) throws -> FocusKind {
        guard let kind = FocusKind(rawValue: text) else {
            throw TimerAPI.invalidArgument("Unknown kind \(quoted(text)): use pomodoro, countdown or intervals.")
        }
        return kind
    }

    public func interface() -> DBusInterface {
        DBusInterface(
            FocusStatus.table, state: { [self] in status(at: clock.now()) },
            methods: [
                DBusMethod(BIOMATIMER_FOCUS1_START_POMODORO, in: [.init("options", "a{sv}")]) { [self] call in
                    var plan = FocusPlan.pomodoro()
                    try Self.apply(call.arguments[0].vardict ?? [:], to: &plan, allowed: Self.pomodoroKeys)
                    try start(plan)
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_START_COUNTDOWN, in: [.init("duration", "x"), .init("options", "a{sv}")]) { [self] call in
                    var plan = FocusPlan.countdown(call.arguments[0].int64!)
                    try Self.apply(call.arguments[1].vardict ?? [:], to: &plan, allowed: Self.countdownKeys)
                    try start(plan)
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_START_INTERVALS,
                    in: [.init("active", "x"), .init("rest", "x"), .init("rounds", "u"), .init("options", "a{sv}")]
                ) { [self] call in
                    guard case .uint32(let rounds) = call.arguments[2] else { return [] }
                    var plan = FocusPlan.intervals(
                        active: call.arguments[0].int64!, rest: call.arguments[1].int64!, rounds: Int(rounds))
                    try Self.apply(call.arguments[3].vardict ?? [:], to: &plan, allowed: Self.intervalsKeys)
                    try start(plan)
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_START_PRESET, in: [.init("preset", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    guard let preset = tracker.presets.resolve(ref) else { throw TimerAPI.dbusError(TrackerError.noSuchPreset(ref)) }
                    var plan = preset.plan
                    if plan.label.isEmpty { plan.label = preset.name }
                    try start(plan)
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_PAUSE) { [self] _ in
                    try operate { now, focus, _ in
                        var timer = try requireFocus(focus)
                        defer { focus = timer }
                        return try timer.pause(at: now)
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_RESUME) { [self] _ in
                    try operate { now, focus, _ in
                        var timer = try requireFocus(focus)
                        if timer.state == .waiting { timer.confirm(at: now) } else { try timer.resume(at: now) }
                        focus = timer
                        return FocusOutcome()
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_TOGGLE_PAUSE, out: [.init("paused", "b")]) { [self] _ in
                    var paused = false
                    try operate { now, focus, _ in
                        var timer = try requireFocus(focus)
                        defer { focus = timer }
                        switch timer.state {
                        case .running:
                            paused = true
                            return try timer.pause(at: now)
                        case .waiting:
                            timer.confirm(at: now)
                        default:
                            try timer.resume(at: now)
                        }
                        return FocusOutcome()
                    }
                    return [.boolean(paused)]
                },
                DBusMethod(BIOMATIMER_FOCUS1_SKIP) { [self] _ in
                    try operate { now, focus, _ in
                        var timer = try requireFocus(focus)
                        defer { focus = timer }
                        return try timer.skip(at: now)
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_EXTEND, in: [.init("delta", "x")]) { [self] call in
                    let delta = call.arguments[0].int64!
                    try operate { now, focus, _ in
                        var timer = try requireFocus(focus)
                        defer { focus = timer }
                        return try timer.extend(by: delta, at: now)
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_CONFIRM) { [self] _ in
                    try operate { now, focus, _ in
                        focus?.confirm(at: now)
                        return FocusOutcome()
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_STOP_FOCUS) { [self] _ in
                    try operate { now, focus, _ in
                        let timer = try requireFocus(focus)
                        focus = nil
                        return timer.stop(at: now)
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_LIST_PRESETS, out: [.init("presets", "aa{sv}")]) { [self] _ in
                    [
                        .array(
                            .array(.dictEntry(.string, .variant)),
                            tracker.presets.map {
                                .vardict(ordered: [("Id", .string($0.id)), ("Name", .string($0.name))] + Self.encode($0.plan))
                            })
                    ]
                },
                DBusMethod(BIOMATIMER_FOCUS1_ADD_PRESET, in: [.init("name", "s"), .init("kind", "s"), .init("options", "a{sv}")],
                    out: [.init("id", "s")]
                ) { [self] call in
                    let kind = try Self.kind(call.arguments[1].string!)
                    var plan = FocusPlan(kind: kind)
                    try Self.apply(call.arguments[2].vardict ?? [:], to: &plan, allowed: Self.presetKeys(kind))
                    let name = call.arguments[0].string!
                    return [.string(try timer.change { try tracker.addPreset(name: name, plan: plan, at: $0) })]
                },
                DBusMethod(BIOMATIMER_FOCUS1_UPDATE_PRESET, in: [.init("preset", "s"), .init("changes", "a{sv}")]) { [self] call in
                    let ref = call.arguments[0].string!
                    guard let preset = tracker.presets.resolve(ref) else {
                        throw TimerAPI.dbusError(TrackerError.noSuchPreset(ref))
                    }
                    var changes = call.arguments[1].vardict ?? [:]
                    guard !changes.isEmpty else {
                        throw TimerAPI.invalidArgument("No changes given: use Name or the kind's options.")
                    }
                    let name = try Options(changes.filter { $0.key == "Name" }, allowed: ["Name"]).string("Name")
                    changes["Name"] = nil
                    try timer.change {
                        try tracker.updatePreset(preset.id, name: name, at: $0) { plan in
                            try Self.apply(changes, to: &plan, allowed: Self.presetKeys(preset.plan.kind))
                        }
                    }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_DELETE_PRESET, in: [.init("preset", "s")]) { [self] call in
                    let ref = call.arguments[0].string!
                    try timer.change { try tracker.deletePreset(ref, at: $0) }
                    return []
                },
                DBusMethod(BIOMATIMER_FOCUS1_FOCUS_HISTORY, in: [.init("from_day", "s"), .init("to_day", "s")], out: [.init("phases", "aa{sv}")]
                ) { [self] call in
                    let from = try TimerService.optionalDay(call.arguments[0].string!, "from_day")
                    let to = try TimerService.optionalDay(call.arguments[1].string!, "to_day")
                    do {
                        let records = try tracker.focusHistory(from: from, to: to)
                        return [.array(.array(.dictEntry(.string, .variant)), records.map(Self.encode))]
                    } catch {
                        throw TimerAPI.dbusError(error)
                    }
                },
            ],
            signals: [DBusSignal("PhaseEnded", [.init("phase", "a{sv}")])])
    }

    /// Starts a plan, replacing any focus timer.
    private func start(_ plan: FocusPlan) throws {
        try operate { now, focus, projects in
            var plan = plan
            if let project = plan.project { plan.project = try projects.resolve(project).id }
            let outcome = focus?.stop(at: now) ?? FocusOutcome()
            focus = try FocusTimer.start(plan, at: now)
            return outcome
        }
    }
}
