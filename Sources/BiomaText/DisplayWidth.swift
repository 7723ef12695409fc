// Widths in terminal columns, estimated per grapheme cluster: the bars shorten project names
// by them (a name may be 64 characters long; a bar has room for far fewer), and the command
// line's tables pad by them, so a CJK or emoji name keeps its columns aligned.

public enum DisplayWidth {
    /// Columns `text` takes: 2 for East Asian wide/fullwidth and emoji-presentation
    /// clusters, 0 for clusters made only of zero-width scalars, 1 otherwise.
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// Columns one grapheme cluster takes.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.allSatisfy(isZeroWidth) { return 0 }
        if isWide(first) || first.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// `text` unchanged if it fits in `maxWidth` columns; otherwise its longest prefix
    /// that fits together with `ellipsis`, trailing spaces dropped, then `ellipsis`.
    /// A `maxWidth` of nil means no limit.
    public static func truncate(_ text: String, to maxWidth: Int?, ellipsis: String) -> String {
        guard let maxWidth, of(text) > maxWidth else { return text }
        let room = maxWidth - of(ellipsis)
        guard room > 0 else { return String(ellipsis.prefix(Swift.max(0, maxWidth))) }
        var kept = ""
        var used = 0
        for character in text {
            let width = of(character)
            if used + width > room { break }
            kept.append(character)
            used += width
        }
        while let last = kept.last, last.isWhitespace { kept.removeLast() }
        return kept + ellipsis
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return false
        }
    }

    /// East Asian Wide and Fullwidth blocks (UAX #11), the common ranges.
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
            0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
