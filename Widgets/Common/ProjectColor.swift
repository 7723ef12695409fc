import BiomaText

/// Colours as the daemon publishes them. Anything that is not exactly `#RRGGBB` is
/// dropped rather than passed on, so a colour can never carry markup into a bar.
public enum ProjectColor {
    /// `#rrggbb` lower-cased, or nil when `text` is not a `#RRGGBB` colour.
    public static func normalized(_ text: String) -> String? {
        ColorText.normalized(text)?.lowercased()
    }
}
