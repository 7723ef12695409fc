import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// `sync …` (org.biomatimer.Sync1) and `hooks …` (org.biomatimer.Hooks1).
@Suite struct SyncAndHooksTests {
    static let (minute, second) = (Moment.minute, Moment.second)
    static let syncInterface = ContractNames.syncInterface
    static let hooksInterface = ContractNames.hooksInterface

    static func device(_ id: String, _ name: String, lastOp: Int64, readUpTo: Int64, problem: String = "") -> SyncDeviceRow {
        var row = SyncDeviceRow()
        (row.id, row.name, row.lastOp, row.readUpTo, row.problem) = (id, name, lastOp, readUpTo, problem)
        return row
    }

    static func sync(enabled: Bool, behind: UInt32 = 0) -> [String: [String: DBusValue]] {
        var status = SyncStatus()
        (status.enabled, status.deviceId, status.deviceName, status.behind) = (enabled, "a1b2", "laptop", behind)
        if enabled {
            status.folder = "/home/user/Sync"
            status.devices = [
                device("a1b2", "laptop", lastOp: Moment.now - 5 * minute, readUpTo: 42),
                device("c3d4", "desk\u{1B}[2J", lastOp: Moment.today(18, days: -1), readUpTo: 7, problem: "devices/c3d4/log.1:\u{1B}[31m damaged at byte 10"),
                device("e5f6", "", lastOp: 0, readUpTo: 0),
            ]
        }
        return [syncInterface: SyncStatus.table.values(of: status)]
    }

    static func hook(
        _ name: String, _ event: String, problem: String = "", start: Int64 = 0, duration: Int64 = 0, exit: Int64 = -1, outcome: String = "",
        stderr: String = "", running: Int64 = 0
    ) -> HookListing {
        var row = HookListing()
        (row.name, row.event, row.problem, row.lastStart) = (name, event, problem, start)
        (row.lastDuration, row.lastExit, row.lastOutcome, row.lastStderr) = (duration, exit, outcome, stderr)
        row.runningSince = running
        return row
    }

    /// `Hooks1`'s properties: the folder the daemon reads.
    static func hooksFolder(_ folder: String) -> [String: [String: DBusValue]] {
        [hooksInterface: HooksStatus.table.values(of: HooksStatus(folder: folder))]
    }

    static let folder = "/home/user/.config/biomatimer/hooks"
    static let listHooks = StandInDaemon.Call(interface: hooksInterface, member: BIOMATIMER_HOOKS1_LIST_HOOKS, arguments: [])

    static let hooks = HookListing.list([
        hook("on-start.notify", "on-start", start: Moment.today(9, 58), duration: 23_000, exit: 0, outcome: "ok"),
        hook("on-focus-start.dnd", "on-focus-start", start: Moment.today(17, days: -1), duration: 12_340_000, exit: 3, outcome: "exit 3", stderr: "boom\n\u{1B}[2Jbang\n"),
        hook("on-stop.x\u{1B}[2J", "on-stop", problem: "writable by others"),
        hook("on-away.lock", "on-away"),
        hook("on-back.log", "on-back", problem: "not owned by you", start: Moment.today(8), outcome: "skipped: not owned by you"),
        // Running now: shown as running, not as its last run (which failed).
        hook("on-merge.slow", "on-merge", start: Moment.today(9), duration: 2_000_000, exit: 1, outcome: "exit 1", stderr: "old\n", running: Moment.today(9, 59)),
        // Not executable: never run, and a hook that ran before its execute bit went.
        hook("on-project.sh", "on-project", problem: "not executable: chmod +x \(folder)/on-project.sh to run it"),
        hook("on-phase-end.log", "on-phase-end", problem: "not executable: chmod +x \(folder)/on-phase-end.log to run it", start: Moment.today(9, 30), duration: 10_000, exit: 0, outcome: "ok"),
    ])

    static let successes: [Line] = [
        Line(
            ["sync", "enable", "Sync", "--name", "laptop"],
            calls: [.init(interface: syncInterface, member: BIOMATIMER_SYNC1_ENABLE, arguments: [.string("/home/user/Sync"), .string("laptop")]), .getAll(syncInterface)],
            properties: sync(enabled: true), out: "Sync on: /home/user/Sync as laptop (a1b2).\n"),
        Line(
            ["sync", "enable", "/srv/sync"],
            calls: [.init(interface: syncInterface, member: BIOMATIMER_SYNC1_ENABLE, arguments: [.string("/srv/sync"), .string("")]), .getAll(syncInterface)],
            properties: sync(enabled: true), out: "Sync on: /home/user/Sync as laptop (a1b2).\n"),
        Line(
            ["sync", "status"], calls: [.getAll(syncInterface)], properties: sync(enabled: true, behind: 3),
            out: "Folder: /home/user/Sync\n"
                + "* laptop  a1b2  wrote 42, last change 09:55\n"
                + "  desk [2J  c3d4  read 7, last change yesterday 18:00\n"
                + "    problem: devices/c3d4/log.1: [31m damaged at byte 10\n"
                + "  ?  e5f6  read 0\n"
                + "Not merged yet: 3 operations.\n"),
        Line(
            ["sync", "status"], calls: [.getAll(syncInterface)], properties: sync(enabled: false),
            out: "Sync is off. Turn it on with: biomatimer sync enable DIR\n"),
        Line(
            ["sync", "status", "--json"], calls: [.getAll(syncInterface)], properties: sync(enabled: true),
            out: "{\"enabled\":true,\"folder\":\"/home/user/Sync\",\"device_id\":\"a1b2\",\"device_name\":\"laptop\",\"behind\":0,\"devices\":["
                + "{\"id\":\"a1b2\",\"name\":\"laptop\",\"this\":true,\"last_op\":1795510500,\"read_up_to\":42,\"problem\":null},"
                + "{\"id\":\"c3d4\",\"name\":\"desk\\u001b[2J\",\"this\":false,\"last_op\":1795453200,\"read_up_to\":7,"
                + "\"problem\":\"devices/c3d4/log.1:\\u001b[31m damaged at byte 10\"},"
                + "{\"id\":\"e5f6\",\"name\":\"\",\"this\":false,\"last_op\":null,\"read_up_to\":0,\"problem\":null}]}\n"),
        Line(
            ["sync", "status", "--json"], calls: [.getAll(syncInterface)], properties: sync(enabled: false),
            out: "{\"enabled\":false,\"folder\":null,\"device_id\":\"a1b2\",\"device_name\":\"laptop\",\"behind\":0,\"devices\":[]}\n"),
        Line(["sync", "disable"], on: syncInterface, BIOMATIMER_SYNC1_DISABLE, out: "Sync off.\n"),
        Line(
            ["hooks"], calls: [listHooks, .getAll(hooksInterface)], answers: [BIOMATIMER_HOOKS1_LIST_HOOKS: [hooks]],
            properties: hooksFolder(folder),
            out: "Folder: /home/user/.config/biomatimer/hooks\n"
                + "on-start.notify     on-start           09:58, ok, 0.02 s\n"
                + "on-focus-start.dnd  on-focus-start     yesterday 17:00, exit 3, 12.3 s\n"
                + "    boom\n     [2Jbang\n"
                + "on-stop.x [2J       on-stop            skipped: writable by others\n"
                + "on-away.lock        on-away            not run yet\n"
                + "on-back.log         on-back            08:00, skipped: not owned by you\n"
                + "on-merge.slow       on-merge           running since 09:59\n"
                + "on-project.sh       on-project         skipped: not executable: chmod +x /home/user/.config/biomatimer/hooks/on-project.sh to run it\n"
                + "on-phase-end.log    on-phase-end       skipped: not executable: chmod +x /home/user/.config/biomatimer/hooks/on-phase-end.log to run it\n"),
        // The folder the daemon reads, wherever XDG_CONFIG_HOME put it.
        Line(
            ["hooks", "list"], calls: [listHooks, .getAll(hooksInterface)], answers: [BIOMATIMER_HOOKS1_LIST_HOOKS: [HookListing.list([])]],
            properties: hooksFolder("/srv/conf\u{1B}[2J/biomatimer/hooks"),
            out: "No hooks. Put executables named after an event (on-start.NAME, …) in /srv/conf [2J/biomatimer/hooks/.\n"),
        Line(
            ["hooks", "list", "--json"], on: hooksInterface, BIOMATIMER_HOOKS1_LIST_HOOKS,
            answer: [HookListing.list([1, 2, 5].map { HookListing(dbusValue: Self.hooks.array![$0])! })],
            out: "[{\"name\":\"on-focus-start.dnd\",\"event\":\"on-focus-start\",\"problem\":null,\"running_since\":null,\"last_start\":1795449600000000,"
                + "\"last_duration\":12340000,\"last_exit\":3,\"last_outcome\":\"exit 3\",\"last_stderr\":\"boom\\n\\u001b[2Jbang\\n\"},"
                + "{\"name\":\"on-stop.x\\u001b[2J\",\"event\":\"on-stop\",\"problem\":\"writable by others\",\"running_since\":null,\"last_start\":null,"
                + "\"last_duration\":null,\"last_exit\":null,\"last_outcome\":null,\"last_stderr\":null},"
                + "{\"name\":\"on-merge.slow\",\"event\":\"on-merge\",\"problem\":null,\"running_since\":1795510740000000,\"last_start\":1795507200000000,"
                + "\"last_duration\":2000000,\"last_exit\":1,\"last_outcome\":\"exit 1\",\"last_stderr\":\"old\\n\"}]\n"),
        Line(
            ["hooks", "run", "on-start"], on: hooksInterface, BIOMATIMER_HOOKS1_RUN_HOOKS, [.string("on-start")],
            answer: [.strings(["on-start.notify", "on-start.x\u{1B}[2J"])],
            out: "running on-start.notify\nrunning on-start.x [2J\nSee how they went: biomatimer hooks\n"),
        Line(
            ["hooks", "run", "on-stop"], on: hooksInterface, BIOMATIMER_HOOKS1_RUN_HOOKS, [.string("on-stop")], answer: [.strings([])],
            out: "No hook for on-stop.\n"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// Sync turned on but its state not read: the refusal is said, and nothing claims it is on.
    @Test func aRefusalAfterEnablingIsSaid() { expectRefusal(of: "GetAll", in: Self.successes[0], calls: 2) }

    /// The hooks listed but their folder not read: the refusal is said, and no row.
    @Test func aRefusalOfTheHooksFolderIsSaid() {
        let line = Self.successes.first { $0.line == ["hooks"] }!
        expectRefusal(of: "GetAll", in: line, calls: 2)
    }

    static let events =
        "The event: on-start, on-stop, on-project, on-focus-start, on-phase-end, on-focus-stop, on-target-reached, on-budget, on-task-due, "
        + "on-away, on-back, on-merge."

    static let usages: [Usage] = [
        Usage(["sync", "enable"], "Missing expected argument '<directory>'\nHelp:  <directory>  The shared folder.", "sync enable <directory> [--name <name>]"),
        Usage(["sync", "enable", ""], "Give the shared folder: biomatimer sync enable DIR.", "sync enable <directory> [--name <name>]"),
        Usage(["sync", "status", "now"], "Unexpected argument 'now'", "sync status [--json]"),
        Usage(["sync", "disable", "now"], "Unexpected argument 'now'", "sync disable"),
        Usage(["hooks", "list", "on-start"], "Unexpected argument 'on-start'", "hooks list [--json]"),
        Usage(
            ["hooks", "run", "on-nothing"],
            "The value 'on-nothing' is invalid for '<event>'. Please provide one of the following:\n"
                + ["on-start", "on-stop", "on-project", "on-focus-start", "on-phase-end", "on-focus-stop", "on-target-reached", "on-budget",
                   "on-task-due", "on-away", "on-back", "on-merge"].map { "  - \($0)\n" }.joined() + "Help:  <event>  \(events)",
            "hooks run <event>"),
        Usage(["hooks", "run"], "Missing expected argument '<event>'\nHelp:  <event>  \(events)", "hooks run <event>"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
