import CContract
import BiomaSystem
import ArgumentParser
import BiomaWidgets
import BiomaText
import DBusCore
import BiomaContract

// `biomatimer focus …`: pomodoro, countdown and interval timers (org.biomatimer.Focus1).

struct FocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus", abstract: "Focus timers: pomodoro, countdown with an alarm, interval rounds.",
        discussion: """
            DURATION is 25m, 1h30m, 90s, 7:30 or 1:30:00 (1 s to 24 h): \(DurationText.colonForms). A focus timer started with \
            --project runs that project during work and active phases and stops work on breaks. \
            Phase ends raise a desktop notification; bars show the time left. `toggle`, `skip`, \
            `confirm` and `start PRESET` are what keybindings and bar clicks run.
            """,
        subcommands: [
            FocusPomodoro.self, FocusCountdown.self, FocusIntervals.self, FocusStart.self, FocusPause.self,
            FocusResume.self, FocusToggle.self, FocusSkip.self, FocusExtend.self, FocusConfirm.self, FocusStop.self,
            FocusStatusCommand.self, FocusHistoryCommand.self, FocusPresetCommand.self,
        ])
}

/// A call to org.biomatimer.Focus1.
@discardableResult
func callFocus(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
    try daemonClient().call(member, arguments, interface: ContractNames.focusInterface)
}

/// A focus command that is one Focus1 call without arguments: what keybindings and bar
/// clicks run. It declares only its `step`: its name, its help and the member it calls.
protocol FocusCall: ParsableCommand {
    static var step: (name: String, abstract: String, member: String) { get }
}

extension FocusCall {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: step.name, abstract: step.abstract)
    }

    func run() throws {
        try callFocus(Self.step.member)
        try sayWhatRunsNow()
    }
}

/// DURATION as µs (1 s – 24 h), or a usage error that says what is accepted.
func focusDuration(_ text: String, option: String, allowZero: Bool = false) throws -> Int64 {
    do {
        return try DurationText.read(text, what: option, max: 24 * 3_600_000_000, allowZero: allowZero)
    } catch {
        throw ValidationError(error.message)
    }
}

/// The options every kind takes.
struct FocusCommonOptions: ParsableArguments {
    @Option(help: "A project to run during work and active phases (id or name).", completion: .projects) var project: String?
    @Option(help: "A label shown in bars and notifications.") var label: String?

    func add(to options: inout [String: DBusValue]) {
        if let project { options["Project"] = .string(project) }
        if let label { options["Label"] = .string(label) }
    }
}

/// The pomodoro options, shared by `focus pomodoro` and `focus preset add|edit`.
struct PomodoroOptions: ParsableArguments {
    @Option(help: "Work phase length (default 25m).") var work: String?
    @Option(help: "Short break length (default 5m).") var short: String?
    @Option(help: "Long break length (default 15m).") var long: String?
    @Option(help: "A long break after every N-th completed work phase (default 4).") var every: UInt32?
    @Option(help: "Work phases in all, 0 = endless (default).") var cycles: UInt32?
    @Flag(inversion: .prefixedNo, help: "Start breaks by themselves (default on).") var autoStartBreaks: Bool?
    @Flag(inversion: .prefixedNo, help: "Start work after a break by itself (default off).") var autoStartWork: Bool?
    @Flag(inversion: .prefixedNo, help: "Breaks count as work (default off).") var breaksAreWork: Bool?

    func validate() throws {
        _ = try values()
    }

    func values() throws -> [String: DBusValue] {
        var options: [String: DBusValue] = [:]
        if let work { options["Work"] = .int64(try focusDuration(work, option: "--work")) }
        if let short { options["ShortBreak"] = .int64(try focusDuration(short, option: "--short")) }
        if let long { options["LongBreak"] = .int64(try focusDuration(long, option: "--long")) }
        if let every {
            guard (1...100).contains(every) else { throw ValidationError("--every must be between 1 and 100.") }
            options["LongBreakEvery"] = .uint32(every)
        }
        if let cycles { options["Cycles"] = .uint32(cycles) }
        if let autoStartBreaks { options["AutoStartBreaks"] = .boolean(autoStartBreaks) }
        if let autoStartWork { options["AutoStartWork"] = .boolean(autoStartWork) }
        if let breaksAreWork { options["BreaksAreWork"] = .boolean(breaksAreWork) }
        return options
    }
}

struct FocusPomodoro: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pomodoro", abstract: "Start a pomodoro timer: work, short breaks, a long break every N-th.")
    @OptionGroup var pomodoro: PomodoroOptions
    @OptionGroup var common: FocusCommonOptions

    func run() throws {
        var options = try pomodoro.values()
        common.add(to: &options)
        try callFocus(BIOMATIMER_FOCUS1_START_POMODORO, [.vardict(options)])
        try sayWhatRunsNow()
    }
}

struct FocusCountdown: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "countdown", abstract: "Start a countdown; its end is an alarm.")
    @Argument(help: "How long (DURATION: 25m, 90s, 1:30:00; 7:30 is 7 h 30 min).") var duration: String
    @OptionGroup var common: FocusCommonOptions

    func validate() throws { _ = try focusDuration(duration, option: "DURATION") }

    func run() throws {
        var options: [String: DBusValue] = [:]
        common.add(to: &options)
        try callFocus(BIOMATIMER_FOCUS1_START_COUNTDOWN, [.int64(try focusDuration(duration, option: "DURATION")), .vardict(options)])
        try sayWhatRunsNow()
    }
}

struct FocusIntervals: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intervals", abstract: "Start interval rounds: active and rest phases (rest 0: back to back).")
    @Argument(help: "Active phase length (DURATION).") var active: String
    @Argument(help: "Rest phase length (DURATION, or 0).") var rest: String
    @Option(help: "Rounds, 0 = endless (default).") var rounds: UInt32 = 0
    @OptionGroup var common: FocusCommonOptions

    func validate() throws {
        _ = try focusDuration(active, option: "ACTIVE")
        _ = try focusDuration(rest, option: "REST", allowZero: true)
    }

    func run() throws {
        var options: [String: DBusValue] = [:]
        common.add(to: &options)
        try callFocus(
            BIOMATIMER_FOCUS1_START_INTERVALS,
            [
                .int64(try focusDuration(active, option: "ACTIVE")), .int64(try focusDuration(rest, option: "REST", allowZero: true)),
                .uint32(rounds), .vardict(options),
            ])
        try sayWhatRunsNow()
    }
}

struct FocusStart: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a saved preset.")
    @Argument(help: "The preset's id or name.", completion: .focusPresets) var preset: String
    func run() throws {
        try callFocus(BIOMATIMER_FOCUS1_START_PRESET, [.string(preset)])
        try sayWhatRunsNow()
    }
}

struct FocusPause: FocusCall {
    static let step = (name: "pause", abstract: "Pause the running phase.", member: BIOMATIMER_FOCUS1_PAUSE)
}

struct FocusResume: FocusCall {
    static let step = (name: "resume", abstract: "Resume a paused phase (or start a waiting one).", member: BIOMATIMER_FOCUS1_RESUME)
}

struct FocusToggle: FocusCall {
    static let step = (name: "toggle", abstract: "Pause or resume (a waiting phase starts); for a bar click.", member: BIOMATIMER_FOCUS1_TOGGLE_PAUSE)
}

struct FocusSkip: FocusCall {
    static let step = (name: "skip", abstract: "End the phase now and move on.", member: BIOMATIMER_FOCUS1_SKIP)
}

struct FocusExtend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend", abstract: "Add time to the phase (-2m removes time).")
    // Unrecognized-dash parsing lets `-2m` through as a value instead of an option.
    @Argument(parsing: .allUnrecognized, help: "DURATION, or -DURATION to remove.") var deltas: [String] = []

    func value() throws -> Int64 {
        guard deltas.count == 1, let delta = deltas.first else {
            throw ValidationError("Give one DURATION to add, or -DURATION to remove (e.g. 5m, -2m).")
        }
        return delta.hasPrefix("-")
            ? -(try focusDuration(String(delta.dropFirst()), option: "DELTA")) : try focusDuration(delta, option: "DELTA")
    }
    func validate() throws { _ = try value() }
    func run() throws {
        try callFocus(BIOMATIMER_FOCUS1_EXTEND, [.int64(try value())])
        try sayWhatRunsNow()
    }
}

struct FocusConfirm: FocusCall {
    static let step = (name: "confirm", abstract: "Start the phase that waits.", member: BIOMATIMER_FOCUS1_CONFIRM)
}

struct FocusStop: FocusCall {
    static let step = (name: "stop", abstract: "Stop the focus timer.", member: BIOMATIMER_FOCUS1_STOP_FOCUS)
}

struct FocusStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "The focus timer now.")
    @Flag(help: "JSON for scripts.") var json = false

    func run() throws {
        let client = try daemonClient()
        let focus = try client.state(FocusStatus.self)
        let now = commandNow()
        if json {
            say(FocusText.json(focus, now: now).text)
        } else {
            let projects = try client.state(WorkStatus.self).projects
            say(FocusText.line(focus, now: now, projectName: projects.first { $0.id == focus.project }?.name))
        }
    }
}

struct FocusHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "The phases that ran, each stretch with its start and end.")
    @Option(help: "First day: today (the default), yesterday, a weekday, YYYY-MM-DD.") var from: String?
    @Option(help: "Last day, as --from (default: the first day).") var to: String?
    @Flag(help: "JSON for scripts.") var json = false

    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] { _ = try dayOption(value, name) }
    }

    func run() throws {
        let client = try daemonClient()
        let status = try client.state(WorkStatus.self)
        let (from, to) = (try dayOption(from, "--from"), try dayOption(to, "--to"))
        let first = from ?? to ?? status.day
        let phases = PhaseListing.rows(
            try client.call(
                BIOMATIMER_FOCUS1_FOCUS_HISTORY, [.string(first), .string(to ?? first)], interface: ContractNames.focusInterface
            ).first)
        let names = status.projectNames
        let dated = first != (to ?? first)
        say(
            json ? FocusText.historyJSON(phases, names: names) : FocusText.historyTable(phases, names: names, dated: dated), terminator: "")
    }
}

// MARK: - Presets

struct FocusPresetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preset", abstract: "Saved focus timers: add, list, edit, delete.",
        subcommands: [FocusPresetAdd.self, FocusPresetList.self, FocusPresetEdit.self, FocusPresetDelete.self])
}

/// The options of a preset of any kind (those of its kind are used).
struct PresetOptions: ParsableArguments {
    @OptionGroup var pomodoro: PomodoroOptions
    @Option(help: "Countdown length (DURATION).") var duration: String?
    @Option(help: "Intervals: active phase length (DURATION).") var active: String?
    @Option(help: "Intervals: rest phase length (DURATION, or 0).") var rest: String?
    @Option(help: "Intervals: rounds, 0 = endless.") var rounds: UInt32?
    @OptionGroup var common: FocusCommonOptions

    func validate() throws { _ = try values() }

    func values() throws -> [String: DBusValue] {
        var options = try pomodoro.values()
        if let duration { options["Duration"] = .int64(try focusDuration(duration, option: "--duration")) }
        if let active { options["Active"] = .int64(try focusDuration(active, option: "--active")) }
        if let rest { options["Rest"] = .int64(try focusDuration(rest, option: "--rest", allowZero: true)) }
        if let rounds { options["Rounds"] = .uint32(rounds) }
        common.add(to: &options)
        return options
    }
}

struct FocusPresetAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Save a preset; prints its id.",
        discussion: "e.g. `focus preset add Tea countdown --duration 4m`, `focus preset add Gym intervals --active 40s --rest 20s --rounds 8`.")
    @Argument(help: "The preset's name.") var name: String
    @Argument(help: "pomodoro, countdown or intervals.") var kind: String
    @OptionGroup var options: PresetOptions

    func validate() throws {
        guard ["pomodoro", "countdown", "intervals"].contains(kind) else {
            throw ValidationError("KIND must be pomodoro, countdown or intervals, not \(kind).")
        }
        if kind == "countdown" && options.duration == nil { throw ValidationError("A countdown preset needs --duration.") }
        if kind == "intervals" && options.active == nil { throw ValidationError("An intervals preset needs --active.") }
    }

    func run() throws {
        say(try callFocus(BIOMATIMER_FOCUS1_ADD_PRESET, [.string(name), .string(kind), .vardict(try options.values())]).first?.string ?? "")
    }
}

struct FocusPresetList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the presets.")
    @Flag(help: "JSON for scripts.") var json = false

    func run() throws {
        let presets = (try callFocus(BIOMATIMER_FOCUS1_LIST_PRESETS).first?.array ?? []).compactMap(\.vardict)
        say(json ? FocusText.presetsJSON(presets) : FocusText.presetsTable(presets), terminator: "")
    }
}

struct FocusPresetEdit: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a preset.")
    @Argument(help: "The preset's id or name.", completion: .focusPresets) var preset: String
    @Option(help: "A new name.") var name: String?
    @OptionGroup var options: PresetOptions

    func changes() throws -> [String: DBusValue] {
        var changes = try options.values()
        if let name { changes["Name"] = .string(name) }
        return changes
    }

    func validate() throws {
        if try changes().isEmpty { throw ValidationError("Give at least one change, e.g. --name or --work.") }
    }

    func run() throws { try callFocus(BIOMATIMER_FOCUS1_UPDATE_PRESET, [.string(preset), .vardict(try changes())]) }
}

struct FocusPresetDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a preset.")
    @Argument(help: "The preset's id or name.", completion: .focusPresets) var preset: String
    func run() throws { try callFocus(BIOMATIMER_FOCUS1_DELETE_PRESET, [.string(preset)]) }
}
