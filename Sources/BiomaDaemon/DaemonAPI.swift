import BiomaCore
import CContract
import DBusKit
@_exported import BiomaContract

/// The daemon's side of the D-Bus contract (described in dbus/README.md; its names are
/// `ContractNames`): the published state of a tracker snapshot, and the errors a failure becomes.
public enum DaemonAPI {
    /// What `org.biomatimer.Timer1` publishes for a snapshot; `WorkStatus.table` turns it
    /// into properties.
    public static func status(of s: TrackerSnapshot) -> WorkStatus {
        var status = WorkStatus()
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

    /// The D-Bus error a failure becomes: a tracker failure by its kind, a `DBusMethodError`
    /// as it is, anything else as `Storage`.
    public static func dbusError(_ error: any Error) -> DBusMethodError {
        if let error = error as? DBusMethodError { return error }
        guard let error = error as? TrackerError else {
            return DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_STORAGE, "\(error)")
        }
        let name: String
        switch error {
        case .noSuchProject: name = BIOMATIMER_ERROR_NO_SUCH_PROJECT
        case .invalidName: name = BIOMATIMER_ERROR_INVALID_NAME
        case .invalidColor: name = BIOMATIMER_ERROR_INVALID_COLOR
        case .nameTaken: name = BIOMATIMER_ERROR_NAME_TAKEN
        case .noSuchTask: name = BIOMATIMER_ERROR_NO_SUCH_TASK
        case .noSuchInterval: name = BIOMATIMER_ERROR_NO_SUCH_INTERVAL
        case .overlap: name = BIOMATIMER_ERROR_OVERLAP
        case .nothingToUndo: name = BIOMATIMER_ERROR_NOTHING_TO_UNDO
        case .invalidArgument: name = BIOMATIMER_ERROR_INVALID_ARGUMENT
        case .noFocus: name = BIOMATIMER_ERROR_NO_FOCUS
        case .noSuchPreset: name = BIOMATIMER_ERROR_NO_SUCH_PRESET
        case .invalidImport: name = BIOMATIMER_ERROR_INVALID_IMPORT
        case .storage: name = BIOMATIMER_ERROR_STORAGE
        }
        return DBusMethodError(ContractNames.errorPrefix + name, error.message)
    }

    static func invalidArgument(_ message: String) -> DBusMethodError {
        DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_INVALID_ARGUMENT, message)
    }
}
