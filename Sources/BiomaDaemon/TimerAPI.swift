import BiomaCore
import DBusKit
@_exported import TimerControl

/// The fixed names of the D-Bus contract (`../shared/spec/dbus-api.md`).
public enum TimerAPI {
    public static let busName = TimerNames.busName
    public static let objectPath = TimerNames.objectPath
    public static let interface = TimerNames.interface
    public static let errorPrefix = TimerNames.errorPrefix

    /// Every property, in the order of the contract (and of the interface XML).
    public static let propertyNames = [
        "Running", "UpdatedAt", "SessionTime", "DailyTotal", "Day", "ActiveProject", "ActiveProjectName",
        "ActiveProjectColor", "ProjectSessionTime", "ProjectDailyTotal", "Projects",
    ]
    /// The properties that carry time; they are sent fresh with every change.
    static let timeValues: Set<String> = ["UpdatedAt", "SessionTime", "DailyTotal", "ProjectSessionTime", "ProjectDailyTotal"]

    /// The D-Bus properties of a snapshot, by name.
    public static func properties(of s: TrackerSnapshot) -> [String: DBusValue] {
        [
            "Running": .boolean(s.running),
            "UpdatedAt": .int64(s.updatedAt),
            "SessionTime": .int64(s.sessionTime),
            "DailyTotal": .int64(s.dailyTotal),
            "Day": .string(s.day.description),
            "ActiveProject": .string(s.activeProject?.id ?? ""),
            "ActiveProjectName": .string(s.activeProject?.name ?? ""),
            "ActiveProjectColor": .string(s.activeProject?.color ?? ""),
            "ProjectSessionTime": .int64(s.projectSessionTime),
            "ProjectDailyTotal": .int64(s.projectDailyTotal),
            "Projects": .array(
                .structure([.string, .string, .string]),
                s.projects.map { .structure([.string($0.id), .string($0.name), .string($0.color)]) }),
        ]
    }

    /// The `PropertiesChanged` entries between two snapshots taken at the same instant: every
    /// property that changed, plus fresh time values; nil when nothing changed.
    public static func changes(from before: TrackerSnapshot, to after: TrackerSnapshot) -> [(String, DBusValue)]? {
        let old = properties(of: before)
        let new = properties(of: after)
        let changed = propertyNames.filter { $0 != "UpdatedAt" && old[$0] != new[$0] }
        guard !changed.isEmpty else { return nil }
        return propertyNames.filter { changed.contains($0) || timeValues.contains($0) }.map { ($0, new[$0]!) }
    }

    /// The D-Bus error a tracker failure becomes.
    public static func dbusError(_ error: any Error) -> DBusMethodError {
        guard let error = error as? TrackerError else {
            return DBusMethodError(errorPrefix + "Storage", "\(error)")
        }
        let name: String
        switch error {
        case .noSuchProject: name = "NoSuchProject"
        case .invalidName: name = "InvalidName"
        case .invalidColor: name = "InvalidColor"
        case .nameTaken: name = "NameTaken"
        case .invalidArgument: name = "InvalidArgument"
        case .storage: name = "Storage"
        }
        return DBusMethodError(errorPrefix + name, error.message)
    }

    static func invalidArgument(_ message: String) -> DBusMethodError {
        DBusMethodError(errorPrefix + "InvalidArgument", message)
    }
}
