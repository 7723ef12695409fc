import BiomaText
import Testing

/// The command line's tables pad by display width, as the bars measure: a CJK character or an
/// emoji takes two columns, a combining mark none.
@Suite struct TerminalPadTests {
    @Test func wideNamesKeepTheirColumns() {
        let rows = ["Client A", "東京オフィス", "🚀 Launch", "Cafe\u{301}"].map { Terminal.pad($0, 14) + "|" }
        #expect(rows.map(DisplayWidth.of) == [15, 15, 15, 15], "\(rows)")
        #expect(Terminal.pad("東京", 6) == "東京  ")
        #expect(Terminal.padLeft("東京", 6) == "  東京")
        #expect(Terminal.pad("東京オフィスです", 6) == "東京オフィスです")
    }

    @Test func controlCharactersAreShownAsAPersonReadsThem() {
        #expect(TextEscaping.visible("bad\u{07}bell") == "\"bad^Gbell\"")
        #expect(TextEscaping.visible("a\tb\nc\r\u{1B}[2J\u{7F}\u{85}") == "\"a\\tb\\nc\\r^[[2J^?U+0085\"")
        #expect(TextEscaping.visible("Café 東京") == "\"Café 東京\"")
    }
}
