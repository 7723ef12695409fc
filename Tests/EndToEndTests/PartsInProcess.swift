import BiomaCore
import BiomaStore
import DBusKit
import BiomaContract
import BiomaDaemon
import Foundation

extension Settings {
    /// The settings an in-process test starts from: notifications off unless it turns them
    /// on (it then starts its own notification server), `change` applied.
    static func inProcess(_ change: (inout Settings) -> Void = { _ in }) -> Settings {
        var settings = Settings()
        settings.notifications = false
        change(&settings)
        return settings
    }
}

extension DaemonParts {
    /// Every part of the daemon in process, as `Startup` makes them, with the test's clock,
    /// settings, no hooks and no settings file (a folder and a file that do not exist under `data`).
    init(
        tracker: Tracker, bus: Bus, clock: any TimeSource, data: URL, settings: Settings = .inProcess(),
        suspendClock: any SuspendClock = SystemSuspendClock()
    ) {
        self.init(
            tracker: tracker, bus: bus, clock: clock, settings: settings,
            hooksDirectory: data.appendingPathComponent("no-hooks").path, configFile: data.appendingPathComponent("no-config").path,
            suspendClock: suspendClock)
    }
}
