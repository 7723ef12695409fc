import BiomaWidgets
import Testing
import BiomaContract

/// Tasks that are due show where they fit: a mark on the island line (and so in every bar's
/// text), a waybar class and tooltip line, template fields and JSON keys; nothing at all when
/// none is due, and nothing offline.
@Suite struct DueTasksRendererTests {
    static func withTasks(_ state: WidgetState, due: UInt32, open: UInt32) -> WidgetState {
        var state = state
        state.tasks.dueTasks = due
        state.tasks.openTasks = open
        return state
    }

    @Test func theIslandLineEndsWithTheCount() throws {
        let island = IslandRenderer()
        #expect(island.render(Self.withTasks(Fixture.project(), due: 2, open: 5), now: Fixture.now)
            == "● 0:05:30 (2:45:15) · Client A ⚑2")
        #expect(island.render(Self.withTasks(Fixture.idle, due: 1, open: 1), now: Fixture.now) == "○ 0:00:00 (2:45:15) ⚑1")
        #expect(IslandRenderer(options: RenderOptions(ascii: true)).render(Self.withTasks(Fixture.running, due: 3, open: 3), now: Fixture.now)
            == "> 0:05:30 (2:45:15) !3")
        // None due: the line is as it always was; offline: no count.
        #expect(island.render(Self.withTasks(Fixture.running, due: 0, open: 4), now: Fixture.now) == "▶ 0:05:30 (2:45:15)")
        #expect(island.render(Self.withTasks(Fixture.offline, due: 2, open: 2), now: Fixture.now) == "⊘ offline")
    }

    @Test func waybarGetsAClassAndATooltipLine() throws {
        let line = WaybarRenderer().render(Self.withTasks(Fixture.running, due: 2, open: 5), now: Fixture.now)
        #expect(
            line
                == ##"{"text":"▶ 0:05:30 (2:45:15) ⚑2","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nNo project running\nTasks due: 2 of 5 open","class":["running","tasks-due"],"percentage":0}"##
        )
    }

    @Test func templatesAndJSONCarryTheCounts() throws {
        let state = Self.withTasks(Fixture.paused, due: 1, open: 4)
        #expect(try TemplateRenderer(template: "{due_tasks}/{open_tasks}").render(state, now: Fixture.now) == "1/4")
        #expect(JSONStateRenderer().render(state, now: Fixture.now).hasSuffix(#","open_tasks":4,"due_tasks":1}"#))
        #expect(TmuxRenderer().render(state, now: Fixture.now).contains("⚑1"))
        #expect(PolybarRenderer().render(state, now: Fixture.now).contains("⚑1"))
    }

    /// The bars decode Tasks1's signals with its property table, and ignore other interfaces.
    @Test func signalsOfTheTasksInterfaceReachTheState() {
        var state = Fixture.running
        state.apply(["DueTasks": .uint32(2), "OpenTasks": .uint32(3)], interface: ContractNames.tasksInterface)
        #expect(state.tasks.dueTasks == 2 && state.tasks.openTasks == 3)
        state.apply(["DueTasks": .uint32(9)], interface: "org.example.Other")
        #expect(state.tasks.dueTasks == 2)
    }
}
