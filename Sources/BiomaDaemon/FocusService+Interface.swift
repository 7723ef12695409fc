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

    static func listing(_ record: FocusRecord) -> PhaseListing {
        var row = PhaseListing()
        (row.kind, row.phase, row.round) = (record.kind.rawValue, record.phase.rawValue, UInt32(clamping: record.round))
        (row.label, row.project) = (record.label, record.project ?? "")
        (row.start, row.end, row.planned, row.completed) = (record.start, record.end, record.planned, record.completed)
        return row
    }

    static func kind(_ text: String) throws -> FocusKind {
        guard let kind = FocusKind(rawValue: text) else {
            throw DaemonAPI.invalidArgument("Unknown kind \(quoted(text)): use pomodoro, countdown or intervals.")
        }
        return kind
    }

    /// `org.biomatimer.Focus1`: one row per member, naming its handler.
    public func interface() -> DBusInterface {
        DBusInterface(
            FocusStatus.table, state: { [self] in status(at: clock.now()) },
            methods: [
                DBusMethod.action(BIOMATIMER_FOCUS1_START_POMODORO, in: [.init("options", "a{sv}")]) { [self] in try startPomodoro($0) },
                DBusMethod.action(BIOMATIMER_FOCUS1_START_COUNTDOWN, in: [.init("duration", "x"), .init("options", "a{sv}")]) {
                    [self] in try startCountdown($0)
                },
                DBusMethod.action(BIOMATIMER_FOCUS1_START_INTERVALS,
                    in: [.init("active", "x"), .init("rest", "x"), .init("rounds", "u"), .init("options", "a{sv}")]
                ) { [self] in try startIntervals($0) },
                DBusMethod.action(BIOMATIMER_FOCUS1_START_PRESET, in: [.init("preset", "s")]) { [self] in try startPreset($0) },
                DBusMethod.action(BIOMATIMER_FOCUS1_PAUSE) { [self] _ in try pause() },
                DBusMethod.action(BIOMATIMER_FOCUS1_RESUME) { [self] _ in try resume() },
                DBusMethod(BIOMATIMER_FOCUS1_TOGGLE_PAUSE, out: [.init("paused", "b")]) { [self] _ in [.boolean(try togglePause())] },
                DBusMethod.action(BIOMATIMER_FOCUS1_SKIP) { [self] _ in try skip() },
                DBusMethod.action(BIOMATIMER_FOCUS1_EXTEND, in: [.init("delta", "x")]) { [self] in try extend(by: $0.arguments[0].int64!) },
                DBusMethod.action(BIOMATIMER_FOCUS1_CONFIRM) { [self] _ in try confirm() },
                DBusMethod.action(BIOMATIMER_FOCUS1_STOP_FOCUS) { [self] _ in try stopFocus() },
                DBusMethod(BIOMATIMER_FOCUS1_LIST_PRESETS, out: [.init("presets", "aa{sv}")]) { [self] _ in [listPresets()] },
                DBusMethod(BIOMATIMER_FOCUS1_ADD_PRESET, in: [.init("name", "s"), .init("kind", "s"), .init("options", "a{sv}")],
                    out: [.init("id", "s")]
                ) { [self] in try addPreset($0) },
                DBusMethod.action(BIOMATIMER_FOCUS1_UPDATE_PRESET, in: [.init("preset", "s"), .init("changes", "a{sv}")]) {
                    [self] in try updatePreset($0)
                },
                DBusMethod.action(BIOMATIMER_FOCUS1_DELETE_PRESET, in: [.init("preset", "s")]) { [self] in try deletePreset($0) },
                DBusMethod(BIOMATIMER_FOCUS1_FOCUS_HISTORY, in: [.init("from_day", "s"), .init("to_day", "s")],
                    out: [.init("phases", "aa{sv}")]
                ) { [self] in try focusHistory($0) },
            ],
            signals: [DBusSignal(BIOMATIMER_FOCUS1_PHASE_ENDED, [.init("phase", "a{sv}")])])
    }

    // MARK: - Handlers

    private func startPomodoro(_ call: MethodCall) throws {
        var plan = FocusPlan.pomodoro()
        try Self.apply(call.arguments[0].vardict ?? [:], to: &plan, allowed: Self.pomodoroKeys)
        try start(plan)
    }

    private func startCountdown(_ call: MethodCall) throws {
        var plan = FocusPlan.countdown(call.arguments[0].int64!)
        try Self.apply(call.arguments[1].vardict ?? [:], to: &plan, allowed: Self.countdownKeys)
        try start(plan)
    }

    private func startIntervals(_ call: MethodCall) throws {
        guard case .uint32(let rounds) = call.arguments[2] else { return }
        var plan = FocusPlan.intervals(active: call.arguments[0].int64!, rest: call.arguments[1].int64!, rounds: Int(rounds))
        try Self.apply(call.arguments[3].vardict ?? [:], to: &plan, allowed: Self.intervalsKeys)
        try start(plan)
    }

    private func startPreset(_ call: MethodCall) throws {
        let ref = call.arguments[0].string!
        guard let preset = tracker.focus.presets.resolve(ref) else { throw DaemonAPI.dbusError(TrackerError.noSuchPreset(ref)) }
        var plan = preset.plan
        if plan.label.isEmpty { plan.label = preset.name }
        try start(plan)
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

    /// `Pause`.
    func pause() throws { try operateOnFocus { now, running in try running.pause(at: now) } }

    /// `Resume`: a phase waiting for confirmation starts.
    func resume() throws {
        try operateOnFocus { now, running in
            if running.state == .waiting { running.confirm(at: now) } else { try running.resume(at: now) }
            return FocusOutcome()
        }
    }

    /// `TogglePause`: whether the timer is now paused.
    func togglePause() throws -> Bool {
        var paused = false
        try operateOnFocus { now, running in
            switch running.state {
            case .running:
                paused = true
                return try running.pause(at: now)
            case .waiting:
                running.confirm(at: now)
            default:
                try running.resume(at: now)
            }
            return FocusOutcome()
        }
        return paused
    }

    /// `Skip` (and the notification's "Skip").
    func skip() throws { try operateOnFocus { now, running in try running.skip(at: now) } }

    /// `Extend` (and the notification's "+1 min").
    func extend(by delta: Micros) throws { try operateOnFocus { now, running in try running.extend(by: delta, at: now) } }

    /// `Confirm` (and the notification's "Start").
    func confirm() throws {
        try operate { now, focus, _ in
            focus?.confirm(at: now)
            return FocusOutcome()
        }
    }

    /// `StopFocus`.
    func stopFocus() throws {
        try operate { now, focus, _ in
            let stopped = try requireFocus(focus)
            focus = nil
            return stopped.stop(at: now)
        }
    }

    private func listPresets() -> DBusValue {
        .array(
            .array(.dictEntry(.string, .variant)),
            tracker.focus.presets.map { preset in
                var listing = PresetListing()
                (listing.id, listing.name) = (preset.id, preset.name)
                return .vardict(ordered: PresetListing.table.entries(of: listing) + Self.encode(preset.plan))
            })
    }

    private func addPreset(_ call: MethodCall) throws -> [DBusValue] {
        let kind = try Self.kind(call.arguments[1].string!)
        var plan = FocusPlan(kind: kind)
        try Self.apply(call.arguments[2].vardict ?? [:], to: &plan, allowed: Self.presetKeys(kind))
        let name = call.arguments[0].string!
        return [.string(try work.change { try tracker.focus.addPreset(name: name, plan: plan, at: $0) })]
    }

    private func updatePreset(_ call: MethodCall) throws {
        let ref = call.arguments[0].string!
        guard let preset = tracker.focus.presets.resolve(ref) else { throw DaemonAPI.dbusError(TrackerError.noSuchPreset(ref)) }
        var changes = call.arguments[1].vardict ?? [:]
        guard !changes.isEmpty else { throw DaemonAPI.invalidArgument("No changes given: use Name or the kind's options.") }
        let name = try Options(changes.filter { $0.key == "Name" }, allowed: ["Name"]).string("Name")
        changes["Name"] = nil
        try work.change {
            try tracker.focus.updatePreset(preset.id, name: name, at: $0) { plan in
                try Self.apply(changes, to: &plan, allowed: Self.presetKeys(preset.plan.kind))
            }
        }
    }

    private func deletePreset(_ call: MethodCall) throws {
        let ref = call.arguments[0].string!
        try work.change { try tracker.focus.deletePreset(ref, at: $0) }
    }

    private func focusHistory(_ call: MethodCall) throws -> [DBusValue] {
        let from = try WorkService.optionalDay(call.arguments[0].string!, "from_day")
        let to = try WorkService.optionalDay(call.arguments[1].string!, "to_day")
        do {
            let records = try tracker.focus.history(from: from, to: to)
            return [PhaseListing.list(records.map(Self.listing))]
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }
}

