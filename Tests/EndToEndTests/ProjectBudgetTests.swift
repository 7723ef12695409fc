import BiomaCore
@testable import BiomaStore
import DBusKit
import Foundation
import Testing

import TestSupport

@testable import BiomaDaemon
import StoreTestSupport

/// Project budgets in process, on a private bus with an injected clock (in 2027, so the real
/// timer never fires during the test) and python3-dbusmock's notification server: the rows and
/// properties, the 80 % and 100 % notices once per period at the instants they are crossed, a
/// new week announcing again, and bad input changing nothing.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct ProjectBudgetTests {
    static func at(_ text: String) -> Micros { t(text) }

    final class Setup: @unchecked Sendable {
        let bus: PrivateBus
        let data: URL
        let server: NotificationServer
        let clock: ManualClock
        let tracker: Tracker
        let service: Bus
        let timer: WorkService
        let deadlines: Deadlines
        let client: BlockingBus

        init() throws {
            bus = try PrivateBus()
            data = try makeTemporaryDirectory("biomatimer-budget")
            server = try NotificationServer(busAddress: bus.address)
            clock = ManualClock(ProjectBudgetTests.at("2027-03-01T08:00:00+01:00"))  // a Monday
            tracker = try Tracker(dataDirectory: data, rules: DayRules(timeZone: zone("Europe/Berlin")), now: clock.now(), bootID: "b")
            service = try Bus(.address(bus.address))
            let parts = DaemonParts(tracker: tracker, bus: service, clock: clock, data: data, settings: .inProcess { $0.notifications = true })
            timer = parts.timer
            let (object, notifier) = (parts.object, parts.notifier)
            try object.export(on: service)
            try service.requestName(ContractNames.busName)
            let loop = service.loop
            deadlines = try service.sync { () throws(BusError) in
                try notifier.start()
                let deadlines = try Deadlines(loop: loop)
                object.attach(deadlines)
                return deadlines
            }
            client = try BlockingBus(.address(bus.address))
        }

        deinit {
            service.close()
            try? FileManager.default.removeItem(at: data)
        }

        @discardableResult
        func call(_ member: String, _ arguments: [DBusValue] = [], at instant: String) throws -> [DBusValue] {
            clock.set(ProjectBudgetTests.at(instant))
            return try client.call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: member,
                arguments)
        }

        /// The wake-up for the next threshold.
        func due() throws -> Micros? {
            let (timer, deadlines) = (timer, deadlines)
            return try service.sync { timer.budgets.due.flatMap { deadlines.instant(of: $0) } }
        }

        /// A publication at `instant` (what the wake-up does).
        func wake(at instant: String) throws {
            clock.set(ProjectBudgetTests.at(instant))
            let timer = timer
            try service.sync { () throws(BusError) in timer.checkDayBoundary() }
        }

        func summaries() throws -> [String] { try server.notifications().map(\.body) }

        func row() throws -> ProjectListing {
            ProjectListing.rows(try call("ListProjects", at: "2027-03-01T08:00:00+01:00").first)[0]
        }
    }

    @Test func theTwoNoticesComeOncePerPeriodAtTheirInstants() throws {
        let s = try Setup()
        try s.call("AddProject", [.string("Client A"), .string("")], at: "2027-03-01T08:00:00+01:00")
        try s.call(
            "UpdateProject", [.string("Client A"), .vardict(["Budget": .int64(2 * hour), "BudgetPeriod": .string("week")])],
            at: "2027-03-01T08:00:00+01:00")
        #expect(try s.due() == nil, "nothing runs")
        try s.call("StartProject", [.string("Client A")], at: "2027-03-01T09:00:00+01:00")
        // 80 % of 2 h is 1:36.
        #expect(try s.due() == Self.at("2027-03-01T10:36:00+01:00"))
        try s.wake(at: "2027-03-01T10:00:00+01:00")
        let p = try s.client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string(ContractNames.interface)]
        ).first?.vardict ?? [:]
        #expect(p["ProjectBudget"] == .int64(2 * hour) && p["ProjectBudgetUsed"] == .int64(hour))
        #expect(try s.summaries().isEmpty)
        try s.wake(at: "2027-03-01T10:36:00+01:00")
        #expect(waitUntil(timeout: 5) { (try? s.summaries()) == ["Client A: 80 % of the week's budget used (1:36/2:00)"] })
        #expect(try s.due() == Self.at("2027-03-01T11:00:00+01:00"))
        try s.wake(at: "2027-03-01T11:00:00+01:00")
        #expect(waitUntil(timeout: 5) { (try? s.summaries().count) == 2 })
        #expect(try s.summaries().last == "Client A: 100 % of the week's budget used (2:00/2:00)")
        #expect(try s.due() == nil, "both announced")
        // A stop and a start the same week repeat nothing; the row says where the week stands.
        try s.call("Stop", at: "2027-03-01T11:30:00+01:00")
        try s.call("StartProject", [.string("Client A")], at: "2027-03-02T09:00:00+01:00")
        try s.call("Stop", at: "2027-03-02T10:00:00+01:00")
        let row = try s.row()
        #expect(row.budget == 2 * hour && row.budgetPeriod == "week" && row.budgetUsed == Micros(3.5 * Double(hour)))
        #expect(try s.server.notifications().count == 2)
        #expect(try s.tracker.targets.budgetAnnounced(s.tracker.projects[0].id)?.thresholds == [.eighty, .full])
        // Next week: a new period, announced again — here crossed at once by an added interval,
        // which shows only the 100 % notice.
        try s.call(
            "AddInterval",
            [
                .int64(Self.at("2027-03-08T08:00:00+01:00")), .int64(Self.at("2027-03-08T10:30:00+01:00")), .string("Client A"),
                .vardict([:]),
            ],
            at: "2027-03-08T12:00:00+01:00")
        #expect(waitUntil(timeout: 5) { (try? s.summaries().count) == 3 })
        #expect(try s.summaries().last == "Client A: 100 % of the week's budget used (2:30/2:00)")
    }

    @Test func badBudgetsChangeNothing() throws {
        let s = try Setup()
        try s.call("AddProject", [.string("Client A"), .string("")], at: "2027-03-01T08:00:00+01:00")
        let before = try s.tracker.dumpForTesting()
        for changes: [String: DBusValue] in [
            ["Budget": .int64(-5)], ["Budget": .int64(hour), "BudgetPeriod": .string("fortnight")],
            ["BudgetPeriod": .string("week")], ["Budget": .int64(0), "BudgetPeriod": .string("month")],
            ["Budget": .string("20h")], ["Budget": .int64(200_000 * hour)],
        ] {
            #expect(throws: BusError.self, "\(changes)") {
                try s.call("UpdateProject", [.string("Client A"), .vardict(changes)], at: "2027-03-01T08:00:00+01:00")
            }
        }
        #expect(try s.tracker.dumpForTesting() == before)
        // Budget 0 removes one that is there.
        try s.call(
            "UpdateProject", [.string("Client A"), .vardict(["Budget": .int64(hour), "BudgetPeriod": .string("total")])],
            at: "2027-03-01T08:00:00+01:00")
        #expect(try s.row().budgetPeriod == "total")
        try s.call("UpdateProject", [.string("Client A"), .vardict(["Budget": .int64(0)])], at: "2027-03-01T08:00:00+01:00")
        #expect(try s.row().budget == 0 && s.row().budgetPeriod == "")
    }
}

/// `project edit --budget` through the real front and daemon: the budget in `project list` and
/// its JSON; bad budgets are usage errors that change nothing.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct ProjectBudgetCommandTests {
    @Test func editListAndBadInput() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A"])
        let before = try f.durableState()
        for arguments in [
            ["--budget", "-5h"], ["--budget", "20h", "--per", "fortnight"], ["--per", "week"], ["--budget", "none", "--per", "week"],
            ["--budget", "0"], ["--budget", "soon"], [],
        ] {
            let result = try f.cli(["project", "edit", "Client A"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.isEmpty)
        }
        #expect(try f.durableState() == before)
        try f.cliOK(["project", "edit", "Client A", "--budget", "20h", "--per", "month"])
        #expect(try f.cliOK(["project", "list"]).stdout.contains("budget 0:00/20:00 month"))
        let json = try f.cliOK(["project", "list", "--json"]).stdout
        #expect(json.contains(#""budget":72000000000"#) && json.contains(#""budget_period":"month""#) && json.contains(#""budget_used":0"#))
        try f.cliOK(["project", "edit", "Client A", "--budget", "none"])
        #expect(try f.cliOK(["project", "list", "--json"]).stdout.contains(#""budget":null"#))
    }
}
