import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// `task …` (org.biomatimer.Tasks1) and `taskwarrior OLD NEW`, what Taskwarrior's hook calls.
@Suite struct TaskCommandsTests {
    static let (hour, minute) = (Moment.hour, Moment.minute)
    static let tasksInterface = ContractNames.tasksInterface

    static func work(running: Bool = false, project: (String, String)? = nil) -> [String: [String: DBusValue]] {
        var status = WorkStatus()
        (status.running, status.day) = (running, "2026-11-24")
        if let (id, name) = project { (status.activeProject, status.activeProjectName) = (id, name) }
        status.projects = [ProjectSummary(id: "p1", name: "Site", color: "#112233"), ProjectSummary(id: "p2", name: "R&D\u{1B}[2J", color: "#445566")]
        return [ContractNames.interface: WorkStatus.table.values(of: status)]
    }

    static func task(_ id: String, _ title: String, due: Int64 = 0, project: String = "", done: Bool = false) -> TaskListing {
        var row = TaskListing()
        (row.id, row.title, row.project, row.due, row.remind, row.done) = (id, title, project, due, due != 0, done)
        row.doneAt = done ? Moment.today(9) : 0
        return row
    }

    static let list = TaskListing.list([
        task("t1", "Call the bank", due: Moment.today(9, 30), project: "p1"),
        task("t2", "Send\ninvoice", due: Moment.today(9, days: 1), project: "p2"),
        task("t5", "Read", due: Moment.today(9, days: 6)),
        task("t3", "Water plants", project: "gone"),
        task("t4", "Backup", done: true),
    ])

    static let successes: [Line] = [
        Line(
            ["task", "add", "Call the bank", "--project", "p1"], on: tasksInterface, BIOMATIMER_TASKS1_ADD_TASK,
            [.string("Call the bank"), .vardict(["Project": .string("p1")])], answer: [.string("t3")], out: "t3\n"),
        Line(
            ["task", "add", "Pay rent", "--due", "tomorrow 09:00", "--no-remind"], on: tasksInterface, BIOMATIMER_TASKS1_ADD_TASK,
            [.string("Pay rent"), .vardict(["Due": .int64(Moment.today(9, days: 1)), "Remind": .boolean(false)])], answer: [.string("t6")],
            out: "t6\n"),
        Line(
            ["task", "add", "Tea", "--due", "+2h"], on: tasksInterface, BIOMATIMER_TASKS1_ADD_TASK,
            [.string("Tea"), .vardict(["Due": .int64(Moment.now + 2 * hour)])], answer: [.string("t7")], out: "t7\n"),
        Line(
            ["task", "list", "--all"],
            calls: [tasks(BIOMATIMER_TASKS1_LIST_TASKS, [.boolean(true)]), .getAll(ContractNames.interface)],
            answers: [BIOMATIMER_TASKS1_LIST_TASKS: [list]], properties: work(),
            out: "t1    due   09:30             Call the bank  [Site]\n"
                + "t2          tomorrow 09:00    Send invoice  [R&D [2J]\n"
                + "t5          2026-11-30 09:00  Read\n"
                + "t3                            Water plants\n"
                + "t4    done                    Backup\n"),
        Line(
            ["task", "list"], calls: [tasks(BIOMATIMER_TASKS1_LIST_TASKS, [.boolean(false)]), .getAll(ContractNames.interface)],
            properties: work(), out: "No open tasks.\n"),
        Line(
            ["task", "list", "--all"], calls: [tasks(BIOMATIMER_TASKS1_LIST_TASKS, [.boolean(true)]), .getAll(ContractNames.interface)],
            properties: work(), out: "No tasks yet. Add one with: biomatimer task add TITLE [--due WHEN]\n"),
        Line(
            ["task", "list", "--json"], calls: [tasks(BIOMATIMER_TASKS1_LIST_TASKS, [.boolean(false)]), .getAll(ContractNames.interface)],
            answers: [BIOMATIMER_TASKS1_LIST_TASKS: [TaskListing.list([task("t1", "Call", due: Moment.today(9, 30), project: "p1"), task("t4", "Backup", done: true)])]],
            properties: work(),
            out: "[{\"done\":false,\"done_at\":null,\"due\":1795509000000000,\"id\":\"t1\",\"project\":\"p1\",\"project_name\":\"Site\","
                + "\"remind\":true,\"title\":\"Call\"},{\"done\":true,\"done_at\":1795507200000000,\"due\":null,\"id\":\"t4\",\"project\":\"\","
                + "\"project_name\":\"\",\"remind\":false,\"title\":\"Backup\"}]\n"),
        Line(["task", "done", "t3"], on: tasksInterface, BIOMATIMER_TASKS1_COMPLETE_TASK, [.string("t3")]),
        Line(["task", "reopen", "t3"], on: tasksInterface, BIOMATIMER_TASKS1_REOPEN_TASK, [.string("t3")]),
        Line(["task", "delete", "t3"], on: tasksInterface, BIOMATIMER_TASKS1_DELETE_TASK, [.string("t3")]),
        Line(["task", "snooze", "t3", "1:30"], on: tasksInterface, BIOMATIMER_TASKS1_SNOOZE_TASK, [.string("t3"), .int64(90 * minute)]),
        Line(["task", "snooze", "t3"], on: tasksInterface, BIOMATIMER_TASKS1_SNOOZE_TASK, [.string("t3"), .int64(0)]),
        Line(
            ["task", "edit", "t3", "--title", "Call Anna", "--due", "15:00", "--remind", "--project", "p2"], on: tasksInterface,
            BIOMATIMER_TASKS1_UPDATE_TASK,
            [
                .string("t3"),
                .vardict(["Title": .string("Call Anna"), "Due": .int64(Moment.today(15)), "Remind": .boolean(true), "Project": .string("p2")]),
            ]),
        Line(
            ["task", "edit", "t3", "--no-due", "--no-project", "--no-remind"], on: tasksInterface, BIOMATIMER_TASKS1_UPDATE_TASK,
            [.string("t3"), .vardict(["Due": .int64(0), "Project": .string(""), "Remind": .boolean(false)])]),
        // Taskwarrior: a task started with a project runs it (made when missing, coloured from its
        // name: FNV-1a of "New\u{1B}" picks #4363D8) with its description as the note.
        Line(
            ["taskwarrior", #"{"description":"Write","status":"pending","project":"Site"}"#,
             #"{"description":"Write","status":"pending","project":"Site","start":"20261124T090000Z"}"#],
            calls: [
                .getAll(ContractNames.interface), timer(BIOMATIMER_TIMER1_LIST_PROJECTS), timer(BIOMATIMER_TIMER1_START_PROJECT, [.string("p1")]),
                timer(BIOMATIMER_TIMER1_SET_NOTE, [.string("Write")]),
            ],
            answers: [BIOMATIMER_TIMER1_LIST_PROJECTS: [ProjectListing.list([{ var p = ProjectListing(); (p.id, p.name) = ("p1", "Site"); return p }()])]],
            properties: work(), out: "biomatimer: tracking Site: Write\n"),
        Line(
            ["taskwarrior", #"{"description":"Plan","status":"pending"}"#, #"{"description":"Plan","project":"New\u001b","start":"x"}"#],
            calls: [
                .getAll(ContractNames.interface), timer(BIOMATIMER_TIMER1_LIST_PROJECTS),
                timer(BIOMATIMER_TIMER1_ADD_PROJECT, [.string("New\u{1B}"), .string("#4363D8")]),
                timer(BIOMATIMER_TIMER1_START_PROJECT, [.string("p3")]), timer(BIOMATIMER_TIMER1_SET_NOTE, [.string("Plan")]),
            ],
            answers: [BIOMATIMER_TIMER1_ADD_PROJECT: [.string("p3")]], properties: work(), out: "biomatimer: tracking New : Plan\n"),
        // Without a project: work starts, and the project that would resume with it stops.
        Line(
            ["taskwarrior", #"{"description":"Mail"}"#, #"{"description":"Mail","start":"x"}"#],
            calls: [
                .getAll(ContractNames.interface), timer(BIOMATIMER_TIMER1_START), .getAll(ContractNames.interface),
                timer(BIOMATIMER_TIMER1_STOP_PROJECT), timer(BIOMATIMER_TIMER1_SET_NOTE, [.string("Mail")]),
            ],
            properties: work(project: ("p1", "Site")), out: "biomatimer: tracking work: Mail\n"),
        // The running task stopped: work stops.
        Line(
            ["taskwarrior", #"{"description":"Write","project":"Site","start":"x"}"#, #"{"description":"Write","project":"Site","status":"completed","start":"x"}"#],
            calls: [
                .getAll(ContractNames.interface), timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-24"), .string("2026-11-24")]),
                timer(BIOMATIMER_TIMER1_STOP),
            ],
            answers: [
                BIOMATIMER_TIMER1_LIST_INTERVALS: [
                    IntervalListing.list([{ var i = IntervalListing(); (i.id, i.start, i.project, i.note) = ("4", Moment.today(9), "p1", "Write"); return i }()])
                ]
            ],
            properties: work(running: true, project: ("p1", "Site")), out: "biomatimer: stopped Site\n"),
        // Another task stopped, or a change that is neither start nor stop: nothing more.
        Line(
            ["taskwarrior", #"{"description":"Other","start":"x"}"#, #"{"description":"Other"}"#],
            calls: [.getAll(ContractNames.interface), timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-24"), .string("2026-11-24")])],
            properties: work(running: true, project: ("p1", "Site"))),
        // A due weekday is the next one: Friday after this Tuesday.
        Line(
            ["task", "add", "Invoice", "--due", "friday 15:00"], on: tasksInterface, BIOMATIMER_TASKS1_ADD_TASK,
            [.string("Invoice"), .vardict(["Due": .int64(Moment.today(15, days: 3))])], answer: [.string("t8")], out: "t8\n"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    @Test func aChangeThatIsNeitherMakesNoCall() {
        let daemon = StandInDaemon()
        #expect(run(["taskwarrior", #"{"description":"A"}"#, #"{"description":"B"}"#], daemon: daemon) == Outcome(code: 0, out: "", err: ""))
        #expect(daemon.calls.isEmpty)
        #expect(
            run(["taskwarrior", "[]", "{}"], daemon: daemon)
                == Outcome(code: 2, out: "", err: "biomatimer: cannot read Taskwarrior's task: a task is a JSON object, not an array\n"))
        #expect(daemon.calls.isEmpty)
    }

    @Test func aRefusalOnTheWayStopsThere() {
        expectRefusal(of: "GetAll", in: Self.successes[3], calls: 2)
        expectRefusal(of: BIOMATIMER_TIMER1_SET_NOTE, in: Self.successes[14], calls: 4)
    }

    static let usages: [Usage] = [
        Usage(["task", "add"], "Missing expected argument '<title>'\nHelp:  <title>  The title, 1–200 characters.", "task add <title> [--due <due>] [--project <project>] [--no-remind]"),
        Usage(["task", "add", "Tea", "--no-remind"], "--no-remind needs --due.", "task add <title> [--due <due>] [--project <project>] [--no-remind]"),
        Usage(
            ["task", "add", "Tea", "--due", "someday"], "--due 'someday' is not a time: use 15:00, tomorrow 09:00, friday 09:00, 2026-11-23 09:00 or +2h.",
            "task add <title> [--due <due>] [--project <project>] [--no-remind]"),
        Usage(["task", "list", "--open"], "Unknown option '--open'. Did you mean '--json'?", "task list [--all] [--json]"),
        Usage(["task", "done"], "Missing expected argument '<id>'\nHelp:  <id>  The task's id (t1, t2, …).", "task done <id>"),
        Usage(["task", "reopen"], "Missing expected argument '<id>'\nHelp:  <id>  The task's id.", "task reopen <id>"),
        Usage(["task", "delete"], "Missing expected argument '<id>'\nHelp:  <id>  The task's id.", "task delete <id>"),
        Usage(["task", "snooze", "t3", "soon"], "DURATION `soon` is not a length: use e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00.", "task snooze <id> [<duration>]"),
        Usage(
            ["task", "edit", "t3"], "Nothing to change: give --title, --due, --no-due, --project, --no-project or --[no-]remind.",
            "task edit <id> [--title <title>] [--due <due>] [--no-due] [--project <project>] [--no-project] [--remind] [--no-remind]"),
        Usage(
            ["task", "edit", "t3", "--due", "15:00", "--no-due"], "--due and --no-due exclude each other.",
            "task edit <id> [--title <title>] [--due <due>] [--no-due] [--project <project>] [--no-project] [--remind] [--no-remind]"),
        Usage(
            ["task", "edit", "t3", "--project", "p1", "--no-project"], "--project and --no-project exclude each other.",
            "task edit <id> [--title <title>] [--due <due>] [--no-due] [--project <project>] [--no-project] [--remind] [--no-remind]"),
        Usage(["taskwarrior", "{}"], "Missing expected argument '<new>'\nHelp:  <new>  The task after it.", "taskwarrior <old> <new>"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
