import BiomaWidgets
import Testing

@Suite struct TemplateRendererTests {
    @Test func theIssueExample() throws {
        let template = try TemplateRenderer(template: "{session} ({daily}) {project}")
        #expect(template.render(Fixture.project(), now: Fixture.now) == "0:05:30 (2:45:15) Client A")
        #expect(template.render(Fixture.idle, now: Fixture.now) == "0:00:00 (2:45:15) ")
    }

    @Test func everyField() throws {
        let all = TemplateField.allCases.map { "\($0.rawValue)={\($0.rawValue)}" }.joined(separator: "|")
        let template = try TemplateRenderer(template: all)
        #expect(
            template.render(Fixture.project(), now: Fixture.now)
                == "session=0:05:30|daily=2:45:15|project=Client A|project_id=p1|color=#007aff|"
                + "project_session=0:02:15|project_daily=1:30:45|percentage=54|day=2026-11-22|"
                + "state=running|mark=●|due_tasks=0|open_tasks=0"
                + "|focus=|focus_mark=|focus_state=off|focus_kind=|focus_phase=|focus_phase_name=|focus_remaining=|focus_round=|focus_rounds=|focus_round_text=|focus_label=|focus_progress=0|focus_completed=0|target=|target_progress=|balance=+0:00|project_budget=|client=")
        #expect(
            template.render(Fixture.offline, now: Fixture.now)
                == "session=0:00:00|daily=0:00:00|project=|project_id=|color=|"
                + "project_session=0:00:00|project_daily=0:00:00|percentage=0|day=|state=offline|mark=⊘|"
                + "due_tasks=0|open_tasks=0"
                + "|focus=|focus_mark=|focus_state=off|focus_kind=|focus_phase=|focus_phase_name=|focus_remaining=|focus_round=|focus_rounds=|focus_round_text=|focus_label=|focus_progress=0|focus_completed=0|target=|target_progress=|balance=|project_budget=|client=")
    }

    @Test func bracesEscapeByDoubling() throws {
        let template = try TemplateRenderer(template: "{{state}} {state} }}")
        #expect(template.render(Fixture.paused, now: Fixture.now) == "{state} paused }")
    }

    @Test func asciiAndNameWidthApply() throws {
        let template = try TemplateRenderer(
            template: "{mark} {project}", options: RenderOptions(ascii: true, maxNameWidth: 10))
        #expect(template.render(Fixture.project(Fixture.longName), now: Fixture.now) == "* A very...")
    }

    @Test func outputIsOneLineEvenWithNewlinesInTheTemplate() throws {
        let template = try TemplateRenderer(template: "{session}\n{daily}\r")
        #expect(template.render(Fixture.running, now: Fixture.now) == "0:05:30 2:45:15 ")
    }

    @Test(arguments: [
        ("{nope}", WidgetFormatError.unknownField("nope")),
        ("{session} {Session}", .unknownField("Session")),
        ("{session", .unclosedField(at: 0)),
        ("ab {", .unclosedField(at: 3)),
        ("a}b", .unmatchedClosingBrace(at: 1)),
        ("{}", .emptyField(at: 0)),
    ])
    func parseErrors(template: String, error: WidgetFormatError) {
        #expect(throws: error) { try TemplateRenderer(template: template) }
    }

    @Test func errorsSayWhatToDo() {
        #expect(
            WidgetFormatError.unknownField("nope").description
                == "unknown field {nope} in the format template; fields are {session} {daily} {project} "
                + "{project_id} {color} {project_session} {project_daily} {percentage} {day} {state} {mark} "
                + "{due_tasks} {open_tasks} {focus} {focus_mark} {focus_state} {focus_kind} {focus_phase} "
                + "{focus_phase_name} {focus_remaining} {focus_round} {focus_rounds} {focus_round_text} {focus_label} "
                + "{focus_progress} {focus_completed} {target} {target_progress} {balance} {project_budget} {client}")
        #expect(
            WidgetFormatError.unmatchedClosingBrace(at: 1).description
                == "the format template has a } at character 2 that closes nothing (write }} for a literal })")
    }
}

@Suite struct WidgetFormatsTests {
    @Test func namesInOrder() {
        #expect(WidgetFormats.names == ["island", "waybar", "i3blocks", "polybar", "tmux", "json"])
    }

    @Test func namedFormatsGiveTheirRenderer() throws {
        let options = RenderOptions(ascii: true, maxNameWidth: 5)
        #expect(try WidgetFormats.renderer(for: "island", options: options) as? IslandRenderer == IslandRenderer(options: options))
        #expect(try WidgetFormats.renderer(for: "waybar") is WaybarRenderer)
        #expect(try WidgetFormats.renderer(for: "i3blocks") is I3blocksRenderer)
        #expect(try WidgetFormats.renderer(for: "polybar") is PolybarRenderer)
        #expect(try WidgetFormats.renderer(for: "tmux") is TmuxRenderer)
        #expect(try WidgetFormats.renderer(for: "json") is JSONStateRenderer)
    }

    @Test func bracesMakeATemplate() throws {
        let renderer = try WidgetFormats.renderer(for: "{state}")
        #expect(renderer.render(Fixture.idle, now: Fixture.now) == "idle")
        #expect(throws: WidgetFormatError.unknownField("x")) { try WidgetFormats.renderer(for: "{x}") }
    }

    @Test func unknownNameIsAClearError() {
        #expect(throws: WidgetFormatError.unknownFormat("lemonbar")) {
            try WidgetFormats.renderer(for: "lemonbar")
        }
        #expect(
            WidgetFormatError.unknownFormat("lemonbar").description
                == "unknown format \"lemonbar\": use one of island, waybar, i3blocks, polybar, tmux, json, "
                + "or a template such as '{session} ({daily}) {project}'")
    }
}
