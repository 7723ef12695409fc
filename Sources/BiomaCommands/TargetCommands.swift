import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

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

/// The weekdays `--days` names: `mon-fri`, `mon-thu`, `mon,wed,fri`, `sun-thu` (a range
/// may wrap past Sunday), as indices into `weekdayKeys`; a bad one is a usage error.
func weekdays(_ text: String) throws -> Set<Int> {
    func index(_ name: Substring) throws -> Int {
        // `mon` or `monday`, any case (DayText's names, Sunday 0): Monday first here.
        guard let found = DayText.weekday(named: String(name.filter { $0 != " " })).map({ ($0 + 6) % 7 }) else {
            throw ValidationError("--days `\(text)`: `\(name)` is not a weekday: use mon, tue, wed, thu, fri, sat, sun, e.g. mon-fri or mon,wed.")
        }
        return found
    }
    var days: Set<Int> = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        let ends = part.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(ends.count) else {
            throw ValidationError("--days `\(text)`: `\(part)` is not a weekday or a range: use e.g. mon-fri or mon,wed.")
        }
        var day = try index(ends[0])
        let last = try index(ends[ends.count - 1])
        days.insert(day)
        while day != last {
            day = (day + 1) % 7
            days.insert(day)
        }
    }
    return days
}

struct TargetSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set the target of the working days, or of some weekdays.",
        discussion: """
            A target counts from the day it is set: the days before keep what they had (none, or the \
            value before), and the balance starts then unless the config's balance_since says \
            otherwise. `biomatimer target set 8h` means Monday to Friday, 8 hours each, and no target \
            on Saturday and Sunday; --days names other working days. Examples: `biomatimer target set \
            8h`, `biomatimer target set 8h --days mon-thu`, `biomatimer target set --fri 6h --sat 0`.
            """)
    @Argument(help: "The target of each working day (LENGTH); the other days get none.") var daily: String?
    @Option(help: "The working days LENGTH is for (default mon-fri): mon-thu, mon,wed,fri, sun-thu.") var days: String?
    @Option(parsing: .unconditional, help: "Monday's target.") var mon: String?
    @Option(parsing: .unconditional, help: "Tuesday's target.") var tue: String?
    @Option(parsing: .unconditional, help: "Wednesday's target.") var wed: String?
    @Option(parsing: .unconditional, help: "Thursday's target.") var thu: String?
    @Option(parsing: .unconditional, help: "Friday's target.") var fri: String?
    @Option(parsing: .unconditional, help: "Saturday's target.") var sat: String?
    @Option(parsing: .unconditional, help: "Sunday's target.") var sun: String?

    /// The `SetTargets` entries, one per weekday: LENGTH on the working days and 0 on the
    /// others, each weekday option beating it.
    func entries() throws -> [(String, DBusValue)] {
        var values: [Int64?] = Array(repeating: nil, count: 7)
        if let daily {
            let length = try targetLength(daily, option: "target")
            let working = try days.map(weekdays) ?? Set(0..<5)
            values = (0..<7).map { working.contains($0) ? length : 0 }
        } else if days != nil {
            throw ValidationError("--days needs a LENGTH: e.g. `biomatimer target set 8h --days mon-thu`.")
        }
        for (index, (key, value)) in zip(weekdayKeys, [mon, tue, wed, thu, fri, sat, sun]).enumerated() {
            if let value { values[index] = try targetLength(value, option: "--" + key.lowercased()) }
        }
        let entries = zip(weekdayKeys, values).compactMap { key, value in value.map { (key, DBusValue.int64($0)) } }
        guard !entries.isEmpty else { throw ValidationError("Give a LENGTH for the working days, or --mon … --sun.") }
        return entries
    }

    func validate() throws { _ = try entries() }

    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_SET_TARGETS, [.vardict(ordered: try entries())])
    }
}

/// Where the balance starts, in words: `ListTargets`' `BalanceSinceSource`.
func balanceSinceWords(_ source: String) -> String {
    switch source {
    case "config": return "balance_since in the config file"
    case "target-set": return "the day the first target was set"
    case "first-recorded-day": return "the first recorded day"
    default: return "no target is set"
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
                                .fields([
                                    ("day", .string($0.day)), ("target", .int($0.target)), ("source", .string($0.source)),
                                    ("since", $0.since.isEmpty ? .null : .string($0.since)),
                                ])
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
            let from = DayText.words(day.since).map { ", from \($0)" } ?? ""
            say("\(day.day)  \(Terminal.pad(value, 6)) \(day.source)\(from)")
        }
        if status.dailyTarget > 0 {
            say("Today \(status.day): \(DurationClock.hoursMinutes(worked)) of \(DurationClock.hoursMinutes(status.dailyTarget))")
        } else {
            say("Today \(status.day): \(DurationClock.hoursMinutes(worked)), no target")
        }
        if sinceSource == "none" {
            say("No balance: no target is set.")
        } else {
            say("Balance since \(DayText.words(since) ?? since) (\(balanceSinceWords(sinceSource))): \(DurationClock.signed(balance))")
        }
    }
}
