import BiomaWidgets
import DBusKit

extension WidgetState {
    /// The state as published in `org.biomatimer.Timer1`'s properties.
    public init(properties p: [String: DBusValue]) {
        self.init(
            online: true,
            running: p["Running"]?.bool ?? false,
            updatedAt: p["UpdatedAt"]?.int64 ?? 0,
            sessionTime: p["SessionTime"]?.int64 ?? 0,
            dailyTotal: p["DailyTotal"]?.int64 ?? 0,
            day: p["Day"]?.string ?? "",
            activeProject: p["ActiveProject"]?.string ?? "",
            activeProjectName: p["ActiveProjectName"]?.string ?? "",
            activeProjectColor: p["ActiveProjectColor"]?.string ?? "",
            projectSessionTime: p["ProjectSessionTime"]?.int64 ?? 0,
            projectDailyTotal: p["ProjectDailyTotal"]?.int64 ?? 0)
    }

    /// Applies the entries of a `PropertiesChanged` signal.
    public mutating func apply(_ changed: [String: DBusValue]) {
        if let v = changed["Running"]?.bool { running = v }
        if let v = changed["UpdatedAt"]?.int64 { updatedAt = v }
        if let v = changed["SessionTime"]?.int64 { sessionTime = v }
        if let v = changed["DailyTotal"]?.int64 { dailyTotal = v }
        if let v = changed["Day"]?.string { day = v }
        if let v = changed["ActiveProject"]?.string { activeProject = v }
        if let v = changed["ActiveProjectName"]?.string { activeProjectName = v }
        if let v = changed["ActiveProjectColor"]?.string { activeProjectColor = v }
        if let v = changed["ProjectSessionTime"]?.int64 { projectSessionTime = v }
        if let v = changed["ProjectDailyTotal"]?.int64 { projectDailyTotal = v }
    }
}
