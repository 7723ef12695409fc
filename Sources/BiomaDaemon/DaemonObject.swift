import DBusKit

/// One interface of the daemon's object: it describes itself as a `DBusInterface` (its
/// properties from its `PropertyTable`), emits its own signals, and registers the deadlines it
/// needs in the bus loop.
public protocol ObjectInterface: AnyObject, Sendable {
    func interface() -> DBusInterface
    /// Called once on the loop thread after the object is exported.
    func attach(_ deadlines: Deadlines)
}

/// `/org/biomatimer/Timer1`: every interface of the daemon, exported together as one object
/// (introspection lists them all; each answers its own `Get`/`GetAll`).
public struct DaemonObject: Sendable {
    public let parts: [any ObjectInterface]

    public init(_ parts: [any ObjectInterface]) { self.parts = parts }

    /// Exports the object; call before requesting the name, so that calls queued while the bus
    /// activated the daemon find it.
    public func export(on bus: Bus) throws(BusError) {
        try bus.export(ExportedObject(path: TimerAPI.objectPath, interfaces: parts.map { $0.interface() }))
    }

    /// Registers every part's deadlines; on the loop thread.
    public func attach(_ deadlines: Deadlines) {
        for part in parts { part.attach(deadlines) }
    }
}
