// What a focus timer's operations return: the stretches that ran and the phases that ended.

/// One stretch of a phase that ran: the history's unit. A phase paused and resumed is one
/// stretch per run; the last says whether the phase ran to its end.
public struct FocusRecord: Sendable, Equatable {
    public var kind: FocusKind
    public var phase: FocusPhase
    public var round: Int
    public var label: String
    public var project: String?
    public var start: Micros
    public var end: Micros
    /// The phase's planned length (extensions included) when the stretch ended.
    public var planned: Micros
    public var completed: Bool

    public init(
        kind: FocusKind, phase: FocusPhase, round: Int, label: String, project: String?, start: Micros, end: Micros,
        planned: Micros, completed: Bool
    ) {
        (self.kind, self.phase, self.round, self.label) = (kind, phase, round, label)
        (self.project, self.start, self.end, self.planned) = (project, start, end, planned)
        self.completed = completed
    }
}

/// A phase that ended (ran out, was skipped, or ended by an extension below zero): the phase
/// as one record — which phase, from its first stretch's start to its end, its planned length
/// and whether it was completed, read as `end.kind`, `end.start` … — and what follows it.
@dynamicMemberLookup
public struct FocusPhaseEnd: Sendable, Equatable {
    public var record: FocusRecord
    public subscript<T>(dynamicMember field: KeyPath<FocusRecord, T>) -> T { record[keyPath: field] }
    /// It ended while the daemon was not there to see it.
    public var late: Bool
    /// The phase that follows, nil when the timer is done.
    public var next: FocusPhase?
    /// Whether that next phase started by itself (false: it waits for confirmation).
    public var nextStarted: Bool
}

/// What an operation did.
public struct FocusOutcome: Sendable, Equatable {
    public var records: [FocusRecord] = []
    public var ended: [FocusPhaseEnd] = []
    public init() {}
}
