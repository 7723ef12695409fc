import BiomaCore
import DBusKit

/// What the daily targets and the project budgets share: a goal reached is announced once, to
/// the hooks (`Publication.occurred`) and to the user (a notification), and the instant the
/// next one will be is a wake-up that publishes, since the rule itself runs at every
/// publication. On the loop thread only.
final class GoalNotices: @unchecked Sendable {
    let clock: any TimeSource
    /// The object's publication (`WorkService` hands it on when the object sets it).
    var publication: Publication
    let notifier: Notifier?
    var deadlines: Deadlines?

    init(clock: any TimeSource, publication: Publication, notifier: Notifier?) {
        (self.clock, self.publication, self.notifier) = (clock, publication, notifier)
    }

    func attach(_ deadlines: Deadlines) { self.deadlines = deadlines }

    /// A wake-up of a goal's own, once attached. (After a clock change or a resume the day
    /// boundary's handler publishes already.)
    func wakeUp() -> Deadlines.Handle? {
        deadlines?.add { [self] reason in if reason == .due { publication.change(at: clock.now()) {} } }
    }

    /// Moves `wakeUp` to `instant`; none: no goal ahead.
    func schedule(_ wakeUp: Deadlines.Handle?, at instant: Micros?) {
        if let deadlines, let wakeUp { deadlines.schedule(wakeUp, at: instant) }
    }

    func announce(_ occurrence: Occurrence, at now: Micros, summary: String, body: String) {
        publication.occurred(occurrence, at: now)
        notifier?.show(Notifier.Notice(summary: summary, body: body), onAction: { _ in })
    }
}
