import BiomaCore
import BiomaStore
import DBusKit
import Foundation

/// The daemon's parts made and wired in one place: the work timer, tasks, focus, sync, the
/// hooks and the command line, in the order they publish, sharing the store, the bus, the
/// clock, the notifier and the work timer's bulk worker, joined in one object with one
/// publication and one change path. `Startup` makes them for the daemon; the in-process tests
/// make them the same way, with their own clock, settings and hooks folder.
public struct DaemonParts: Sendable {
    public let timer: WorkService
    public let tasks: TasksService
    public let focus: FocusService
    public let sync: SyncService
    public let hooks: HooksService
    public let commands: CommandService
    /// The object that exports them all.
    public let object: DaemonObject
    public let notifier: Notifier

    /// On the loop thread, before the object is exported. `hooksDirectory`: where the user's
    /// hooks are (a folder that does not exist: none); `configFile`: the settings file
    /// `settings` were read from, whose problems Timer1 publishes and every command says.
    public init(
        tracker: Tracker, bus: Bus, clock: any TimeSource, settings: Settings, hooksDirectory: String,
        configFile: String = Settings.file().path, suspendClock: any SuspendClock = SystemSuspendClock(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        notifier = Notifier(bus: bus, enabled: settings.notifications, log: log)
        timer = WorkService(
            tracker: tracker, bus: bus, clock: clock, away: settings.away, notifier: notifier, suspendClock: suspendClock,
            goals: TargetSettings(targets: settings.targets, balanceSince: settings.balanceSince), calendarPath: settings.exportICS,
            config: ConfigFileState(path: configFile, problems: settings.problems), log: log)
        // A project left within `short_interval` is not recorded apart.
        tracker.shortInterval = settings.shortInterval
        tasks = TasksService(tracker: tracker, bus: bus, clock: clock, notifier: notifier, log: log)
        focus = FocusService(
            tracker: tracker, bus: bus, clock: clock, timer: timer, notifier: notifier, phaseEndCommand: settings.phaseEndCommand,
            log: log)
        sync = SyncService(
            tracker: tracker, bus: bus, clock: clock, notifier: notifier, configuredFolder: settings.syncDirectory, bulk: timer.bulk,
            log: log)
        let parts: [any ObjectInterface] = [timer, tasks, focus, sync]
        // Hooks follow the publication of all the others' changes.
        hooks = HooksService(
            directory: hooksDirectory, limits: HookLimits(seconds: settings.hookSeconds), tracker: tracker, bus: bus, clock: clock,
            work: timer, stateParts: parts, log: log)
        // The command line the front carries runs against the other parts, in process.
        commands = CommandService(bus: bus, inputIdleSeconds: settings.inputIdleSeconds, configProblems: settings.problems)
        object = DaemonObject(parts + [hooks, commands])
    }
}
