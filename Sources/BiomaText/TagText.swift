/// A tag as people type it: a word of letters, digits, `-`, `_` and `.`, at most 32
/// characters, written `+word` on the command line. The one check, shared by the command line
/// (a usage error before any call) and the store (`Tags`, BiomaCore).
public enum TagText {
    public static let maxLength = 32
    public static let maxCount = 16

    /// The tag without its leading `+`.
    public static func word(_ raw: String) -> String { raw.hasPrefix("+") ? String(raw.dropFirst()) : raw }

    /// What is wrong with `raw` as a tag (a leading `+` allowed), nil when it is one.
    public static func problem(_ raw: String) -> String? {
        let tag = word(raw)
        if tag.isEmpty { return "A tag cannot be empty: give a word such as +meeting." }
        if tag.count > maxLength { return "Tag '\(tag.prefix(40))…' is longer than \(maxLength) characters." }
        let word = { (c: Character) in c == "-" || c == "_" || c == "." || c.isLetter || c.isNumber }
        if !tag.allSatisfy(word) {
            return "Tag \(TextEscaping.visible(tag)) is not a word: use letters, digits, '-', '_' and '.' (no spaces)."
        }
        return nil
    }
}
