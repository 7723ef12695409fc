import BiomaCore
import GRDB

/// One concern of the store (`StoreEdits`, `StoreSync`, …): a view of the tracker's core that
/// owns that concern's calls and rows. Parts hold no state of their own: the model, the caches
/// and the connection are the core's (`Tracker`), which every part changes through its one
/// `change` (or `writeOrThrow`), so each part can change without touching the others.
protocol StorePart: Sendable {
    var tracker: Tracker { get }
}

extension StorePart {
    typealias Model = Tracker.Model

    var model: Model { tracker.model }
    var rules: DayRules { tracker.rules }

    func change(at now: Micros, _ body: (inout Model, Database) throws -> [SegmentChange]) throws {
        try tracker.change(at: now, body)
    }

    func readOrThrow<R>(_ body: (Database) throws -> R) throws -> R { try tracker.readOrThrow(body) }

    func writeOrThrow<R>(
        triggers: Bool = true, stamping: Tracker.Stamping = .ownChanges, _ body: (Database) throws -> R
    ) throws -> R {
        try tracker.writeOrThrow(triggers: triggers, stamping: stamping, body)
    }
}

/// The parts, each a view of this tracker.
extension Tracker {
    /// The work timer and the project timers.
    public var timers: StoreTimers { StoreTimers(tracker: self) }
    /// Projects, clients and billing.
    public var catalog: StoreCatalog { StoreCatalog(tracker: self) }
    /// Recorded time read (today, ranges, reports, CSV and iCalendar) and reset or appended.
    public var history: StoreHistory { StoreHistory(tracker: self) }
    /// Intervals edited (added, changed, split, deleted, noted, tagged) and undone.
    public var edits: StoreEdits { StoreEdits(tracker: self) }
    /// Imports of CSV, Timewarrior and Watson.
    public var imports: StoreImports { StoreImports(tracker: self) }
    /// The focus timer, its history and presets.
    public var focus: StoreFocus { StoreFocus(tracker: self) }
    /// The task list.
    public var tasks: StoreTasks { StoreTasks(tracker: self) }
    /// Daily targets, the balance and project budgets.
    public var targets: StoreTargets { StoreTargets(tracker: self) }
    /// This device's sync identity, its operations and a peer's merge.
    public var sync: StoreSync { StoreSync(tracker: self) }
    /// Backups taken and listed, and a restore.
    public var backups: StoreBackups { StoreBackups(tracker: self) }
    /// What the daemon keeps across a restart (away time, notifications shown, targets announced).
    public var daemonState: StoreDaemonState { StoreDaemonState(tracker: self) }
}
