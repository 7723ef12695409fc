/// Colours as every side writes them, `#RRGGBB`: the one reader, for the daemon's checks
/// (`Project.validatedColor`), the command line's (a bad `--color` is a usage error before any
/// call) and the terminal's swatches.
public enum ColorText {
    /// `raw` upper-cased when it is `#` and six hexadecimal digits (any case), else nil.
    public static func normalized(_ raw: String) -> String? {
        let scalars = Array(raw.unicodeScalars)
        guard scalars.count == 7, scalars[0] == "#", scalars.dropFirst().allSatisfy({ $0.properties.isASCIIHexDigit })
        else { return nil }
        return raw.uppercased()
    }

    /// The red, green and blue of a `#RRGGBB` colour (0–255), nil for anything else.
    public static func rgb(_ hex: String) -> (Int, Int, Int)? {
        guard let color = normalized(hex), let value = Int(color.dropFirst(), radix: 16) else { return nil }
        return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
    }

    /// What is wrong with a colour that is not `#RRGGBB`, in words.
    public static func problem(_ raw: String) -> String {
        "Colour '\(raw)' is not of the form #RRGGBB (six hexadecimal digits, e.g. #007AFF)."
    }
}
