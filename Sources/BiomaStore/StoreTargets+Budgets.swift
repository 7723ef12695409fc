import BiomaCore
import GRDB

/// Project budgets in the store: the time used in the current period, and which notices were
/// shown in it (`v9-budgets`).
extension StoreTargets {
    /// `project`'s budget, its current period at `now` and the time used in it (the running
    /// interval counted up to `now`); nil when it has no budget.
    public func budgetUse(of project: Project, at now: Micros) throws -> (budget: Budget, window: BudgetWindow, used: Micros)? {
        guard let budget = project.budget else { return nil }
        let window = budget.window(at: now, rules: rules)
        let low = window.start ?? .min
        let high = window.end ?? .max
        // Intervals never overlap: one indexed sum over the project's closed intervals.
        var used = try readOrThrow { db in
            try Int64.fetchOne(db.cachedStatement(sql: StoreTargets.budgetUseSQL), arguments: [high, low, project.id, low, high]) ?? 0
        }
        if let open = model.state.open, open.projectID == project.id {
            used += max(0, min(now, high) - max(open.start, low))
        }
        return (budget, window, used)
    }

    /// A project's closed time in [?2, ?1): the range of its intervals ending after the low
    /// end, in the index of the project's ends (`interval_project_end`).
    static let budgetUseSQL = """
        SELECT IFNULL(SUM(MIN(end_us, ?) - MAX(start_us, ?)), 0) FROM interval
            WHERE project_id = ? AND end_us IS NOT NULL AND end_us > ? AND start_us < ?
        """

    /// The period whose notices were shown for `project`, and which.
    public func budgetAnnounced(_ projectID: String) throws -> (period: String, thresholds: Set<BudgetThreshold>)? {
        try readOrThrow { db in
            try Row.fetchOne(db, sql: "SELECT period, thresholds FROM budget_announced WHERE project_id = ?", arguments: [projectID])
        }.map { row in
            let text: String = row[1]
            return (row[0], Set(text.split(separator: ",").compactMap { Int($0).flatMap(BudgetThreshold.init(rawValue:)) }))
        }
    }

    public func saveBudgetAnnounced(_ projectID: String, period: String, thresholds: Set<BudgetThreshold>) throws {
        try writeOrThrow { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO budget_announced (project_id, period, thresholds) VALUES (?, ?, ?)",
                arguments: [projectID, period, thresholds.map(\.rawValue).sorted().map(String.init).joined(separator: ",")])
        }
    }
}
