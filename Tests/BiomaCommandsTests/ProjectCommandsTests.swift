import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// `project …` and `client …`: the Timer1 calls each line makes and what it prints.
@Suite struct ProjectCommandsTests {
    static let (hour, minute) = (Moment.hour, Moment.minute)

    static func listing(
        _ id: String, _ name: String, running: Bool = false, session: Int64 = 0, daily: Int64 = 0, budget: (Int64, String, Int64)? = nil,
        client: (String, String)? = nil, rate: (Int64, String)? = nil, billable: Bool = true
    ) -> ProjectListing {
        var row = ProjectListing()
        (row.id, row.name, row.color, row.running, row.sessionTime, row.dailyTotal) = (id, name, "#007AFF", running, session, daily)
        if let (amount, period, used) = budget { (row.budget, row.budgetPeriod, row.budgetUsed) = (amount, period, used) }
        if let (id, name) = client { (row.client, row.clientName) = (id, name) }
        if let (amount, currency) = rate { (row.rate, row.currency) = (amount, currency) }
        row.billable = billable
        return row
    }

    static func client(_ id: String, _ name: String, rate: Int64 = 0, currency: String = "", projects: UInt32 = 0) -> ClientListing {
        var row = ClientListing()
        (row.id, row.name, row.rate, row.currency, row.projects) = (id, name, rate, currency, projects)
        return row
    }

    static let clients = ClientListing.list([client("c1", "ACME", rate: 9000, currency: "EUR", projects: 2), client("c2", "Beta\u{1B}[2J", projects: 1)])
    static let edit = BIOMATIMER_TIMER1_UPDATE_PROJECT

    static let successes: [Line] = [
        Line(
            ["project", "list"], BIOMATIMER_TIMER1_LIST_PROJECTS,
            answer: [
                ProjectListing.list([
                    listing("p1", "Client A", running: true, session: 135 * 1_000_000, daily: 5445 * 1_000_000),
                    listing("p2", "R&D\u{1B}[31m", budget: (20 * hour, "week", 12 * hour + 30 * minute)),
                ])
            ],
            out: "▶ ● Client A                     0:02:15 (1:30:45)  [p1]\n"
                + "  ● R&D [31m                     0:00:00 (0:00:00)  [p2]  budget 12:30/20:00 week\n"),
        Line(
            ["project", "list"], BIOMATIMER_TIMER1_LIST_PROJECTS,
            answer: [
                ProjectListing.list([
                    listing("p1", "Site", client: ("c1", "ACME"), rate: (9000, "EUR")), listing("p2", "Internal", billable: false),
                    listing("p3", "App", client: ("c1", "ACME"), rate: (11050, "EUR")), listing("p4", "Ops", client: ("c2", "Beta")),
                ])
            ],
            out: "ACME\n    ● Site                         0:00:00 (0:00:00)  [p1]  90.00 EUR/h\n"
                + "    ● App                          0:00:00 (0:00:00)  [p3]  110.50 EUR/h\n"
                + "Beta\n    ● Ops                          0:00:00 (0:00:00)  [p4]\n"
                + "no client\n    ● Internal                     0:00:00 (0:00:00)  [p2]  not billed\n"),
        Line(
            ["project", "list"], BIOMATIMER_TIMER1_LIST_PROJECTS, answer: [ProjectListing.list([])],
            out: "No projects yet. Add one with: biomatimer project add NAME [--color #RRGGBB]\n"),
        Line(
            ["project", "list", "--json"], BIOMATIMER_TIMER1_LIST_PROJECTS,
            answer: [
                ProjectListing.list([
                    listing("p1", "Site", running: true, session: 60_000_000, daily: 120_000_000, client: ("c1", "ACME"), rate: (9000, "EUR")),
                    listing("p2", "R&D", budget: (20 * hour, "week", hour), billable: false),
                ])
            ],
            out: "[{\"billable\":true,\"budget\":null,\"budget_period\":null,\"budget_used\":null,\"client\":\"c1\",\"client_name\":\"ACME\","
                + "\"color\":\"#007AFF\",\"currency\":\"EUR\",\"daily_total\":120000000,\"id\":\"p1\",\"name\":\"Site\",\"position\":0,"
                + "\"rate\":9000,\"running\":true,\"session_time\":60000000},"
                + "{\"billable\":false,\"budget\":72000000000,\"budget_period\":\"week\",\"budget_used\":3600000000,\"client\":null,"
                + "\"client_name\":null,\"color\":\"#007AFF\",\"currency\":null,\"daily_total\":0,\"id\":\"p2\",\"name\":\"R&D\",\"position\":0,"
                + "\"rate\":null,\"running\":false,\"session_time\":0}]\n"),
        Line(
            ["project", "add", "Client A", "--color", "#112233"], BIOMATIMER_TIMER1_ADD_PROJECT, [.string("Client A"), .string("#112233")],
            answer: [.string("p7")], out: "p7\n"),
        Line(
            ["project", "add", "Site", "--client", "acme", "--rate", "110.50", "--currency", "EUR", "--billable", "yes"],
            calls: [
                timer(BIOMATIMER_TIMER1_LIST_CLIENTS), timer(BIOMATIMER_TIMER1_ADD_PROJECT, [.string("Site"), .string("")]),
                timer(
                    edit,
                    [
                        .string("p8"),
                        .vardict(ordered: [
                            ("Client", .string("acme")), ("Rate", .string("110.50")), ("Currency", .string("EUR")), ("Billable", .boolean(true)),
                        ]),
                    ]),
            ],
            answers: [BIOMATIMER_TIMER1_LIST_CLIENTS: [clients], BIOMATIMER_TIMER1_ADD_PROJECT: [.string("p8")]], out: "p8\n"),
        Line(
            ["project", "add", "Internal", "--client", "none", "--billable", "no"],
            calls: [
                timer(BIOMATIMER_TIMER1_ADD_PROJECT, [.string("Internal"), .string("")]),
                timer(edit, [.string("p9"), .vardict(ordered: [("Client", .string("")), ("Billable", .boolean(false))])]),
            ],
            answers: [BIOMATIMER_TIMER1_ADD_PROJECT: [.string("p9")]], out: "p9\n"),
        Line(["project", "start", "Client A"], BIOMATIMER_TIMER1_START_PROJECT, [.string("Client A")]),
        Line(
            ["project", "start", "p1", "+call"],
            calls: [timer(BIOMATIMER_TIMER1_START_PROJECT, [.string("p1")]), timer(BIOMATIMER_TIMER1_TAG_RUNNING, [.strings(["call"]), .strings([])])]),
        Line(["project", "stop"], BIOMATIMER_TIMER1_STOP_PROJECT),
        Line(["project", "toggle", "p1"], BIOMATIMER_TIMER1_TOGGLE_PROJECT, [.string("p1")]),
        Line(["project", "next"], BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(1)]),
        Line(["project", "prev"], BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(-1)]),
        Line(["project", "reset", "p1"], BIOMATIMER_TIMER1_RESET_PROJECT, [.string("p1")]),
        Line(
            ["project", "edit", "p1", "--budget", "20h", "--per", "Month"], edit,
            [.string("p1"), .vardict(ordered: [("Budget", .int64(20 * hour)), ("BudgetPeriod", .string("month"))])]),
        Line(["project", "edit", "p1", "--budget", "none"], edit, [.string("p1"), .vardict(ordered: [("Budget", .int64(0))])]),
        Line(
            ["project", "edit", "p1", "--name", "Site", "--color", "#abcdef", "--budget", "7h30m", "--client", "c1", "--rate", "none"], edit,
            [
                .string("p1"),
                .vardict(ordered: [
                    ("Name", .string("Site")), ("Color", .string("#abcdef")), ("Budget", .int64(7 * hour + 30 * minute)),
                    ("BudgetPeriod", .string("week")), ("Client", .string("c1")), ("Rate", .string("")),
                ]),
            ]),
        Line(["project", "rename", "p1", "Site"], edit, [.string("p1"), .vardict(["Name": .string("Site")])]),
        Line(["project", "color", "p1", "#FF0000"], edit, [.string("p1"), .vardict(["Color": .string("#FF0000")])]),
        Line(["project", "move", "p1", "0"], edit, [.string("p1"), .vardict(["Position": .uint32(0)])]),
        Line(["project", "delete", "p1", "--yes"], BIOMATIMER_TIMER1_DELETE_PROJECT, [.string("p1")]),
        Line(
            ["client", "list"], BIOMATIMER_TIMER1_LIST_CLIENTS, answer: [clients],
            out: "ACME                         90.00 EUR/h        2 projects   [c1]\n"
                + "Beta [2J                     no rate            1 project    [c2]\n"),
        Line(
            ["client", "list"], BIOMATIMER_TIMER1_LIST_CLIENTS, answer: [ClientListing.list([])],
            out: "No clients yet. Add one with: biomatimer client add NAME [--rate 90 --currency EUR]\n"),
        Line(
            ["client", "list", "--json"], BIOMATIMER_TIMER1_LIST_CLIENTS, answer: [clients],
            out: "[{\"currency\":\"EUR\",\"id\":\"c1\",\"name\":\"ACME\",\"projects\":2,\"rate\":9000},"
                + "{\"currency\":null,\"id\":\"c2\",\"name\":\"Beta\\u001b[2J\",\"projects\":1,\"rate\":null}]\n"),
        Line(
            ["client", "add", "ACME", "--rate", "87.50", "--currency", "EUR"], BIOMATIMER_TIMER1_ADD_CLIENT,
            [.string("ACME"), .vardict(ordered: [("Rate", .string("87.50")), ("Currency", .string("EUR"))])], answer: [.string("c3")], out: "c3\n"),
        Line(["client", "add", "Beta"], BIOMATIMER_TIMER1_ADD_CLIENT, [.string("Beta"), .vardict(ordered: [])], answer: [.string("c4")], out: "c4\n"),
        Line(
            ["client", "edit", "acme", "--name", "ACME Corp", "--rate", "None", "--currency", "USD"], BIOMATIMER_TIMER1_UPDATE_CLIENT,
            [.string("acme"), .vardict(ordered: [("Name", .string("ACME Corp")), ("Rate", .string("")), ("Currency", .string("USD"))])]),
        Line(["client", "remove", "c2"], BIOMATIMER_TIMER1_DELETE_CLIENT, [.string("c2")]),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// `project add --client`: an unknown client is refused before anything is made; a refused
    /// rate takes the new project away again, so the failed line changes nothing.
    @Test func aProjectWithBillingIsAddedWhole() {
        let unknown = StandInDaemon(answers: [BIOMATIMER_TIMER1_LIST_CLIENTS: [Self.clients]])
        #expect(
            run(["project", "add", "Site", "--client", "Gamma"], daemon: unknown)
                == Outcome(code: 1, out: "", err: "biomatimer: No client named or with id 'Gamma' (`biomatimer client list` shows them).\n"))
        #expect(unknown.calls == [timer(BIOMATIMER_TIMER1_LIST_CLIENTS)])
        // A rate whose decimals only the daemon can check (the currency is the client's).
        let rate = ClientFailure(exitCode: ExitCode.refused, "Rate '12.505' has more decimals than EUR has (2).")
        let refused = StandInDaemon(answers: [BIOMATIMER_TIMER1_ADD_PROJECT: [.string("p8")]], refusals: [Self.edit: rate])
        #expect(
            run(["project", "add", "Site", "--rate", "12.505"], daemon: refused)
                == Outcome(code: 1, out: "", err: "biomatimer: Rate '12.505' has more decimals than EUR has (2).\n"))
        #expect(
            refused.calls == [
                timer(BIOMATIMER_TIMER1_ADD_PROJECT, [.string("Site"), .string("")]),
                timer(Self.edit, [.string("p8"), .vardict(ordered: [("Rate", .string("12.505"))])]),
                timer(BIOMATIMER_TIMER1_DELETE_PROJECT, [.string("p8")]),
            ])
        expectRefusal(of: BIOMATIMER_TIMER1_TAG_RUNNING, in: Self.successes[8], calls: 2)
    }

    /// Deleting asks first: on the caller's terminal, or (in the daemon) through the caller.
    @Test func deletingAsks() {
        let daemon = StandInDaemon()
        #expect(
            run(["project", "delete", "R&D\u{1B}[2J"], daemon: daemon, daemonSide: true, stdinTTY: true)
                == Outcome(code: ExitCode.confirm, out: "", err: "Delete project R&D [2J and all its recorded time? [y/N] "))
        #expect(
            run(["project", "delete", "p1"], daemon: daemon, stdinTTY: true, answer: "")
                == Outcome(code: 1, out: "", err: "biomatimer: Nothing was changed.\n"))
        #expect(daemon.calls.isEmpty)
        #expect(run(["project", "delete", "p1"], daemon: daemon, daemonSide: true, stdinTTY: true, answer: "yes\n") == Outcome(code: 0, out: "", err: ""))
        #expect(daemon.calls == [timer(BIOMATIMER_TIMER1_DELETE_PROJECT, [.string("p1")])])
    }

    static let editUsage =
        "project edit <project> [--name <name>] [--color <color>] [--budget <budget>] [--per <per>] [--client <client>] [--rate <rate>] "
        + "[--currency <currency>] [--billable <billable>]"
    static let addUsage = "project add <name> [--color <color>] [--client <client>] [--rate <rate>] [--currency <currency>] [--billable <billable>]"

    static let usages: [Usage] = [
        Usage(["project", "list", "--all"], "Unknown option '--all'", "project list [--json]"),
        Usage(["project", "add"], "Missing expected argument '<name>'\nHelp:  <name>  1–64 characters, unique ignoring case, not of an id's form (p1, c1, t1).", addUsage),
        Usage(["project", "add", "Site", "--billable", "maybe"], "The value 'maybe' is invalid for '--billable <billable>'. Please provide one of 'yes' and 'no'.\nHelp:  --billable <billable>  Whether it is billed: yes or no.",
            addUsage),
        // A bad value is a usage error (exit 2) before any call, whichever process would find it.
        Usage(["project", "add", "Site", "--color", "red"], "--color: Colour 'red' is not of the form #RRGGBB (six hexadecimal digits, e.g. #007AFF).", addUsage),
        Usage(["project", "add", "Site", "--rate", "abc", "--currency", "EUR"], "--rate: Rate 'abc' is not an amount per hour such as 90 or 87.50.", addUsage),
        Usage(["project", "add", "Site", "--rate", "-5"], "--rate: A rate cannot be negative: '-5'.", addUsage),
        Usage(["project", "add", "Site", "--rate", "90", "--currency", "XYZ"], "--currency: Currency 'XYZ' is not an ISO 4217 code (EUR, USD, GBP, JPY, CHF, …).", addUsage),
        Usage(["project", "add", "Site", "--rate", "90.123", "--currency", "EUR"], "--rate: Rate '90.123' has more decimals than EUR has (2).", addUsage),
        Usage(["project", "color", "p1", "blue"], "COLOR: Colour 'blue' is not of the form #RRGGBB (six hexadecimal digits, e.g. #007AFF).", "project color <project> <color>"),
        Usage(["project", "start"], "Missing expected argument '<project>'\nHelp:  <project>  ", "project start <project> [<tags> ...]"),
        Usage(["project", "start", "p1", "call"], "'call' is not a tag: tags are written +word.", "project start <project> [<tags> ...]"),
        Usage(["project", "stop", "p1"], "Unexpected argument 'p1'", "project stop"),
        Usage(["project", "toggle"], "Missing expected argument '<project>'\nHelp:  <project>  ", "project toggle <project>"),
        Usage(["project", "next", "2"], "Unexpected argument '2'", "project next"),
        Usage(["project", "prev", "2"], "Unexpected argument '2'", "project prev"),
        Usage(["project", "reset"], "Missing expected argument '<project>'\nHelp:  <project>  ", "project reset <project>"),
        Usage(["project", "edit", "p", "--budget", "0"], "--budget 0 is zero: use --budget none to remove it.", editUsage),
        Usage(["project", "edit", "p", "--budget", "5h", "--per", "fortnight"], "--per fortnight is not a budget period: use week, month or total.", editUsage),
        Usage(["project", "edit", "p", "--per", "week"], "--per goes with --budget.", editUsage),
        Usage(["project", "edit", "p"], "Give --name, --color, --budget, --client, --rate, --currency or --billable.", editUsage),
        Usage(["project", "rename", "p1"], "Missing expected argument '<name>'\nHelp:  <name>  The new name.", "project rename <project> <name>"),
        Usage(["project", "color", "p1"], "Missing expected argument '<color>'\nHelp:  <color>  #RRGGBB", "project color <project> <color>"),
        Usage(["project", "move", "p1", "first"], "The value 'first' is invalid for '<position>'\nHelp:  <position>  ", "project move <project> <position>"),
        Usage(["project", "delete", "p1"], "There is no terminal to ask for confirmation on: pass --yes.", "project delete <project> [--yes]"),
        Usage(["client", "list", "x"], "Unexpected argument 'x'", "client list [--json]"),
        Usage(["client", "add", "ACME", "--rate", "90"], "--rate needs --currency (EUR, USD, …).", "client add <name> [--rate <rate>] [--currency <currency>]"),
        Usage(["client", "edit", "acme"], "Give --name, --rate or --currency.", "client edit <client> [--name <name>] [--rate <rate>] [--currency <currency>]"),
        Usage(["client", "remove"], "Missing expected argument '<client>'\nHelp:  <client>  ", "client remove <client>"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
