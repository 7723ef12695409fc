import BiomaText
import BiomaWidgets
import Testing

@Suite struct BarClickTests {
    @Test func i3blocksClickObjects() {
        let left = BarClick(
            i3blocksLine:
                ##"{"name":"biomatimer","instance":"","button":1,"modifiers":[],"x":1710,"y":1068,"relative_x":42,"relative_y":9,"output_x":1710,"output_y":1068,"width":180,"height":22}"##
        )
        #expect(left == BarClick(button: 1, name: "biomatimer", instance: ""))
        #expect(left?.action == .toggle)
        #expect(BarClick(i3blocksLine: ##"{"button":3}"##)?.action == .nextProject)
        #expect(BarClick(i3blocksLine: ##"{"button":4}"##)?.action == .previousProject)
        #expect(BarClick(i3blocksLine: ##"{"button":5}"##)?.action == .nextProject)
        // Middle click pauses or resumes the focus timer; side buttons mean nothing.
        #expect(BarClick(i3blocksLine: ##"{"button":2}"##) == BarClick(button: 2))
        #expect(BarClick(i3blocksLine: ##"{"button":2}"##)?.action == .toggleFocus)
        #expect(BarClick(i3blocksLine: ##"{"button":8}"##)?.action == nil)
        #expect(WidgetAction.toggleFocus.cycleStep == nil)
    }

    /// What i3blocks 1.5 writes for a `format=json` persistent block: the leading
    /// `"":""`, the block's own properties (our text included), then the click.
    @Test func i3blocks15Line() {
        let line = ##"{"":"","name":"biomatimer","instance":"","full_text":"● 0:05:30 (2:45:15) · R&amp;D &lt;b&gt;","short_text":"● 0:05:30","color":"#007aff","markup":"pango","command":"biomatimer watch --format i3blocks","interval":"persist","format":"json","button":3,"modifiers":[],"x":1710,"y":1068,"relative_x":42,"relative_y":9,"output_x":1710,"output_y":1068,"width":180,"height":22}"##
        #expect(BarClick(i3blocksLine: line) == BarClick(button: 3, name: "biomatimer", instance: ""))
        #expect(BarClick(i3blocksLine: line)?.action == .nextProject)
    }

    @Test func valuesThatLookLikeJSONArriveUnquoted() {
        #expect(BarClick(i3blocksLine: ##"{"name":42,"button":"1"}"##) == BarClick(button: 1, name: "42"))
    }

    @Test func onlyI3blocks15GivesTheBlockItsOwnStdin() {
        #expect(I3blocksClicks.stdinCarriesClicks(environment: ["BLOCK_INTERVAL": "persist", "BLOCK_NAME": "biomatimer"]))
        // i3blocks 1.4 exports only BLOCK_NAME, BLOCK_INSTANCE, BLOCK_BUTTON, BLOCK_X, BLOCK_Y.
        #expect(!I3blocksClicks.stdinCarriesClicks(environment: ["BLOCK_NAME": "biomatimer", "BLOCK_BUTTON": ""]))
        #expect(!I3blocksClicks.stdinCarriesClicks(environment: ["BLOCK_INTERVAL": "5"]))
        #expect(!I3blocksClicks.stdinCarriesClicks(environment: [:]))
    }

    @Test func bareButtonNumbers() {
        #expect(BarClick(i3blocksLine: "1\n")?.action == .toggle)
        #expect(BarClick(i3blocksLine: " 4 ")?.action == .previousProject)
    }

    @Test(arguments: ["", "  \n", "{", "not json", ##"{"name":"x"}"##, ##"{"button":true}"##, ##"{"button":"left"}"##, "[1]"])
    func malformedLinesAreSkipped(line: String) {
        #expect(BarClick(i3blocksLine: line) == nil)
    }

    @Test func cycleSteps() {
        #expect(WidgetAction.toggle.cycleStep == nil)
        #expect(WidgetAction.nextProject.cycleStep == 1)
        #expect(WidgetAction.previousProject.cycleStep == -1)
    }
}

@Suite struct LineSafetyTests {
    static let nasty = "Client\nA\r\u{1B}[31m\u{85}x\u{2028}y\tz"

    /// No field can end a line of a line-based protocol, in any format.
    @Test func controlCharactersNeverBreakALine() {
        for options in [RenderOptions(), RenderOptions(ascii: true, maxNameWidth: nil)] {
            for (name, renderer) in Fixture.renderers(options) {
                var state = Fixture.project(Self.nasty, id: "id\nwith\nlines", color: "#00ff00\n")
                state.day = "2026-11-22\n"
                let line = renderer.render(state, now: Fixture.now)
                let breaking = line.unicodeScalars.filter {
                    $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
                }
                #expect(breaking.isEmpty, "\(name): \(line.debugDescription)")
            }
        }
    }

    @Test func islandShowsControlCharactersAsSpaces() {
        let island = IslandRenderer(options: RenderOptions(maxNameWidth: nil))
        #expect(island.render(Fixture.project(Self.nasty), now: Fixture.now) == "● 0:05:30 (2:45:15) · Client A  [31m x y z")
    }

    @Test func jsonKeepsTheExactNameEscaped() {
        let line = JSONStateRenderer().render(Fixture.project(Self.nasty), now: Fixture.now)
        #expect(line.contains(##""active_project_name":"Client\nA\r\u001b[31m\u0085x\u2028y\tz""##))
    }

    @Test func pangoEscapesScalarsNotCharacters() {
        // `&` + COMBINING ACUTE is one Character but still a bare `&` to GMarkup.
        #expect(TextEscaping.pango("&\u{301}<\u{301}") == "&amp;\u{301}&lt;\u{301}")
        #expect(TextEscaping.tmux("#\u{301}") == "##\u{301}")
    }

    @Test func colours() {
        #expect(ProjectColor.normalized("#007AFF") == "#007aff")
        #expect(ProjectColor.normalized("#007aff") == "#007aff")
        #expect(ProjectColor.normalized("007AFF") == nil)
        #expect(ProjectColor.normalized("#07F") == nil)
        #expect(ProjectColor.normalized("#00GGFF") == nil)
        #expect(ProjectColor.normalized("") == nil)
    }

    @Test func wideCharactersTakeTwoColumns() {
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.truncate("日本語日本語日本語", to: 10, ellipsis: "…") == "日本語日…")
        #expect(DisplayWidth.truncate("short", to: 10, ellipsis: "…") == "short")
        #expect(DisplayWidth.truncate("exactly10!", to: 10, ellipsis: "…") == "exactly10!")
        #expect(DisplayWidth.truncate("exactly11!!", to: 10, ellipsis: "…") == "exactly11…")
    }
}
