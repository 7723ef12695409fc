import BiomaCore
import DBusKit

/// One interface of the daemon's object: it describes itself as a `DBusInterface` (its member
/// table naming its handler methods, its properties from its `PropertyTable`), publishes its
/// own state when asked, and registers the deadlines it needs in the bus loop.
public protocol ObjectInterface: AnyObject, Sendable {
    func interface() -> DBusInterface
    /// Called once on the loop thread after the object is exported.
    func attach(_ deadlines: Deadlines)
    /// The publication this part belongs to (set by `DaemonObject`).
    var publication: Publication { get set }
    /// A change is about to be made at `now`: remember what was published, to diff against.
    func willChange(at now: Micros)
    /// After a change (or a deadline): emit this interface's `PropertiesChanged` once, with
    /// what differs from before, and move this part's own deadlines. Never calls another part.
    func publish(at now: Micros)
}

extension ObjectInterface {
    public func willChange(at now: Micros) {}
    /// Runs one change at `now` and publishes every part once after it (nested changes
    /// publish with the outermost one).
    func publishing<T>(at now: Micros, _ body: () throws -> T) rethrows -> T {
        try publication.run(at: now, body)
    }
}

/// The one publication step of the daemon's object: after any change, every part is asked
/// once for its new state, in order, and emits its interface's `PropertiesChanged` once. On
/// the loop thread only.
public final class Publication: @unchecked Sendable {
    private var parts: [Weak] = []
    private var depth = 0

    private struct Weak {
        weak var part: (any ObjectInterface)?
    }

    public init() {}

    /// A publication of one part on its own (a part not yet in an object).
    init(_ part: any ObjectInterface) { parts = [Weak(part: part)] }

    func join(_ part: any ObjectInterface) { parts.append(Weak(part: part)) }

    func run<T>(at now: Micros, _ body: () throws -> T) rethrows -> T {
        if depth == 0 { for entry in parts { entry.part?.willChange(at: now) } }
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { for entry in parts { entry.part?.publish(at: now) } }
        }
        return try body()
    }
}

/// `/org/biomatimer/Timer1`: every interface of the daemon, exported together as one object
/// (introspection lists them all; each answers its own `Get`/`GetAll`), publishing together.
public struct DaemonObject: Sendable {
    public let parts: [any ObjectInterface]

    public init(_ parts: [any ObjectInterface]) {
        self.parts = parts
        let publication = Publication()
        for part in parts {
            part.publication = publication
            publication.join(part)
        }
    }

    /// Exports the object; call before requesting the name, so that calls queued while the bus
    /// activated the daemon find it.
    public func export(on bus: Bus) throws(BusError) {
        try bus.export(ExportedObject(path: DaemonAPI.objectPath, interfaces: parts.map { $0.interface() }))
    }

    /// Registers every part's deadlines; on the loop thread.
    public func attach(_ deadlines: Deadlines) {
        for part in parts { part.attach(deadlines) }
    }
}
