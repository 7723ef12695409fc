import BiomaCore
import BiomaStore
import DBusKit

/// Project budgets on `org.biomatimer.Timer1`: `ProjectBudget` and `ProjectBudgetUsed` for
/// the running project, the `Budget*` fields of `ListProjects`, and the 80 % and 100 % notices,
/// each once per period (rules in BiomaCore's `Budgets.swift`). Owned by `WorkService`, which
/// adds the running project's budget to what it publishes and calls `check` after each
/// publication; on the loop thread only.
final class ProjectBudgets: @unchecked Sendable {
    let tracker: Tracker
    let notices: GoalNotices
    let log: @Sendable (String) -> Void
    /// The instant the running project's budget crosses its next threshold (a wake-up; the
    /// rule runs at every publication).
    var due: Deadlines.Handle?
    /// The notices shown per project (`v9-budgets`), read from the store the first time.
    var announced: [String: (period: String, thresholds: Set<BudgetThreshold>)] = [:]

    init(tracker: Tracker, notices: GoalNotices, log: @escaping @Sendable (String) -> Void) {
        (self.tracker, self.notices, self.log) = (tracker, notices, log)
    }

    /// Once `notices` is attached.
    func attach() { due = notices.wakeUp() }

    /// The store was replaced (a restore): the notices read from it are gone with it.
    func storeReplaced() { announced = [:] }

    /// `project`'s budget, period and use at `now`; nil when it has none, or when the store
    /// cannot be read (logged: the row then shows no budget).
    func budgetUse(of project: Project, at now: Micros) -> (budget: Budget, window: BudgetWindow, used: Micros)? {
        do {
            return try tracker.targets.budgetUse(of: project, at: now)
        } catch {
            log("cannot read \(project.name)'s budget use (\(error)); it shows none")
            return nil
        }
    }

    /// The running project's budget and its use, at the snapshot's instant.
    func add(to status: inout WorkStatus, _ snapshot: TrackerSnapshot) {
        guard let project = snapshot.activeProject, let use = budgetUse(of: project, at: snapshot.updatedAt) else { return }
        status.projectBudget = use.budget.amount
        status.projectBudgetUsed = use.used
    }

    /// Shows the 80 % and 100 % notices of every budget once per period, when crossed — by
    /// the running project reaching them, or by an edit or an import — and moves the deadline
    /// to the instant the running project reaches its next one.
    func check(_ snapshot: TrackerSnapshot) {
        var next: Micros?
        for project in snapshot.projects where project.budget != nil {
            guard let use = budgetUse(of: project, at: snapshot.updatedAt) else { continue }
            let before = announcement(of: project.id)
            let notice = BudgetNotice(
                budget: use.budget, window: use.window, used: use.used, running: snapshot.activeProject?.id == project.id,
                now: snapshot.updatedAt, announcedBefore: before?.thresholds ?? [], announcedPeriod: before?.period)
            if notice.period != before?.period || notice.announced != before?.thresholds {
                announced[project.id] = (notice.period, notice.announced)
                do {
                    try tracker.targets.saveBudgetAnnounced(project.id, period: notice.period, thresholds: notice.announced)
                } catch {
                    log("cannot record \(project.name)'s budget notice (\(error)); a restart may show it again")
                }
            }
            if let threshold = notice.announce {
                notices.announce(
                    .budget(project: project, threshold: threshold, budget: use.budget, used: use.used), at: snapshot.updatedAt,
                    summary: threshold == .full ? "Budget used up" : "Budget at 80 %",
                    body: BudgetNotice.text(project: project.name, threshold: threshold, budget: use.budget, used: use.used))
            }
            if let deadline = notice.deadline { next = min(next ?? deadline, deadline) }
        }
        notices.schedule(due, at: next)
    }

    /// What was announced for a project: kept in memory, read from the store the first time.
    private func announcement(of projectID: String) -> (period: String, thresholds: Set<BudgetThreshold>)? {
        if let known = announced[projectID] { return known }
        do {
            let stored = try tracker.targets.budgetAnnounced(projectID)
            if let stored { announced[projectID] = stored }
            return stored
        } catch {
            log("cannot read \(projectID)'s budget notices (\(error)); they may show again")
            return nil
        }
    }
}
