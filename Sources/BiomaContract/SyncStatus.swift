import DBusCore

/// One entry of `Sync1.Devices`: a device writing in the sync folder (this one first), as an
/// `a{sv}`.
public struct SyncDeviceRow: ResultRow, Sendable {
    /// Its UUID (the name of its directory in the folder).
    public var id = ""
    /// The name it gave itself (`sync enable --name`), `""` if unknown.
    public var name = ""
    /// The wall time of its last operation known here (µs since the epoch), 0 for none.
    public var lastOp: Int64 = 0
    /// The sequence number of its last operation read here (for this device: written), 0 for none.
    public var readUpTo: Int64 = 0
    /// Why its log is not read on (damage named by file and byte), or why this device cannot
    /// write to the folder; `""` when all is well.
    public var problem = ""

    public init() {}

    public static let table = PropertyTable<SyncDeviceRow>(
        interface: ContractNames.syncInterface,
        [
            .init("Id", \.id), .init("Name", \.name), .init("LastOp", \.lastOp), .init("ReadUpTo", \.readUpTo),
            .init("Problem", \.problem),
        ])
}

/// The state `org.biomatimer.Sync1` publishes; `table` is that interface's list of properties.
public struct SyncStatus: PublishedState {
    /// `Enabled`: changes are written to the folder and peers' are merged.
    public var enabled = false
    /// `Folder`: the sync folder, `""` while off.
    public var folder = ""
    /// `DeviceId`: this device's UUID, `""` before sync was first turned on.
    public var deviceId = ""
    /// `DeviceName`: the name this device writes in the folder.
    public var deviceName = ""
    /// `Devices`: this device, then every peer in the folder.
    public var devices: [SyncDeviceRow] = []
    /// `Behind`: peers' operations in the folder not merged yet (a damaged or half-copied log).
    public var behind: UInt32 = 0

    public init() {}

    public static let table = PropertyTable<SyncStatus>(
        interface: ContractNames.syncInterface,
        [
            .init("Enabled", \.enabled), .init("Folder", \.folder), .init("DeviceId", \.deviceId),
            .init("DeviceName", \.deviceName), .init("Devices", \.devices), .init("Behind", \.behind),
        ])
}
