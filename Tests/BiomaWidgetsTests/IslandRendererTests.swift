import BiomaWidgets
import Testing

@Suite struct IslandRendererTests {
    let island = IslandRenderer()
    let ascii = IslandRenderer(options: RenderOptions(ascii: true))

    @Test func everyPhaseHasItsMark() {
        #expect(island.render(Fixture.project(), now: Fixture.now) == "● 0:05:30 (2:45:15) · Client A")
        #expect(island.render(Fixture.running, now: Fixture.now) == "▶ 0:05:30 (2:45:15)")
        #expect(island.render(Fixture.paused, now: Fixture.now) == "‖ 0:05:30 (2:45:15)")
        #expect(island.render(Fixture.idle, now: Fixture.now) == "○ 0:00:00 (2:45:15)")
        #expect(island.render(Fixture.offline, now: Fixture.now) == "⊘ offline")
    }

    @Test func asciiMarks() {
        #expect(ascii.render(Fixture.project(), now: Fixture.now) == "* 0:05:30 (2:45:15) - Client A")
        #expect(ascii.render(Fixture.running, now: Fixture.now) == "> 0:05:30 (2:45:15)")
        #expect(ascii.render(Fixture.paused, now: Fixture.now) == "|| 0:05:30 (2:45:15)")
        #expect(ascii.render(Fixture.idle, now: Fixture.now) == "o 0:00:00 (2:45:15)")
        #expect(ascii.render(Fixture.offline, now: Fixture.now) == "x offline")
    }

    @Test func longNamesAreShortenedWithAnEllipsis() {
        #expect(
            island.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == "● 0:05:30 (2:45:15) · A very long project nam…")
        #expect(
            ascii.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == "* 0:05:30 (2:45:15) - A very long project n...")
        let wide = IslandRenderer(options: RenderOptions(maxNameWidth: nil))
        #expect(
            wide.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == "● 0:05:30 (2:45:15) · A very long project name that goes on and on")
        let narrow = IslandRenderer(options: RenderOptions(maxNameWidth: 8))
        // Trailing space before the ellipsis is dropped: "A very " → "A very…".
        #expect(narrow.render(Fixture.project(Fixture.longName), now: Fixture.now) == "● 0:05:30 (2:45:15) · A very…")
    }

    @Test func hostileNameIsPlainText() {
        let unlimited = IslandRenderer(options: RenderOptions(maxNameWidth: nil))
        #expect(
            unlimited.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
                == ##"● 0:05:30 (2:45:15) · R&D <b>"x"</b> %{F#f00} #[fg=red]"##)
        #expect(
            island.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
                == ##"● 0:05:30 (2:45:15) · R&D <b>"x"</b> %{F#f00}…"##)
    }

    @Test func projectWithoutNameShowsItsId() {
        #expect(island.render(Fixture.project("", id: "p7"), now: Fixture.now) == "● 0:05:30 (2:45:15) · p7")
    }

    @Test func hoursAreUnbounded() {
        var state = Fixture.running
        state.sessionTime = 93_660_000_000  // 26:01:00
        state.dailyTotal = 93_660_000_000
        #expect(island.render(state, now: Fixture.t0) == "▶ 26:01:00 (26:01:00)")
    }
}
