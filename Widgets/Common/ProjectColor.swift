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
