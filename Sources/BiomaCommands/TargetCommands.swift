import ArgumentParser
import BiomaText
import CContract
import DBusCore
import TimerControl

// `biomatimer target …`: the daily work targets (`SetTargets`, `ListTargets`).

struct TargetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "target", abstract: "Set or show the daily work targets and the balance.",
        discussion: """
            Values set here are kept in the store and beat the config file's target / target_mon … \
            target_sun, weekday by weekday. Lengths: 8h, 7h30m, 7:30, 0 (no target); \(DurationText.colonForms).
            """,
        subcommands: [TargetSet.self, TargetShow.self])
}

/// The weekday keys of `SetTargets` and `ListTargets`, Monday first.
private let weekdayKeys = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

/// A length as `target set` reads it; a bad one is a usage error naming the option.
private func targetLength(_ text: String, option: String) throws -> Int64 {
    do {
        return try DurationText.read(text, what: option, max: 24 * 3_600_000_000, allowZero: true)
    } catch {
        throw ValidationError(error.message)
    }
}

struct TargetSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set the target of every day, or of some weekdays.",
        discussion: "Examples: `biomatimer target set 8h`, `biomatimer target set --mon 8h --fri 6h --sat 0`.")
    @Argument(help: "The target of every day (LENGTH).") var daily: String?
    @Option(parsing: .unconditional, help: "Monday's target.") var mon: String?
    @Option(parsing: .unconditional, help: "Tuesday's target.") var tue: String?
    @Option(parsing: .unconditional, help: "Wednesday's target.") var wed: String?
    @Option(parsing: .unconditional, help: "Thursday's target.") var thu: String?
    @Option(parsing: .unconditional, help: "Friday's target.") var fri: String?
    @Option(parsing: .unconditional, help: "Saturday's target.") var sat: String?
    @Option(parsing: .unconditional, help: "Sunday's target.") var sun: String?

    /// The `SetTargets` entries: `Daily` and the weekdays given.
    func entries() throws -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = []
        if let daily { entries.append(("Daily", .int64(try targetLength(daily, option: "target")))) }
        for (key, value) in zip(weekdayKeys, [mon, tue, wed, thu, fri, sat, sun]) {
            if let value { entries.append((key, .int64(try targetLength(value, option: "--" + key.lowercased())))) }
        }
        guard !entries.isEmpty else { throw ValidationError("Give a LENGTH for every day, or --mon … --sun.") }
        return entries
    }

    func validate() throws { _ = try entries() }

    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_SET_TARGETS, [.vardict(ordered: try entries())])
    }
}

struct TargetShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show each weekday's target and where it comes from, today's progress and the balance.")
    @Flag(help: "JSON for scripts.") var json = false

    func run() throws {
        let client = try daemonClient()
        let listing = try client.call(BIOMATIMER_TIMER1_LIST_TARGETS).first.flatMap(TargetsListing.init) ?? TargetsListing()
        let status = try client.state(WorkStatus.self)
        let (days, since, sinceSource) = (listing.days, listing.balanceSince, listing.balanceSinceSource)
        let now = commandNow()
        let elapsed = status.running ? max(0, now - status.updatedAt) : 0
        let worked = status.dailyTotal + elapsed
        let balance = status.balance + elapsed
        if json {
            say(
                JSON.fields([
                    (
                        "days",
                        .array(
                            days.map {
                                .fields([("day", .string($0.day)), ("target", .int($0.target)), ("source", .string($0.source))])
                            })
                    ),
                    ("today", .string(status.day)), ("daily_target", .int(status.dailyTarget)), ("daily_total", .int(worked)),
                    ("balance", .int(balance)), ("balance_since", .string(since)),
                    ("balance_since_source", .string(sinceSource)),
                ]).text)
            return
        }
        for day in days {
            let value = day.target > 0 ? DurationClock.hoursMinutes(day.target) : "—"
            say("\(day.day)  \(Terminal.pad(value, 6)) \(day.source)")
        }
        if status.dailyTarget > 0 {
            say("Today \(status.day): \(DurationClock.hoursMinutes(worked)) of \(DurationClock.hoursMinutes(status.dailyTarget))")
        } else {
            say("Today \(status.day): \(DurationClock.hoursMinutes(worked)), no target")
        }
        say("Balance since \(since) (\(sinceSource)): \(DurationClock.signed(balance))")
    }
}
