import BiomaText

/// The page's roff: prose as text lines, filled paragraphs, bold and italic, escapes.
extension Manual {
    /// Prose as roff text lines, a paragraph per line (ArgumentParser keeps a discussion's
    /// lines), an indented line shown as written, `code` in bold. The first paragraph goes on
    /// from what comes before (a heading, a `.TP` tag, `.RS`).
    static func prose(_ words: String) -> String {
        var out = ""
        var started = false
        var inExample = false
        for line in words.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.first == " " {
                if !inExample { out += ".RS\n.nf\n" }
                inExample = true
                out += guardLine(code(line.trimmingPrefix(while: { $0 == " " }))) + "\n"
            } else {
                if inExample { out += ".fi\n.RE\n" }
                if started { out += ".PP\n" }
                inExample = false
                out += guardLine(marked(String(line))) + "\n"
            }
            started = true
        }
        if inExample { out += ".fi\n.RE\n" }
        return out
    }

    /// The page with every text line longer than 80 bytes broken at its spaces (not an escaped
    /// one, `\ `), but for lines shown as written (`.nf`) and a `.TP`'s tag.
    static func filled(_ page: String) -> String {
        var out: [Substring] = []
        var noFill = false
        var tag = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".") {
                if line.hasPrefix(".nf") { noFill = true }
                if line.hasPrefix(".fi") { noFill = false }
                tag = line == ".TP"
                out.append(line)
                continue
            }
            defer { tag = false }
            guard !noFill, !tag, line.utf8.count > 80 else {
                out.append(line)
                continue
            }
            var rest = line
            while rest.utf8.count > 80 {
                let bytes = Array(rest.utf8)
                guard let cut = (1...80).reversed().first(where: { bytes[$0] == UInt8(ascii: " ") && bytes[$0 - 1] != UInt8(ascii: "\\") })
                    ?? (81..<bytes.count).first(where: { bytes[$0] == UInt8(ascii: " ") && bytes[$0 - 1] != UInt8(ascii: "\\") })
                else { break }
                let index = rest.utf8.index(rest.startIndex, offsetBy: cut)
                out.append(rest[..<index])
                rest = rest[rest.index(after: index)...]
                if rest.first == "." || rest.first == "'" { rest = Substring("\\&" + rest) }
            }
            out.append(rest)
        }
        return out.joined(separator: "\n")
    }

    /// Text with `code` spans in bold.
    static func marked(_ words: String) -> String {
        var out = ""
        for (index, part) in words.split(separator: "`", omittingEmptySubsequences: false).enumerated() {
            out += index % 2 == 1 ? bold(String(part)) : text(String(part))
        }
        return out
    }

    static func bold(_ words: String) -> String { "\\fB" + code(words) + "\\fR" }
    static func italic(_ words: String) -> String { "\\fI" + code(words) + "\\fR" }

    /// Something typed as it is: every hyphen a minus sign, so that it is copied as typed.
    static func code<S: StringProtocol>(_ words: S) -> String {
        escaped(String(words)) { _ in true }
    }

    /// Running text: a hyphen that begins a word (`--week`, `-2m`) is a minus sign, one inside
    /// a word (`reset-history` aside) a hyphen.
    static func text(_ words: String) -> String {
        escaped(words) { previous in
            guard let previous else { return true }
            return " ([{|=,\"'\t-".contains(previous)
        }
    }

    /// Backslashes as `\e`, characters beyond ASCII as `\[uXXXX]`, quotes in a way no macro
    /// reads, and each hyphen for which `minus(previous character)` holds as `\-`.
    private static func escaped(_ words: String, minus: (Character?) -> Bool) -> String {
        var out = ""
        var previous: Character?
        for character in words {
            defer { previous = character }
            switch character {
            case "\\": out += "\\e"
            case "-": out += minus(previous) ? "\\-" : "-"
            case "'": out += "\\(aq"
            default:
                if character.isASCII {
                    out.append(character)
                } else {
                    for scalar in character.unicodeScalars {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                    }
                }
            }
        }
        return out
    }

    /// A text line that starts with a control character (`.` or `'`) or a space read as text.
    static func guardLine(_ line: String) -> String {
        line.first.map { ".' ".contains($0) } == true ? "\\&" + line : line
    }

    /// A macro argument: in quotes, with none inside.
    static func quoted(_ words: String) -> String {
        "\"" + text(words).replacing("\"", with: "\\(dq") + "\""
    }

    /// `A work timer` as `a work timer`; a first word such as `D-Bus` stays as it is.
    static func lowercasedFirst(_ words: String) -> String {
        let firstWord = words.prefix { $0 != " " }
        guard let first = words.first, !firstWord.dropFirst().contains(where: \.isUppercase) else { return words }
        return first.lowercased() + words.dropFirst()
    }
}
