import CContract
import BiomaCore
import BiomaStore
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
    /// A part without deadlines registers none.
    public func attach(_ deadlines: Deadlines) {}
}

/// The rules every change obeys, whichever part makes it (a command, a peer's operations
/// merged, a task done): supplied by the work part. A sleep not yet noticed is recorded first,
/// on its own; today's work must be readable; an absence that counts by now is removed before
/// anything else.
protocol ChangeRules: AnyObject {
    /// Before the change, outside it: its instant, or the error that refuses it.
    func instantOfChange() throws -> Micros
    /// The first step inside the change; what it did is published even if the change then
    /// fails.
    func beginningChange(at now: Micros) throws
}

/// Told of every publication of the daemon's object (the hooks): what held before a change,
/// and after every part has published, what happened that the properties alone do not say.
public protocol PublicationObserver: AnyObject, Sendable {
    /// A change is about to be made at `now` (the outermost one).
    func willChange(at now: Micros)
    /// Every part has published the change made at `now`; `occurrences` are what the parts
    /// reported meanwhile, in the order they did.
    func published(at now: Micros, occurrences: [Occurrence])
    /// Something happened outside any change (a reminder's deadline), at `now`.
    func occurred(_ occurrence: Occurrence, at now: Micros)
}

/// Something that happened which the published properties alone do not say, reported by the
/// part that made it happen (through `Publication.occurred`).
public enum Occurrence: Sendable {
    /// A focus phase ended (the `PhaseEnded` signal's phase).
    case phaseEnded(FocusPhaseEnd)
    /// The day's target was reached: the day, the target, the work done (µs).
    case targetReached(day: Day, target: Micros, worked: Micros)
    /// A project's budget crossed 80 % or 100 % in its period.
    case budget(project: Project, threshold: BudgetThreshold, budget: Budget, used: Micros)
    /// A task's reminder went out.
    case taskDue(TaskItem, late: Bool)
    /// A peer's operations were merged.
    case merged(operations: Int, devices: [String])
}

/// The one publication step of the daemon's object: after any change, every part is asked
/// once for its new state, in order, and emits its interface's `PropertiesChanged` once. On
/// the loop thread only.
public final class Publication: @unchecked Sendable {
    private var parts: [Weak] = []
    private var depth = 0
    /// While parts publish: what they report then is delivered after the last of them.
    private var publishing = false
    private var occurrences: [Occurrence] = []
    /// The hooks, when the daemon runs them.
    public weak var observer: (any PublicationObserver)?
    /// The rules of every change (the work part), when the object has one.
    weak var rules: (any ChangeRules)?

    private struct Weak {
        weak var part: (any ObjectInterface)?
    }

    public init() {}

    /// A publication of one part on its own (a part not yet in an object).
    init(_ part: any ObjectInterface) { parts = [Weak(part: part)] }

    func join(_ part: any ObjectInterface) { parts.append(Weak(part: part)) }

    // The ways into a change, and the only ones: each begins and ends its change itself, so
    // no caller can leave one open (every part's publication would wait for it) or end one
    // twice.

    /// The change path of every part: the rules' steps, then `body` at the change's instant
    /// (from the rules, else `clock`); every part publishes once after it. An error is
    /// answered as the contract's (a `DBusMethodError` as it is, a store's by its kind).
    func change<T>(_ clock: any TimeSource, _ body: (Micros) throws -> T) throws -> T {
        let now = try open(clock)
        defer { end(at: now) }
        return try Self.answered { try body(now) }
    }

    /// A change the rules do not open, at `now`: one of the rules' own steps (a sleep
    /// recorded), or a wake-up that records nothing (a deadline, a new day, sync's own
    /// status). Every part publishes once after `body`; nested ones with the outermost.
    func change<T>(at now: Micros, _ body: () throws -> T) rethrows -> T {
        begin(at: now)
        defer { end(at: now) }
        return try body()
    }

    /// A change whose work runs on a worker while the loop is held (`BulkWork.write`): opened
    /// as `change` opens one; `start`, on the loop at the change's instant, makes ready and
    /// returns the worker's work; `then`, on the loop with the work's result, finishes the
    /// change; every part publishes; then `answered` gets `then`'s result (an error as the
    /// contract's), as `change` returns after the publication. A refusal of the rules or of
    /// `start` ends the change at once and goes to `answered`.
    func changeInBulk<T: Sendable, U>(
        _ clock: any TimeSource, on bulk: BulkWork,
        start: (Micros) throws -> @Sendable (Tracker) throws -> T,
        then: @escaping @Sendable (Result<T, any Error>) throws -> U,
        answered: @escaping @Sendable (Result<U, any Error>) -> Void
    ) {
        let now: Micros
        let work: @Sendable (Tracker) throws -> T
        do {
            now = try open(clock)
        } catch {
            return answered(.failure(error))
        }
        do {
            work = try start(now)
        } catch {
            end(at: now)
            return answered(.failure(DaemonAPI.dbusError(error)))
        }
        bulk.write(work) { [self] result in
            let finished = Result { try then(result) }
            end(at: now)
            answered(finished.mapError(DaemonAPI.dbusError))
        }
    }

    /// A change opened with the rules' steps, and its instant; when it throws, nothing is
    /// open.
    private func open(_ clock: any TimeSource) throws -> Micros {
        let now = try Self.answered { try rules?.instantOfChange() ?? clock.now() }
        begin(at: now)
        do {
            try Self.answered { try rules?.beginningChange(at: now) }
        } catch {
            end(at: now)
            throw error
        }
        return now
    }

    /// `body`'s error as the contract's.
    static func answered<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// A change at `now` starts; with the outermost, every part notes what holds before it.
    private func begin(at now: Micros) {
        if depth == 0 {
            observer?.willChange(at: now)
            for entry in parts { entry.part?.willChange(at: now) }
        }
        depth += 1
    }

    /// The change begun at `now` has ended; with the outermost, every part publishes it.
    private func end(at now: Micros) {
        depth -= 1
        guard depth == 0 else { return }
        publishing = true
        for entry in parts { entry.part?.publish(at: now) }
        publishing = false
        let happened = occurrences
        occurrences = []
        observer?.published(at: now, occurrences: happened)
    }

    /// A part reports what happened at `now`: delivered with the publication it belongs to, or
    /// at once outside any.
    func occurred(_ occurrence: Occurrence, at now: Micros) {
        guard observer != nil else { return }
        if depth > 0 || publishing {
            occurrences.append(occurrence)
        } else {
            observer?.occurred(occurrence, at: now)
        }
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
            if let observer = part as? any PublicationObserver { publication.observer = observer }
            if let rules = part as? any ChangeRules { publication.rules = rules }
        }
    }

    /// Exports the object; call before requesting the name, so that calls queued while the bus
    /// activated the daemon find it.
    public func export(on bus: Bus) throws(BusError) {
        let interfaces = parts.map { part in
            var interface = part.interface()
            interface.methods = interface.methods.map { Self.reading.contains($0.name) ? $0.reading() : $0 }
            return interface
        }
        try bus.export(ExportedObject(path: ContractNames.objectPath, interfaces: interfaces))
    }

    /// The methods that only read: served while bulk work holds the loop (`BulkWork`), where
    /// every other call waits for it and is then applied in order. (`Run` and the exports
    /// mark themselves: a command's own calls are looked at one by one.)
    static let reading: Set<String> = [
        BIOMATIMER_TIMER1_LIST_PROJECTS, BIOMATIMER_TIMER1_REPORT, BIOMATIMER_TIMER1_REPORT_TEXT, BIOMATIMER_TIMER1_PERIOD_DAYS,
        BIOMATIMER_TIMER1_LIST_INTERVALS, BIOMATIMER_TIMER1_LIST_TARGETS, BIOMATIMER_TIMER1_LIST_BACKUPS, BIOMATIMER_TASKS1_LIST_TASKS,
        BIOMATIMER_FOCUS1_LIST_PRESETS, BIOMATIMER_FOCUS1_FOCUS_HISTORY, BIOMATIMER_HOOKS1_LIST_HOOKS,
    ]

    /// Registers every part's deadlines; on the loop thread.
    public func attach(_ deadlines: Deadlines) {
        for part in parts { part.attach(deadlines) }
    }
}
