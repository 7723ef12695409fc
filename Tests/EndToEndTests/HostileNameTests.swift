import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// A project name that is markup, a format string and an escape in every bar's syntax shows
/// literally in every format the watch prints.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct HostileNameTests {
    @Test func hostileNameShowsLiterallyInEveryFormat() throws {
        let f = try DaemonFixture()
        let id = try #require(try f.method("AddProject", [.string(hostileName), .string("")]).first?.string)
        _ = try f.method("StartProject", [.string(id)])
        let formats = ["waybar", "i3blocks", "polybar", "tmux", "island", "json"]
        var watches: [String: WatchProcess] = [:]
        defer { watches.values.forEach { $0.stop() } }
        for format in formats { watches[format] = try watch(f, ["--format", format]) }
        var line: [String: String] = [:]
        for format in formats { line[format] = watches[format]?.lines.next()?.text }

        // What a person must see: the name as typed (shortened to 24 columns in the line).
        let shortName = ##"R&D <b>"x"</b> %{F#f00}…"##
        let seen = "● T (T) · \(shortName)"

        // waybar: Pango-escaped, then JSON-escaped; one span (ours) with the colour.
        let waybar = try #require(line["waybar"].flatMap(jsonObject), "waybar: \(line["waybar"] ?? "nothing")")
        let text = try #require(waybar["text"] as? String)
        #expect(
            normalized(text)
                == ##"● T (T) · <span foreground="#007aff">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…</span>"##)
        let markup = try #require(Markup(text), "waybar text is not valid Pango markup: \(text)")
        #expect(normalized(markup.text) == seen)
        #expect(markup.elements == ["span foreground=#007aff"], "only our span, no <b> from the name")
        let tooltip = try #require((waybar["tooltip"] as? String).flatMap(Markup.init), "waybar tooltip markup")
        #expect(normalized(tooltip.text) == "Work: T session, T today\n\(hostileName): T session, T today")
        #expect(tooltip.elements == [])
        #expect(waybar["class"] as? [String] == ["running", "project"])

        // i3blocks: Pango-escaped full_text, declared as Pango, the project colour on the block.
        let i3 = try #require(line["i3blocks"].flatMap(jsonObject), "i3blocks: \(line["i3blocks"] ?? "nothing")")
        let full = try #require(i3["full_text"] as? String)
        #expect(normalized(full) == "● T (T) · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…")
        let fullMarkup = try #require(Markup(full), "i3blocks full_text is not valid Pango markup")
        #expect(normalized(fullMarkup.text) == seen && fullMarkup.elements == [])
        #expect(i3["markup"] as? String == "pango" && i3["color"] as? String == "#007aff")

        // polybar: `%{` broken by a zero width space; tmux: `#` doubled.
        #expect(normalized(line["polybar"] ?? "") == "● T (T) · %{F#007aff}R&D <b>\"x\"</b> %\u{200B}{F#f00}…%{F-}")
        #expect(normalized(line["tmux"] ?? "") == ##"● T (T) · #[fg=#007aff]R&D <b>"x"</b> %{F##f00}…#[default]"##)
        #expect(normalized(line["island"] ?? "") == seen)
        // json: the whole name, unshortened.
        let json = try #require(line["json"].flatMap(jsonObject), "json: \(line["json"] ?? "nothing")")
        #expect(json["active_project_name"] as? String == hostileName)
        #expect(json["state"] as? String == "running")

        // A name short enough to show whole, so its tail (`#[fg=red]`, quotes) is in every
        // line too. Switching to it is one more change each watch follows.
        let short = ##"#[fg=red]%{F#f00}<i>&"'"##
        _ = try f.method("AddProject", [.string(short), .string("#FF8800")])
        _ = try f.method("StartProject", [.string(short)])
        for format in formats {
            line[format] = watches[format]?.lines.next(timeout: 5) { $0.contains("[fg=red]%") }?.text
        }
        let seenShort = "● T (T) · \(short)"
        let waybarShort = try #require(line["waybar"].flatMap(jsonObject)?["text"] as? String)
        #expect(normalized(waybarShort) == ##"● T (T) · <span foreground="#ff8800">#[fg=red]%{F#f00}&lt;i&gt;&amp;&quot;&#39;</span>"##)
        #expect(Markup(waybarShort).map { normalized($0.text) } == seenShort)
        let i3Short = try #require(line["i3blocks"].flatMap(jsonObject))
        #expect(normalized(i3Short["full_text"] as? String ?? "") == "● T (T) · #[fg=red]%{F#f00}&lt;i&gt;&amp;&quot;&#39;")
        #expect((i3Short["full_text"] as? String).flatMap(Markup.init).map { normalized($0.text) } == seenShort)
        #expect(i3Short["color"] as? String == "#ff8800")
        #expect(normalized(line["polybar"] ?? "") == "● T (T) · %{F#ff8800}#[fg=red]%\u{200B}{F#f00}<i>&\"'%{F-}")
        #expect(normalized(line["tmux"] ?? "") == ##"● T (T) · #[fg=#ff8800]##[fg=red]%{F##f00}<i>&"'#[default]"##)
        #expect(normalized(line["island"] ?? "") == seenShort)
        #expect(line["json"].flatMap(jsonObject)?["active_project_name"] as? String == short)
    }
}
