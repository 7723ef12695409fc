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

    /// The D-Bus error a failure becomes: a tracker failure is the contract's error its case
    /// is named after (`noSuchProject` is `NoSuchProject`: a test holds every case to its
    /// header constant), with its message; a `DBusMethodError` as it is; anything else, and a
    /// case the contract does not name, `Storage`.
    public static func dbusError(_ error: any Error) -> DBusMethodError {
        if let error = error as? DBusMethodError { return error }
        guard let error = error as? TrackerError else {
            return DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_STORAGE, "\(error)")
        }
        let label = Mirror(reflecting: error).children.first?.label ?? ""
        let name = label.prefix(1).uppercased() + label.dropFirst()
        return DBusMethodError(
            ContractNames.errorPrefix + (ContractMembers.errors.contains(name) ? name : BIOMATIMER_ERROR_STORAGE), error.message)
    }

    static func invalidArgument(_ message: String) -> DBusMethodError {
        DBusMethodError(ContractNames.errorPrefix + BIOMATIMER_ERROR_INVALID_ARGUMENT, message)
    }
}
