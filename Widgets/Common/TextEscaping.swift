// Turning user text (project names, ids, colours) into something each bar shows literally.
// Order matters everywhere: sanitise and truncate the plain text first, escape last, so
// truncation can never cut an escape sequence in half.

public enum TextEscaping {
    /// Replaces every control character (C0, DEL, C1) and the Unicode line and paragraph
    /// separators by a space, so no field can end a line of a line-based protocol or start
    /// a terminal escape sequence.
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

    static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

    /// Escapes the five characters Pango markup (GMarkup) gives a meaning to.
    public static func pango(_ text: String) -> String {
        // Scalar by scalar: a `&` followed by a combining mark is one Character in Swift
        // but still a bare `&` to GMarkup.
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The body of a JSON string literal (without the quotes): `"` and `\` escaped, every
    /// control character (C0, DEL, C1: U+0085 is a line break to some readers) and
    /// U+2028/U+2029 as `\uXXXX`, so no value can split a line. Everything else stays UTF-8.
    public static func jsonStringBody(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            default:
                if isLineBreaking(scalar) {
                    result += "\\u" + hex4(scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A JSON string literal, quotes included.
    public static func json(_ text: String) -> String {
        "\"" + jsonStringBody(text) + "\""
    }

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

    private static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(digits[Int((value >> UInt32(shift)) & 0xF)])
        }
        return out
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

/// Colours as the daemon publishes them. Anything that is not exactly `#RRGGBB` is
/// dropped rather than passed on, so a colour can never carry markup into a bar.
public enum ProjectColor {
    /// `#rrggbb` lower-cased, or nil when `text` is not a `#RRGGBB` colour.
    public static func normalized(_ text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 7, scalars[0] == "#" else { return nil }
        for scalar in scalars.dropFirst() {
            switch scalar {
            case "0"..."9", "a"..."f", "A"..."F": continue
            default: return nil
            }
        }
        return text.lowercased()
    }
}
