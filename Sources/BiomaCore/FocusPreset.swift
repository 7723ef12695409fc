import Foundation

/// A named, saved focus timer setting: what `StartPreset` (and a keybinding) starts.
public struct FocusPreset: Sendable, Equatable {
    public static let maxNameLength = 64
    public var id: String
    public var name: String
    public var plan: FocusPlan

    public init(id: String, name: String, plan: FocusPlan) {
        (self.id, self.name, self.plan) = (id, name, plan)
    }

    /// The name trimmed, 1–64 characters, no control characters.
    public static func validatedName(_ name: String) throws(FocusError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxNameLength,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalid("Preset names are 1–64 characters without control characters.") }
        return trimmed
    }
}

extension [FocusPreset] {
    /// The preset with this id, or else this name (ignoring case).
    public func resolve(_ ref: String) -> FocusPreset? {
        first { $0.id == ref } ?? first { $0.name.lowercased() == ref.lowercased() }
    }
}
