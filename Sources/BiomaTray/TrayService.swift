import BiomaClient
import BiomaWidgets
import DBusKit
import Glibc
import BiomaContract

/// The tray's bus side: `org.kde.StatusNotifierItem` at `/StatusNotifierItem` and
/// `com.canonical.dbusmenu` at `/MenuBar`, made from the daemon's published state.
///
/// Every stored property is touched only on the bus's loop thread (handlers, signal handlers
/// and call completions all run there), so there are no locks. Nothing runs on a timer: the
/// item changes when the daemon publishes a change, when a host opens the menu, when the
/// daemon or the watcher comes or goes.
public final class TrayService: @unchecked Sendable {
    /// The name a running tray owns, so a session runs only one.
    public static let busName = "org.biomatimer.Tray"
    public static let itemPath = "/StatusNotifierItem"
    public static let menuPath = "/MenuBar"
    public static let itemInterface = "org.kde.StatusNotifierItem"
    public static let menuInterface = "com.canonical.dbusmenu"
    public static let watcherName = "org.kde.StatusNotifierWatcher"
    public static let watcherPath = "/StatusNotifierWatcher"
    /// Larger arrays in a call are refused (a host sends a few dozen ids at most).
    public static let maxArray = 4096
    static let callTimeout = CallTimeout.seconds(10)

    let bus: Bus
    let clock: any TimeSource
    let quit: @Sendable () -> Void
    let log: @Sendable (String) -> Void

    /// The daemon's state, followed on `bus` (`start`).
    var follower: DaemonFollower?

    // Loop thread only.
    var input = TrayInput(state: .offline)
    var menu = TrayMenu()
    var icon = TrayIcon(mark: .offline)
    var pixmaps: [Pixmap] = []
    var attentionPixmaps: [Pixmap] = []
    var status = "Passive"
    var tooltip = (title: "", description: "")
    /// The watcher owner this item registered with; registration happens once per owner.
    var registeredWith: String?
    /// The watcher's owner now (nil: no watcher), and the deadline that registers again
    /// after a watcher refused.
    var watcherOwner: String?
    var registerAgain: Deadlines.Handle?
    /// How long after a refused registration the tray asks again (µs).
    static let registerRetry: Int64 = 1_000_000
    /// The next step of the focus arc, while a phase runs (nothing is scheduled otherwise).
    var deadlines: Deadlines?
    var arcStep: Deadlines.Handle?

    /// `log`: where a line about a trouble that changes nothing the user sees goes (stderr).
    public init(
        bus: Bus, clock: any TimeSource = SystemClock(), log: @escaping @Sendable (String) -> Void = { _ in },
        quit: @escaping @Sendable () -> Void
    ) {
        (self.bus, self.clock, self.log, self.quit) = (bus, clock, log, quit)
    }

    // MARK: - What is shown

    /// Recomputes icon, status, tooltip and menu from `input`, and tells the hosts what
    /// changed: `NewIcon`, `NewAttentionIcon`, `NewStatus`, `NewToolTip`, and the menu's
    /// `LayoutUpdated` or `ItemsPropertiesUpdated`, each only when its value changed.
    func publish(initial: Bool = false) {
        let now = clock.now()
        let state = input.state
        publishIcon(now: now, initial: initial)
        let newStatus = Self.status(of: state)
        if newStatus != status {
            status = newStatus
            if !initial { emit(Self.itemPath, Self.itemInterface, "NewStatus", [.string(newStatus)]) }
        }
        // Compared at the state's own instant: the texts move with the clock, but hosts read
        // the tooltip fresh (`itemProperties`), so only a change of state is announced.
        let newTooltip = TrayText.tooltip(state, dueTasks: input.dueTasks, now: state.online ? state.timer.updatedAt : 0)
        if newTooltip != tooltip {
            tooltip = newTooltip
            if !initial { emit(Self.itemPath, Self.itemInterface, "NewToolTip") }
        }
        refreshMenu(now: now, announce: !initial)
    }

    /// The icon alone (the focus arc's steps change nothing else): `NewIcon` and
    /// `NewAttentionIcon` when its picture changed; then the arc's next step is scheduled.
    func publishIcon(now: Int64, initial: Bool = false) {
        let newIcon = TrayIcon(state: input.state, now: now)
        if initial || newIcon != icon {
            icon = newIcon
            pixmaps = newIcon.pixmaps()
            attentionPixmaps = newIcon.withAttention.pixmaps()
            if !initial {
                emit(Self.itemPath, Self.itemInterface, "NewIcon")
                emit(Self.itemPath, Self.itemInterface, "NewAttentionIcon")
            }
        }
        scheduleArcStep(now: now)
    }

    /// `NeedsAttention` when a phase ended and waits or a task is due, `Active` otherwise:
    /// never `Passive`, which waybar (and KDE, into its overflow) hides, and the icon is how
    /// work starts again when it is stopped or the daemon is offline.
    public static func status(of state: WidgetState) -> String {
        guard state.online else { return "Active" }
        if state.focus.state == .waiting || state.focus.state == .done || state.tasks.dueTasks > 0 { return "NeedsAttention" }
        return "Active"
    }

    func refreshMenu(now: Int64, announce: Bool = true) {
        let change = menu.update(input, now: now)
        guard announce else { return }
        switch change {
        case .none: break
        case .layout(let revision):
            emit(Self.menuPath, Self.menuInterface, "LayoutUpdated", [.uint32(revision), .int32(0)])
        case .properties(let updated, let removed):
            let u: [DBusValue] = updated.keys.sorted().map { id in
                .structure([.int32(id), .vardict(ordered: updated[id]!.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })])
            }
            let r: [DBusValue] = removed.keys.sorted().map { id in .structure([.int32(id), .strings(removed[id]!)]) }
            emit(
                Self.menuPath, Self.menuInterface, "ItemsPropertiesUpdated",
                [
                    .array(.structure([.int32, .array(.dictEntry(.string, .variant))]), u),
                    .array(.structure([.int32, .array(.string)]), r),
                ])
        }
    }

    func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) {
        try? bus.emit(path: path, interface: interface, member: member, arguments)
    }

    // MARK: - The item's properties

    static func pixmapValue(_ pixmaps: [Pixmap]) -> DBusValue {
        .array(
            .structure([.int32, .int32, .array(.byte)]),
            pixmaps.map { p in .structure([.int32(Int32(p.width)), .int32(Int32(p.height)), .array(.byte, p.argb.map { .byte($0) })]) })
    }

    func itemProperties() -> [String: DBusValue] {
        let now = clock.now()
        // The tooltip's times are read fresh whenever a host asks.
        let tip = TrayText.tooltip(input.state, dueTasks: input.dueTasks, now: now)
        let empty = Self.pixmapValue([])
        return [
            "Category": "ApplicationStatus",
            "Id": "biomatimer",
            "Title": "biomatimer",
            "Status": .string(status),
            "WindowId": .int32(0),
            "IconThemePath": "",
            "IconName": "",
            "IconPixmap": Self.pixmapValue(pixmaps),
            "OverlayIconName": "",
            "OverlayIconPixmap": empty,
            "AttentionIconName": "",
            "AttentionIconPixmap": Self.pixmapValue(attentionPixmaps),
            "AttentionMovieName": "",
            "ToolTip": .structure([.string(""), empty, .string(tip.title), .string(tip.description)]),
            "ItemIsMenu": false,
            "Menu": .objectPath(Self.menuPath),
        ]
    }
}
