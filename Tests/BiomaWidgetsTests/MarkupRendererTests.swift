import Foundation
import BiomaWidgets
import Testing

@Suite struct WaybarRendererTests {
    let waybar = WaybarRenderer()

    @Test func runningWithProject() {
        #expect(
            waybar.render(Fixture.project(), now: Fixture.now)
                == ##"{"text":"● 0:05:30 (2:45:15) · <span foreground=\"#007aff\">Client A</span>","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nClient A: 0:02:15 session, 1:30:45 today","class":["running","project"],"percentage":54}"##
        )
    }

    @Test func runningPausedIdleOffline() {
        #expect(
            waybar.render(Fixture.running, now: Fixture.now)
                == ##"{"text":"▶ 0:05:30 (2:45:15)","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nNo project running","class":["running"],"percentage":0}"##
        )
        #expect(
            waybar.render(Fixture.paused, now: Fixture.now)
                == ##"{"text":"‖ 0:05:30 (2:45:15)","alt":"paused","tooltip":"Work: 0:05:30 session, 2:45:15 today\nNo project running","class":["paused"],"percentage":0}"##
        )
        #expect(
            waybar.render(Fixture.idle, now: Fixture.now)
                == ##"{"text":"○ 0:00:00 (2:45:15)","alt":"idle","tooltip":"Work: 0:00:00 session, 2:45:15 today\nNo project running","class":["idle"],"percentage":0}"##
        )
        #expect(
            waybar.render(Fixture.offline, now: Fixture.now)
                == ##"{"text":"⊘ offline","alt":"offline","tooltip":"biomatimer: the daemon is not running","class":["offline"],"percentage":0}"##
        )
    }

    @Test func hostileNameIsEscapedForPangoThenJSON() {
        let unlimited = WaybarRenderer(options: RenderOptions(maxNameWidth: nil))
        #expect(
            unlimited.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
                == ##"{"text":"● 0:05:30 (2:45:15) · <span foreground=\"#007aff\">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]</span>","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nR&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]: 0:02:15 session, 1:30:45 today","class":["running","project"],"percentage":54}"##
        )
    }

    @Test func longNameAndAsciiMarkEscaped() {
        let ascii = WaybarRenderer(options: RenderOptions(ascii: true))
        // The ASCII running mark `>` is markup to Pango too.
        #expect(
            ascii.render(Fixture.running, now: Fixture.now)
                == ##"{"text":"&gt; 0:05:30 (2:45:15)","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nNo project running","class":["running"],"percentage":0}"##
        )
        #expect(
            waybar.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == ##"{"text":"● 0:05:30 (2:45:15) · <span foreground=\"#007aff\">A very long project nam…</span>","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nA very long project name that goes on and on: 0:02:15 session, 1:30:45 today","class":["running","project"],"percentage":54}"##
        )
    }

    @Test func hostileNameShortenedInTextButFullInTooltip() {
        #expect(
            waybar.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
                == ##"{"text":"● 0:05:30 (2:45:15) · <span foreground=\"#007aff\">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…</span>","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nR&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]: 0:02:15 session, 1:30:45 today","class":["running","project"],"percentage":54}"##
        )
    }

    @Test func invalidColourIsDroppedNotPassedOn() {
        let state = Fixture.project("Client A", color: "red\" weight=\"bold")
        #expect(
            waybar.render(state, now: Fixture.now)
                == ##"{"text":"● 0:05:30 (2:45:15) · Client A","alt":"running","tooltip":"Work: 0:05:30 session, 2:45:15 today\nClient A: 0:02:15 session, 1:30:45 today","class":["running","project"],"percentage":54}"##
        )
    }
}

@Suite struct I3blocksRendererTests {
    let i3blocks = I3blocksRenderer()

    @Test func everyState() {
        #expect(
            i3blocks.render(Fixture.project(), now: Fixture.now)
                == ##"{"full_text":"● 0:05:30 (2:45:15) · Client A","short_text":"● 0:05:30","color":"#007aff","markup":"pango"}"##
        )
        #expect(
            i3blocks.render(Fixture.running, now: Fixture.now)
                == ##"{"full_text":"▶ 0:05:30 (2:45:15)","short_text":"▶ 0:05:30","markup":"pango"}"##)
        #expect(
            i3blocks.render(Fixture.paused, now: Fixture.now)
                == ##"{"full_text":"‖ 0:05:30 (2:45:15)","short_text":"‖ 0:05:30","markup":"pango"}"##)
        #expect(
            i3blocks.render(Fixture.idle, now: Fixture.now)
                == ##"{"full_text":"○ 0:00:00 (2:45:15)","short_text":"○ 0:00:00","markup":"pango"}"##)
        #expect(
            i3blocks.render(Fixture.offline, now: Fixture.now)
                == ##"{"full_text":"⊘ offline","short_text":"⊘ offline","markup":"pango"}"##)
    }

    @Test func hostileAndLongNames() {
        let unlimited = I3blocksRenderer(options: RenderOptions(maxNameWidth: nil))
        #expect(
            unlimited.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
                == ##"{"full_text":"● 0:05:30 (2:45:15) · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]","short_text":"● 0:05:30","color":"#007aff","markup":"pango"}"##
        )
        #expect(
            i3blocks.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == ##"{"full_text":"● 0:05:30 (2:45:15) · A very long project nam…","short_text":"● 0:05:30","color":"#007aff","markup":"pango"}"##
        )
    }
}

@Suite struct PolybarRendererTests {
    let polybar = PolybarRenderer()

    @Test func everyState() {
        #expect(polybar.render(Fixture.project(), now: Fixture.now) == "● 0:05:30 (2:45:15) · %{F#007aff}Client A%{F-}")
        #expect(polybar.render(Fixture.running, now: Fixture.now) == "▶ 0:05:30 (2:45:15)")
        #expect(polybar.render(Fixture.paused, now: Fixture.now) == "‖ 0:05:30 (2:45:15)")
        #expect(polybar.render(Fixture.idle, now: Fixture.now) == "○ 0:00:00 (2:45:15)")
        #expect(polybar.render(Fixture.offline, now: Fixture.now) == "⊘ offline")
    }

    @Test func hostileNameCannotOpenATag() {
        let unlimited = PolybarRenderer(options: RenderOptions(maxNameWidth: nil))
        let line = unlimited.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
        #expect(
            line == "● 0:05:30 (2:45:15) · %{F#007aff}R&D <b>\"x\"</b> %\u{200B}{F#f00} #[fg=red]%{F-}")
        // Exactly the renderer's two tags remain.
        #expect(line.components(separatedBy: "%{").count - 1 == 2)
    }

    @Test func trailingPercentDoesNotPairWithTheClosingTag() {
        let line = polybar.render(Fixture.project("100%"), now: Fixture.now)
        #expect(line == "● 0:05:30 (2:45:15) · %{F#007aff}100%\u{200B}%{F-}")
    }

    @Test func longName() {
        #expect(
            polybar.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == "● 0:05:30 (2:45:15) · %{F#007aff}A very long project nam…%{F-}")
    }
}

@Suite struct TmuxRendererTests {
    let tmux = TmuxRenderer()

    @Test func everyState() {
        #expect(tmux.render(Fixture.project(), now: Fixture.now) == "● 0:05:30 (2:45:15) · #[fg=#007aff]Client A#[default]")
        #expect(tmux.render(Fixture.running, now: Fixture.now) == "▶ 0:05:30 (2:45:15)")
        #expect(tmux.render(Fixture.paused, now: Fixture.now) == "‖ 0:05:30 (2:45:15)")
        #expect(tmux.render(Fixture.idle, now: Fixture.now) == "○ 0:00:00 (2:45:15)")
        #expect(tmux.render(Fixture.offline, now: Fixture.now) == "⊘ offline")
    }

    @Test func hostileNameHasItsHashesDoubled() {
        let unlimited = TmuxRenderer(options: RenderOptions(maxNameWidth: nil))
        #expect(
            unlimited.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
                == ##"● 0:05:30 (2:45:15) · #[fg=#007aff]R&D <b>"x"</b> %{F##f00} ##[fg=red]#[default]"##)
    }

    @Test func longName() {
        #expect(
            tmux.render(Fixture.project(Fixture.longName), now: Fixture.now)
                == "● 0:05:30 (2:45:15) · #[fg=#007aff]A very long project nam…#[default]")
    }
}
