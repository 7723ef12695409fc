import CContract
import BiomaClient
import BiomaWidgets
import DBusKit
import Glibc
import BiomaContract

/// Following the daemon (`DaemonFollower`) and the watcher. The only file that talks to
/// DBusKit's loop (`watchNameOwner`, `send`, `perform`): adapting to another loop API means
/// changing this file.
extension TrayService {
    /// Exports both objects, follows the daemon (its changes and its name) and the watcher
    /// (registering once per new owner). Handlers run on the loop thread from then on.
    public func start() throws(BusError) {
        try bus.sync { [self] () throws(BusError) in
            let deadlines = try Deadlines(bus: bus)
            self.deadlines = deadlines
            arcStep = deadlines.add { [unowned self] _ in publishIcon(now: clock.now()) }
            registerAgain = deadlines.add { [unowned self] _ in
                if let watcherOwner { register(with: watcherOwner) }
            }
            publish(initial: true)
            try bus.export(ExportedObject(path: Self.itemPath, interfaces: [itemInterface()]))
            try bus.export(ExportedObject(path: Self.menuPath, interfaces: [menuInterface()]))
        }
        let follower = DaemonFollower(bus: bus, timeout: Self.callTimeout) { [self] state, cause in
            switch cause {
            case .gone:
                input = TrayInput(state: state, presets: input.presets)
                publish()
            case .read:
                input.state = state
                publish()
                if state.online { refreshLists(projects: true, tasks: true, presets: true) }
            case .changed(let interface):
                input.state = state
                publish()
                switch interface {
                case ContractNames.interface: refreshLists(projects: true, tasks: false, presets: false)
                case ContractNames.tasksInterface: refreshLists(projects: false, tasks: true, presets: false)
                default: break
                }
            }
        }
        self.follower = follower
        // Never starting the daemon: the tray shows it offline until it comes.
        try follower.start(activating: false)
        _ = try bus.watchNameOwner(Self.watcherName) { [self] owner in
            watcherOwner = owner
            guard let owner else {
                registeredWith = nil
                return
            }
            register(with: owner)
        }
    }

    /// While a focus phase runs, the icon's arc grows in `TrayIcon.focusStepCount` steps: the
    /// next step's instant is scheduled, and nothing at all while no phase runs.
    func scheduleArcStep(now: Int64) {
        guard let deadlines, let arcStep else { return }
        let focus = input.state.focus
        guard input.state.online, focus.state == .running, focus.phaseDuration > 0 else {
            deadlines.schedule(arcStep, at: nil)
            return
        }
        let step = max(1_000_000, focus.phaseDuration / Int64(TrayIcon.focusStepCount))
        let elapsed = focus.phaseDuration - focus.remaining(at: now)
        let next = now + (step - elapsed % step) + 1
        deadlines.schedule(arcStep, at: min(next, focus.phaseEndsAt > 0 ? focus.phaseEndsAt : next))
    }

    /// `RegisterStatusNotifierItem` with this connection's unique name (hosts then use
    /// `/StatusNotifierItem`), once per watcher owner: the name-owner answer and the
    /// `NameOwnerChanged` signal may both report the same owner. A watcher that refuses or
    /// does not answer in time (a panel still starting at login, on a busy machine) is asked
    /// again `registerRetry` later, for as long as it owns the name: otherwise the icon would
    /// stay missing until the panel restarts.
    func register(with owner: String) {
        guard registeredWith != owner else { return }
        registeredWith = owner
        guard
            let message = try? BusMessage.methodCall(
                destination: owner, path: Self.watcherPath, interface: Self.watcherName, member: "RegisterStatusNotifierItem",
                arguments: [.string(bus.uniqueName)])
        else { return }
        message.autoStart = false
        bus.send(message, timeout: Self.callTimeout) { [self] result in
            guard case .failure(let error) = result, registeredWith == owner, watcherOwner == owner else { return }
            log("biomatimer tray: the watcher \(owner) did not take the item (\(error)); asking again in a second")
            registeredWith = nil
            if let deadlines, let registerAgain { deadlines.schedule(registerAgain, at: clock.now() + Self.registerRetry) }
        }
    }

    /// Re-reads the lists the menu shows beside the published state: projects with today's
    /// totals, due tasks, focus presets. Each answer rebuilds the menu.
    func refreshLists(projects: Bool, tasks: Bool, presets: Bool) {
        guard input.state.online else { return }
        if projects {
            daemonCall(ContractNames.interface, BIOMATIMER_TIMER1_LIST_PROJECTS) { [self] values in
                input.projects = ProjectListing.rows(values.first).filter { !$0.id.isEmpty }
                publish()
            }
        }
        if tasks {
            daemonCall(ContractNames.tasksInterface, BIOMATIMER_TASKS1_LIST_TASKS, [false]) { [self] values in
                let now = clock.now()
                input.dueTasks = TaskListing.rows(values.first).filter { task in
                    !task.id.isEmpty && !task.done && task.due > 0 && task.due <= now
                }
                publish()
            }
        }
        if presets {
            daemonCall(ContractNames.focusInterface, BIOMATIMER_FOCUS1_LIST_PRESETS) { [self] values in
                input.presets = PresetListing.rows(values.first).filter { !$0.id.isEmpty }
                publish()
            }
        }
    }

    /// One call to the daemon, never starting it; `success` runs on the loop thread.
    func daemonCall(
        _ interface: String, _ member: String, _ arguments: [DBusValue] = [], autoStart: Bool = false,
        failure: (@Sendable (BusError) -> Void)? = nil, success: @escaping @Sendable ([DBusValue]) -> Void
    ) {
        guard
            let message = try? BusMessage.methodCall(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: interface, member: member,
                arguments: arguments)
        else { return }
        message.autoStart = autoStart
        bus.send(message, timeout: Self.callTimeout) { result in
            switch result {
            case .success(let values): success(values)
            case .failure(let error): failure?(error)
            }
        }
    }
}

extension TrayService {
    /// `biomatimer tray`: connects to the session bus, shows the item until Quit (exit 0) or
    /// until the bus is lost (exit 3, with a message on stderr). No timer, no polling.
    public static func run(address: BusAddress = .session, log: @escaping @Sendable (String) -> Void) -> Never {
        // xdg-open's children are not waited for.
        signal(SIGCHLD, SIG_IGN)
        let bus: Bus
        do {
            bus = try Bus(address)
        } catch {
            log("biomatimer tray: cannot connect to the session bus: \(error)")
            exit(ExitCode.unavailable)
        }
        // One tray a session: the autostart entry and the user unit may both start one.
        do {
            try bus.requestName(Self.busName)
        } catch .nameTaken(_, let owner) {
            log("biomatimer tray: another tray is already running (\(owner))")
            exit(ExitCode.done)
        } catch {
            log("biomatimer tray: \(error)")
            exit(ExitCode.unavailable)
        }
        bus.onDisconnect { reason in
            log("biomatimer tray: the session bus is gone (\(reason))")
            exit(ExitCode.unavailable)
        }
        let service = TrayService(bus: bus, log: log) { exit(ExitCode.done) }
        do {
            try service.start()
        } catch {
            log("biomatimer tray: \(error)")
            exit(ExitCode.unavailable)
        }
        while true { pause() }
    }
}
