import BiomaCore
import DBusKit
@_exported import TimerControl

/// The daemon's side of the D-Bus contract (described in dbus/README.md): the fixed names,
/// the published state of a tracker snapshot, and the errors a failure becomes.
public enum TimerAPI {
    public static let busName = TimerNames.busName
    public static let objectPath = TimerNames.objectPath
    public static let interface = TimerNames.interface
    public static let errorPrefix = TimerNames.errorPrefix

    /// What `org.biomatimer.Timer1` publishes for a snapshot; `TimerStatus.table` turns it
    /// into properties.
    public static func status(of s: TrackerSnapshot) -> TimerStatus {
        var status = TimerStatus()
        status.running = s.running
        status.updatedAt = s.updatedAt
        status.sessionTime = s.sessionTime
        status.dailyTotal = s.dailyTotal
        status.day = s.day.description
        status.activeProject = s.activeProject?.id ?? ""
        status.activeProjectName = s.activeProject?.name ?? ""
        status.activeProjectColor = s.activeProject?.color ?? ""
        status.projectSessionTime = s.projectSessionTime
        status.projectDailyTotal = s.projectDailyTotal
        status.projects = s.projects.map { ProjectSummary(id: $0.id, name: $0.name, color: $0.color) }
        return status
    }

    /// The D-Bus error a tracker failure becomes.
    public static func dbusError(_ error: any Error) -> DBusMethodError {
        guard let error = error as? TrackerError else {
            return DBusMethodError(ContractError.storage, "\(error)")
        }
        let name: String
        switch error {
        case .noSuchProject: name = ContractError.noSuchProject
        case .invalidName: name = ContractError.invalidName
        case .invalidColor: name = ContractError.invalidColor
        case .nameTaken: name = ContractError.nameTaken
        case .noSuchTask: name = ContractError.noSuchTask
        case .noSuchInterval: name = ContractError.noSuchInterval
        case .overlap: name = ContractError.overlap
        case .nothingToUndo: name = ContractError.nothingToUndo
        case .invalidArgument: name = ContractError.invalidArgument
        case .noFocus: name = ContractError.noFocus
        case .noSuchPreset: name = ContractError.noSuchPreset
        case .invalidImport: name = ContractError.invalidImport
        case .storage: name = ContractError.storage
        }
        return DBusMethodError(name, error.message)
    }

    static func invalidArgument(_ message: String) -> DBusMethodError {
        DBusMethodError(ContractError.invalidArgument, message)
    }
}
