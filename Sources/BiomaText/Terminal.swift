// Text for terminals: colour only on a terminal and without `NO_COLOR`, columns padded (names
// are put on one line by `TextEscaping.singleLine`, the one for every side); shared by every program that prints for people.

#if canImport(Glibc)
import Glibc
#endif

/// Terminal output: colour only on a terminal and without `NO_COLOR`.
public struct Terminal: Sendable {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    /// The style for standard output, from `environment` (the process's when nil).
    public static func style(environment: [String: String]? = nil) -> Terminal {
        func value(_ name: String) -> String? {
            guard let environment else { return getenv(name).map { String(cString: $0) } }
            return environment[name]
        }
        let noColor = value("NO_COLOR").map { !$0.isEmpty } ?? false
        return Terminal(color: isatty(1) != 0 && !noColor && value("TERM") != "dumb")
    }

    /// A dot in the project's colour (24-bit), or nothing when colour is off.
    public func swatch(_ hex: String) -> String {
        guard color, let (r, g, b) = Self.rgb(hex) else { return "●" }
        return "\u{1B}[38;2;\(r);\(g);\(b)m●\u{1B}[0m"
    }

    public func paint(_ text: String, _ hex: String) -> String {
        guard color, let (r, g, b) = Self.rgb(hex) else { return text }
        return "\u{1B}[38;2;\(r);\(g);\(b)m\(text)\u{1B}[0m"
    }

    public static func rgb(_ hex: String) -> (Int, Int, Int)? { ColorText.rgb(hex) }

    /// `text` padded with spaces to `width` terminal columns (`DisplayWidth`: a CJK character
    /// or an emoji takes two), as the bars measure.
    public static func pad(_ text: String, _ width: Int) -> String {
        let count = DisplayWidth.of(text)
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    public static func padLeft(_ text: String, _ width: Int) -> String {
        let count = DisplayWidth.of(text)
        return count >= width ? text : String(repeating: " ", count: width - count) + text
    }
}

/// One decimal place, as `%.1f` prints it.
public func oneDecimal(_ value: Double) -> String {
    guard value.isFinite else { return "0.0" }
    let tenths = Int64((abs(value) * 10).rounded())
    return (value < 0 && tenths > 0 ? "-" : "") + "\(tenths / 10).\(tenths % 10)"
}

