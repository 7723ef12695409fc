@testable import BiomaTray
import BiomaWidgets
import DBusCore
import Testing
import BiomaContract

/// The menu as a value: rows, labels, stable ids, the revision, what a change announces.
@Suite struct TrayMenuTests {
    static let now = TrayIconTests.now

    static func input(active: String = "p1", names: [String] = ["Client A", "R&D", "Errands"]) -> TrayInput {
        var state = WidgetState(running: true, updatedAt: now, sessionTime: 330_000_000, dailyTotal: 9_915_000_000)
        if !active.isEmpty {
            state.timer.activeProject = active
            state.timer.activeProjectName = names[0]
            state.timer.activeProjectColor = "#ff0000"
            state.timer.projectDailyTotal = 5_445_000_000
        }
        let projects = names.enumerated().map { i, name in
            var project = ProjectListing()
            (project.id, project.name, project.position) = ("p\(i + 1)", name, UInt32(i))
            (project.color, project.dailyTotal) = (["#ff0000", "#00ff00", "#0000ff"][i % 3], Int64(i) * 60_000_000)
            return project
        }
        return TrayInput(state: state, projects: projects)
    }

    static func task(_ id: String, _ title: String, due: Int64) -> TaskListing {
        var task = TaskListing()
        (task.id, task.title, task.due, task.remind) = (id, title, due, true)
        return task
    }

    static func label(_ menu: TrayMenu, _ id: Int32) -> String? { menu.row(id)?.properties["label"]?.string }

    @Test func rowsOfTheMainScreen() throws {
        var menu = TrayMenu()
        #expect(menu.update(Self.input(), now: Self.now) == .layout(2))
        let top = menu.root.children
        #expect(Self.label(menu, TrayMenu.workRow) == "Stop work · 0:05:30 (2:45:15)")
        let projects = top.filter { $0.properties["toggle-type"] == "radio" }
        #expect(projects.map { $0.properties["label"]?.string } == ["Client A · 1:30:45", "R&D · 0:01:00", "Errands · 0:02:00"])
        #expect(projects.map { $0.properties["toggle-state"] } == [.int32(1), .int32(0), .int32(0)])
        #expect(projects.map(\.action) == [.stopProject, .startProject("p2"), .startProject("p3")])
        // Each dot is a PNG.
        for row in projects {
            let bytes = row.properties["icon-data"]?.array?.compactMap { v -> UInt8? in if case .byte(let b) = v { b } else { nil } }
            #expect(bytes?.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        }
        #expect(top.first?.action == .toggleWork)
        #expect(top.suffix(2).map(\.action) == [.report, .quit])
        #expect(menu.row(TrayMenu.focusMenu)?.children.map { $0.properties["label"]?.string } == ["Pomodoro", "Countdown 5 min"])
        #expect(menu.row(TrayMenu.tasksMenu) == nil)
    }

    @Test func aProjectWithABudgetShowsItsUseMovingWhileItRuns() {
        var input = Self.input()
        input.projects[0].budget = 20 * 3_600_000_000
        input.projects[0].budgetUsed = 11 * 3_600_000_000  // as listed a while ago
        input.state.timer.projectBudget = 20 * 3_600_000_000
        input.state.timer.projectBudgetUsed = 12 * 3_600_000_000  // as published at `now`
        input.projects[2].budget = 3_600_000_000
        input.projects[2].budgetUsed = 30 * 60_000_000
        var menu = TrayMenu()
        menu.update(input, now: Self.now)
        let labels = menu.root.children.filter { $0.properties["toggle-type"] == "radio" }.map { $0.properties["label"]?.string }
        #expect(labels == ["Client A · 1:30:45 · budget 12:00/20:00", "R&D · 0:01:00", "Errands · 0:02:00 · budget 0:30/1:00"])
        // Ten minutes on, the running project's use has moved with it; the others have not.
        menu.update(input, now: Self.now + 600_000_000)
        let later = menu.root.children.filter { $0.properties["toggle-type"] == "radio" }.map { $0.properties["label"]?.string }
        #expect(later.first == "Client A · 1:40:45 · budget 12:10/20:00")
        #expect(later.last == "Errands · 0:02:00 · budget 0:30/1:00")
    }

    @Test func layoutValueHasTheWireShape() {
        var menu = TrayMenu()
        menu.update(Self.input(), now: Self.now)
        let all = menu.root.layout(depth: -1, names: [])
        #expect(all.signature == "(ia{sv}av)")
        #expect(all.fields?[2].array?.count == menu.root.children.count)
        let flat = menu.root.layout(depth: 0, names: [])
        #expect(flat.fields?[2].array?.isEmpty == true)
        let labelsOnly = menu.row(TrayMenu.workRow)!.layout(depth: -1, names: ["label"])
        #expect(labelsOnly.fields?[1].vardict?.keys.sorted() == ["label"])
    }

    @Test func hostileNamesAreShownLiterallyAndCut() {
        let long = String(repeating: "x", count: 500)
        let rtl = "שלום עולם"
        var menu = TrayMenu()
        menu.update(Self.input(active: "", names: ["<b>Bold</b> & _Co_", long, rtl]), now: Self.now)
        let labels = menu.root.children.filter { $0.properties["toggle-type"] == "radio" }.compactMap { $0.properties["label"]?.string }
        #expect(labels[0] == "<b>Bold</b> & __Co__ · 0:00:00")
        #expect(labels[1] == String(repeating: "x", count: 39) + "… · 0:01:00")
        #expect(labels[2] == "\u{2068}\(rtl)\u{2069} · 0:02:00")
        #expect(TrayText.name("a\nb\u{1B}[31m") == "a b [31m")
    }

    @Test func revisionChangesOnlyWithTheLayout() throws {
        var menu = TrayMenu()
        menu.update(Self.input(), now: Self.now)
        let first = menu.revision
        let ids = menu.allIDs
        // A second later: only the moving labels change, no new revision.
        let change = menu.update(Self.input(), now: Self.now + 1_000_000)
        guard case .properties(let updated, let removed) = change else {
            Issue.record("expected a property change, got \(change)")
            return
        }
        #expect(menu.revision == first)
        #expect(removed.isEmpty)
        #expect(Set(updated.keys) == [TrayMenu.workRow, menu.root.children[2].id])
        #expect(updated[TrayMenu.workRow]?["label"]?.string == "Stop work · 0:05:31 (2:45:16)")
        // Nothing changed: nothing to announce.
        #expect(menu.update(Self.input(), now: Self.now + 1_000_000) == .none)
        // Another project runs: toggle states change, still the same layout.
        guard case .properties(let switched, _) = menu.update(Self.input(active: "p2"), now: Self.now + 1_000_000) else {
            Issue.record("expected a property change")
            return
        }
        #expect(switched.values.contains { $0["toggle-state"] == .int32(1) })
        // A project renamed or added: a new layout, and ids of kept projects stay.
        #expect(menu.update(Self.input(names: ["Client B", "R&D", "Errands"]), now: Self.now) == .layout(first + 1))
        #expect(menu.allIDs == ids)
        #expect(menu.update(Self.input(names: ["Client B", "R&D", "Errands", "New"]), now: Self.now) == .layout(first + 2))
        #expect(menu.allIDs.count == ids.count + 1)
    }

    /// GetLayout's answers are kept, but never past a change: a changed label or a new row is
    /// in the next answer, with the same revision when only properties changed.
    @Test func keptLayoutsFollowEveryChange() {
        var menu = TrayMenu()
        menu.update(Self.input(), now: Self.now)
        let before = menu.layout(0, depth: -1, names: [])
        #expect(before == menu.root.layout(depth: -1, names: []))
        #expect(menu.layout(0, depth: -1, names: []) == before)
        #expect(menu.layout(999, depth: -1, names: []) == nil)
        // A second later: the moving labels, same revision, a new answer.
        menu.update(Self.input(), now: Self.now + 1_000_000)
        let later = menu.layout(0, depth: -1, names: [])
        #expect(later != before)
        #expect(later == menu.root.layout(depth: -1, names: []))
        // Another property list or depth is another answer.
        #expect(menu.layout(0, depth: 0, names: ["label"]) == menu.root.layout(depth: 0, names: ["label"]))
        #expect(menu.layout(TrayMenu.workRow, depth: -1, names: []) == menu.row(TrayMenu.workRow)?.layout(depth: -1, names: []))
        // A new project: the new row is in the answer.
        menu.update(Self.input(names: ["Client A", "R&D", "Errands", "New"]), now: Self.now + 1_000_000)
        #expect(menu.layout(0, depth: -1, names: []) == menu.root.layout(depth: -1, names: []))
        #expect(menu.layout(0, depth: -1, names: []) != later)
    }

    @Test func focusAndTasksSubmenus() {
        var input = Self.input()
        input.state.focus.state = .running
        input.state.focus.kind = "pomodoro"
        input.state.focus.phase = "work"
        input.state.focus.round = 2
        input.state.focus.rounds = 4
        input.state.focus.phaseDuration = 1_500_000_000
        input.state.focus.phaseEndsAt = Self.now + 720_000_000
        input.dueTasks = [Self.task("t1", "Call_the bank", due: Self.now - 60_000_000)]
        var menu = TrayMenu()
        menu.update(input, now: Self.now)
        #expect(Self.label(menu, TrayMenu.focusMenu) == "Focus · Work 2/4 · 12:00 left")
        #expect(menu.row(TrayMenu.focusMenu)?.children.map(\.action) == [.focus("Pause", []), .focus("Skip", []), .focus("StopFocus", [])])
        let tasks = menu.row(TrayMenu.tasksMenu)
        #expect(tasks?.properties["label"] == "Tasks due (1)")
        let task = tasks?.children.first
        #expect(task?.properties["label"]?.string?.hasPrefix("⚑ Call__the bank  ") == true)
        #expect(task?.children.map(\.action) == [.completeTask("t1"), .snoozeTask("t1")])
    }

    @Test func tooltipEscapesMarkup() {
        var input = Self.input(names: ["<i>A&B</i>", "x", "y"])
        input.state.tasks.dueTasks = 1
        let tip = TrayText.tooltip(input.state, dueTasks: [Self.task("t", "Pay <rent>", due: 1)], now: Self.now)
        #expect(tip.title == "0:05:30 (2:45:15) · &lt;i&gt;A&amp;B&lt;/i&gt;")
        #expect(tip.description == "Due: Pay &lt;rent&gt;")
        #expect(TrayText.tooltip(.offline, dueTasks: [], now: Self.now).title == "biomatimer")
    }

    @Test func offlineMenuOffersStartAndQuit() {
        var menu = TrayMenu()
        menu.update(TrayInput(state: .offline), now: Self.now)
        #expect(menu.root.children.map(\.action) == [.toggleWork, nil, .quit])
    }
}
