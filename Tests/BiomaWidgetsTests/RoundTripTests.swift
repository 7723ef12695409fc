import BiomaWidgets
import Foundation
import Testing

/// Undoing each bar's markup must give back the plain island line: whatever the name,
/// every bar shows exactly the island's text, and only the renderer's own markup is markup.
@Suite struct RoundTripTests {
    static let names = [
        Fixture.hostileName, #"<>&"'"#, "a&amp;b &lt;", "100%", "%{A1:xterm:}x%{A}", "##[fg=red]#",
        "emoji 🎉 日本語", "e\u{301}&\u{301}", "}{", "\\\"\\n",
    ]
    static let options = RenderOptions(maxNameWidth: nil)

    static func island(_ name: String) -> String {
        IslandRenderer(options: options).render(Fixture.project(name), now: Fixture.now)
    }

    /// Literal (UTF-16) replacement: `&amp;` before a combining mark is one grapheme
    /// with it, and a Character-level search would miss it.
    static func pangoUnescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<", options: .literal).replacingOccurrences(of: "&gt;", with: ">", options: .literal)
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'", options: .literal)
            .replacingOccurrences(of: "&amp;", with: "&", options: .literal)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test(arguments: names) func waybar(name: String) throws {
        let line = WaybarRenderer(options: Self.options).render(Fixture.project(name), now: Fixture.now)
        let text = try #require(try Self.object(line)["text"] as? String)
        let open = ##"<span foreground="#007aff">"##
        #expect(text.components(separatedBy: open).count == 2)
        #expect(text.components(separatedBy: "</span>").count == 2)
        let bare = text.replacingOccurrences(of: open, with: "", options: .literal).replacingOccurrences(of: "</span>", with: "", options: .literal)
        #expect(!bare.contains("<") && !bare.contains(">"), "markup left in \(bare)")
        #expect(Self.pangoUnescaped(bare) == Self.island(name))
    }

    @Test(arguments: names) func i3blocks(name: String) throws {
        let line = I3blocksRenderer(options: Self.options).render(Fixture.project(name), now: Fixture.now)
        let text = try #require(try Self.object(line)["full_text"] as? String)
        #expect(!text.contains("<") && !text.contains(">"))
        #expect(Self.pangoUnescaped(text) == Self.island(name))
    }

    @Test(arguments: names) func polybar(name: String) {
        let line = PolybarRenderer(options: Self.options).render(Fixture.project(name), now: Fixture.now)
        // Exactly the renderer's two tags open with %{.
        #expect(line.components(separatedBy: "%{").count == 3)
        let bare = line.replacingOccurrences(of: "%{F#007aff}", with: "", options: .literal).replacingOccurrences(of: "%{F-}", with: "", options: .literal)
            .replacingOccurrences(of: "\u{200B}", with: "", options: .literal)
        #expect(bare == Self.island(name))
    }

    @Test(arguments: names) func tmux(name: String) {
        let line = TmuxRenderer(options: Self.options).render(Fixture.project(name), now: Fixture.now)
        // Remove the renderer's two styles, then every remaining # must be doubled.
        let bare = line.replacingOccurrences(of: "#[fg=#007aff]", with: "", options: .literal).replacingOccurrences(of: "#[default]", with: "", options: .literal)
        #expect(!bare.replacingOccurrences(of: "##", with: "", options: .literal).contains("#"))
        #expect(bare.replacingOccurrences(of: "##", with: "#", options: .literal) == Self.island(name))
    }
}
