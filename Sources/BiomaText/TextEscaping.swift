// Turning user text (project names, ids, colours) into something each bar shows literally.
// Order matters everywhere: sanitise and truncate the plain text first, escape last, so
// truncation can never cut an escape sequence in half.

public enum TextEscaping {
    /// Replaces every control character (C0, DEL, C1) and the Unicode line and paragraph
    /// separators by a space, so no field can end a line of a line-based protocol or start
    /// a terminal escape sequence (C1's CSI included). The one such function: bars, terminal
    /// text, reports and the sync folder's device names all go through it.
    public static func singleLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isLineBreaking(scalar) {
                result.append(" ")
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    public static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool { JSON.isLineBreaking(scalar) }

    /// A name or note quoted as a person reads it in a message: `"bad^Gbell"`, `"a\tb"` — a
    /// tab, a line break or a return as `\t`, `\n`, `\r`, every other control character in
    /// caret notation (`^G`, `^[` for escape, `^?` for delete) or as `U+0085` beyond ASCII,
    /// so that the message shows where it is and the terminal obeys none of it.
    public static func visible(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x00..<0x20: result += "^" + String(Unicode.Scalar(UInt8(scalar.value) + 0x40))
            case 0x7F: result += "^?"
            case 0x80..<0xA0, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Escapes the five characters Pango markup (GMarkup) gives a meaning to.
    public static func pango(_ text: String) -> String {
        // Scalar by scalar: a `&` followed by a combining mark is one Character in Swift
        // but still a bare `&` to GMarkup.
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let entity = pangoEntities[scalar] { result += entity } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    private static let pangoEntities: [Unicode.Scalar: String] = [
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;",
    ]

    /// A JSON string literal, quotes included (BiomaText's one JSON writer).
    public static func json(_ text: String) -> String { JSON.quoted(text) }

    /// Polybar's tag parser starts a tag at every `%{` and has no escape for it (`%%` is
    /// not one: polybar/polybar#2748 is unmerged). A ZERO WIDTH SPACE after every `%`
    /// breaks `%{` apart without changing what is seen, and also keeps a trailing `%`
    /// from pairing with the `%{F-}` the renderer appends.
    public static func polybar(_ text: String) -> String {
        text.replacingAll("%", with: "%\u{200B}")
    }

    /// tmux expands `#` in status-line text (`#[fg=…]`, `#(…)`, `#S`); `##` is a literal `#`.
    public static func tmux(_ text: String) -> String {
        text.replacingAll("#", with: "##")
    }
}

extension String {
    /// Replaces each occurrence of one Unicode scalar. Works on scalars, not Characters:
    /// the bars parse bytes, and to them `#` followed by a combining mark is still a `#`.
    func replacingAll(_ target: Unicode.Scalar, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if scalar == target {
                result += replacement
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
