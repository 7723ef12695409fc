import CContract
import BiomaText
import BiomaWidgets
import DBusCore
import BiomaContract

/// Everything the menu is made from.
public struct TrayInput: Sendable, Equatable {
    public var state: WidgetState
    /// `ListProjects` as last read: today's totals and the budgets' use at that time.
    public var projects: [ProjectListing]
    /// The open tasks of `ListTasks` whose due instant had passed when it was read.
    public var dueTasks: [TaskListing]
    /// `ListPresets`.
    public var presets: [PresetListing]
    public init(
        state: WidgetState, projects: [ProjectListing] = [], dueTasks: [TaskListing] = [], presets: [PresetListing] = []
    ) {
        (self.state, self.projects, self.dueTasks) = (state, projects, dueTasks)
        self.presets = presets
    }
}

/// What a click on a row does: one call to the daemon (or the tray's own report and quit).
public enum MenuAction: Sendable, Equatable {
    case toggleWork
    case startProject(String)
    case stopProject
    /// The next (1) or previous (-1) project: the scroll wheel.
    case cycle(Int32)
    /// A method of `org.biomatimer.Focus1`.
    case focus(String, [DBusValue])
    case completeTask(String)
    case snoozeTask(String)
    case report
    case quit
}

/// One row of the menu: its dbusmenu id, properties and children.
public struct MenuRow: Sendable, Equatable {
    public var id: Int32
    public var properties: [String: DBusValue]
    public var children: [MenuRow]
    public var action: MenuAction?

    /// The row as `GetLayout`'s `(ia{sv}av)`, `depth` levels of children (-1: all), with only
    /// `names` among the properties (empty: all).
    public func layout(depth: Int32, names: [String]) -> DBusValue {
        let children: [DBusValue] =
            depth == 0 ? [] : self.children.map { .variant($0.layout(depth: depth < 0 ? -1 : depth - 1, names: names)) }
        return .structure([.int32(id), .vardict(ordered: filtered(names)), .array(.variant, children)])
    }

    /// The properties named (all when `names` is empty), in a stable order.
    public func filtered(_ names: [String]) -> [(String, DBusValue)] {
        properties.filter { names.isEmpty || names.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    func forEach(_ body: (MenuRow) -> Void) {
        body(self)
        for child in children { child.forEach(body) }
    }
}

/// What changed between two menus: a new layout, or some rows' properties.
public enum MenuChange: Sendable, Equatable {
    case none
    /// `LayoutUpdated(revision, 0)`.
    case layout(UInt32)
    /// `ItemsPropertiesUpdated`: the rows' changed properties, and the properties removed.
    case properties(updated: [Int32: [String: DBusValue]], removed: [Int32: [String]])
}

/// The menu at `/MenuBar` as a value: rows, stable ids, the layout revision. `update` makes
/// the menu for new input and says what a host must be told.
public struct TrayMenu: Sendable {
    public private(set) var revision: UInt32 = 1
    public private(set) var root = MenuRow(id: 0, properties: ["children-display": "submenu"], children: [])
    private var rows: [Int32: MenuRow] = [:]
    private var ids: [String: Int32] = [:]
    private var nextID: Int32 = 100
    private var shape: [String] = []
    /// The colour dots' PNGs as D-Bus values, made once per colour.
    private var dots: [RGB: DBusValue] = [:]
    /// `GetLayout`'s answers for this menu, made once until a row changes (a host asks
    /// for the whole tree every time it opens the menu).
    private var layouts: [LayoutQuery: DBusValue] = [:]

    struct LayoutQuery: Hashable {
        var parent: Int32
        var depth: Int32
        var names: [String]
    }

    /// Fixed rows.
    public static let workRow: Int32 = 1
    public static let focusMenu: Int32 = 10
    public static let tasksMenu: Int32 = 20
    public static let reportRow: Int32 = 30
    public static let quitRow: Int32 = 31

    public init() {}

    public func row(_ id: Int32) -> MenuRow? { rows[id] }

    /// Row `id`'s layout (`MenuRow.layout`), made once per state of the menu and kept.
    public mutating func layout(_ id: Int32, depth: Int32, names: [String]) -> DBusValue? {
        let query = LayoutQuery(parent: id, depth: depth, names: names)
        if let made = layouts[query] { return made }
        guard let row = rows[id] else { return nil }
        let made = row.layout(depth: depth, names: names)
        if layouts.count >= 16 { layouts.removeAll() }
        layouts[query] = made
        return made
    }
    /// Every row's id, the root first.
    public var allIDs: [Int32] {
        var out: [Int32] = []
        root.forEach { out.append($0.id) }
        return out
    }

    /// A stable id for a dynamic row: a project keeps its id across renames and revisions.
    private mutating func id(_ key: String) -> Int32 {
        if let id = ids[key] { return id }
        let id = nextID
        nextID += 1
        ids[key] = id
        return id
    }

    /// Rebuilds the menu from `input` at `now`; the change to announce.
    @discardableResult
    public mutating func update(_ input: TrayInput, now: Int64) -> MenuChange {
        var separatorCount: Int32 = 0
        func separator() -> MenuRow {
            separatorCount += 1
            return MenuRow(id: 40 + separatorCount, properties: ["type": "separator"], children: [])
        }
        let state = input.state
        var top: [MenuRow] = []
        var shape: [String] = []

        let work: String
        if !state.online {
            work = "Start work (the daemon is offline)"
        } else {
            work = (state.timer.running ? "Stop work · " : "Start work · ") + TrayText.workTimes(state, now: now)
        }
        top.append(MenuRow(id: Self.workRow, properties: ["label": .string(TrayText.label(work))], children: [], action: .toggleWork))
        top.append(separator())

        if state.online {
            var projectRows: [MenuRow] = []
            for project in input.projects {
                let id = id("project:" + project.id)
                let running = state.timer.activeProject == project.id
                let total = running ? state.liveProjectDailyTotal(at: now) : project.dailyTotal
                let colour = RGB(hex: project.color) ?? .defaultProject
                let dot = dots[colour] ?? .array(.byte, PNG.dot(colour).map { .byte($0) })
                dots[colour] = dot
                var text = TrayText.name(project.name) + " · " + DurationFormat.hms(total)
                if project.budget > 0 {
                    // The running project's use is published with the state and moves with it.
                    let used = running && state.projectBudget > 0 ? state.advanced(to: now).projectBudgetUsed : project.budgetUsed
                    text += " · budget \(DurationClock.hoursMinutes(used))/\(DurationClock.hoursMinutes(project.budget))"
                }
                let label = TrayText.label(text)
                projectRows.append(
                    MenuRow(
                        id: id,
                        properties: [
                            "label": .string(label), "toggle-type": "radio", "toggle-state": .int32(running ? 1 : 0),
                            "icon-data": dot,
                        ], children: [], action: running ? .stopProject : .startProject(project.id)))
                shape.append("project:\(project.id):\(project.name):\(project.color):\(project.client)")
            }
            top += groupedByClient(input.projects, projectRows, shape: &shape)
            if !input.projects.isEmpty { top.append(separator()) }

            top.append(focusMenu(state, presets: input.presets, now: now, shape: &shape))
            if !input.dueTasks.isEmpty {
                var tasks: [MenuRow] = []
                for task in input.dueTasks {
                    let done = id("task-done:" + task.id)
                    let snooze = id("task-snooze:" + task.id)
                    let when = task.due > 0 ? "  " + TrayText.clock(task.due) : ""
                    tasks.append(
                        MenuRow(
                            id: id("task:" + task.id),
                            properties: ["label": .string(TrayText.label("⚑ " + TrayText.name(task.title) + when)), "children-display": "submenu"],
                            children: [
                                MenuRow(id: done, properties: ["label": "Done"], children: [], action: .completeTask(task.id)),
                                MenuRow(id: snooze, properties: ["label": "Snooze 10 min"], children: [], action: .snoozeTask(task.id)),
                            ]))
                    shape.append("task:\(task.id):\(task.title):\(task.due)")
                }
                top.append(
                    MenuRow(
                        id: Self.tasksMenu,
                        properties: ["label": .string("Tasks due (\(input.dueTasks.count))"), "children-display": "submenu"],
                        children: tasks))
            }
            top.append(separator())
            top.append(MenuRow(id: Self.reportRow, properties: ["label": "Report of today…"], children: [], action: .report))
        }
        top.append(MenuRow(id: Self.quitRow, properties: ["label": "Quit the tray"], children: [], action: .quit))

        let newRoot = MenuRow(id: 0, properties: ["children-display": "submenu"], children: top)
        var newRows: [Int32: MenuRow] = [:]
        newRoot.forEach { newRows[$0.id] = $0 }
        var structure: [String] = []
        newRoot.forEach { row in structure.append("\(row.id):\(row.children.map(\.id))") }
        shape += structure

        let old = rows
        let oldShape = self.shape
        if newRows != old { layouts.removeAll() }
        root = newRoot
        rows = newRows
        self.shape = shape
        if old.isEmpty || shape != oldShape {
            revision &+= 1
            return .layout(revision)
        }
        var updated: [Int32: [String: DBusValue]] = [:]
        var removed: [Int32: [String]] = [:]
        for (id, row) in newRows {
            let before = old[id]?.properties ?? [:]
            let changed = row.properties.filter { before[$0.key] != $0.value }
            if !changed.isEmpty { updated[id] = changed }
            let gone = before.keys.filter { row.properties[$0] == nil }.sorted()
            if !gone.isEmpty { removed[id] = gone }
        }
        if updated.isEmpty && removed.isEmpty { return .none }
        return .properties(updated: updated, removed: removed)
    }

    private mutating func focusMenu(_ state: WidgetState, presets: [PresetListing], now: Int64, shape: inout [String]) -> MenuRow {
        let focus = state.focus
        var children: [MenuRow] = []
        var label = "Focus"
        if focus.isActive {
            label = "Focus · " + (TrayText.focus(focus, now: now) ?? "")
            switch focus.state {
            case .running:
                children.append(MenuRow(id: 11, properties: ["label": "Pause"], children: [], action: .focus(BIOMATIMER_FOCUS1_PAUSE, [])))
            case .paused:
                children.append(MenuRow(id: 12, properties: ["label": "Resume"], children: [], action: .focus(BIOMATIMER_FOCUS1_RESUME, [])))
            case .waiting:
                children.append(MenuRow(id: 13, properties: ["label": "Start the next phase"], children: [], action: .focus(BIOMATIMER_FOCUS1_CONFIRM, [])))
            default: break
            }
            if focus.state != .done {
                children.append(MenuRow(id: 14, properties: ["label": "Skip"], children: [], action: .focus(BIOMATIMER_FOCUS1_SKIP, [])))
            }
            children.append(MenuRow(id: 15, properties: ["label": "Stop"], children: [], action: .focus(BIOMATIMER_FOCUS1_STOP_FOCUS, [])))
        } else {
            let none = DBusValue.vardict([:])
            children.append(MenuRow(id: 16, properties: ["label": "Pomodoro"], children: [], action: .focus(BIOMATIMER_FOCUS1_START_POMODORO, [none])))
            children.append(
                MenuRow(
                    id: 17, properties: ["label": "Countdown 5 min"], children: [],
                    action: .focus(BIOMATIMER_FOCUS1_START_COUNTDOWN, [.int64(300_000_000), none])))
            for preset in presets {
                children.append(
                    MenuRow(
                        id: id("preset:" + preset.id), properties: ["label": .string(TrayText.label("Preset: " + TrayText.name(preset.name)))],
                        children: [], action: .focus(BIOMATIMER_FOCUS1_START_PRESET, [.string(preset.id)])))
                shape.append("preset:\(preset.id):\(preset.name)")
            }
        }
        return MenuRow(id: Self.focusMenu, properties: ["label": .string(TrayText.label(label)), "children-display": "submenu"], children: children)
    }

    /// More projects than fit on a screen: those with a client go in a submenu per client (in
    /// the order their clients first come), those without one stay in the menu itself.
    public static let screenful = 20

    private mutating func groupedByClient(_ projects: [ProjectListing], _ rows: [MenuRow], shape: inout [String]) -> [MenuRow] {
        guard projects.count > Self.screenful, projects.contains(where: { !$0.client.isEmpty }) else { return rows }
        var order: [String] = []
        for project in projects where !project.client.isEmpty && !order.contains(project.client) { order.append(project.client) }
        var grouped: [MenuRow] = []
        for client in order {
            let members = zip(projects, rows).filter { $0.0.client == client }
            let name = members.first?.0.clientName ?? client
            shape.append("client:\(client):\(name)")
            grouped.append(
                MenuRow(
                    id: id("client:" + client),
                    properties: ["label": .string(TrayText.label(TrayText.name(name) + " (\(members.count))")), "children-display": "submenu"],
                    children: members.map(\.1)))
        }
        return grouped + zip(projects, rows).filter { $0.0.client.isEmpty }.map(\.1)
    }
}
