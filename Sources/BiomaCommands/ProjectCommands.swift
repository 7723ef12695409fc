import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

struct ProjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project", abstract: "List, add, run and edit projects.",
        discussion: "PROJECT is a project's id or its name (ignoring case).",
        subcommands: [
            ProjectList.self, ProjectAdd.self, ProjectStart.self, ProjectStop.self, ProjectToggle.self, ProjectNext.self,
            ProjectPrev.self, ProjectReset.self, ProjectEdit.self, ProjectRename.self, ProjectColor.self, ProjectMove.self,
            ProjectDelete.self,
        ])
}

struct ProjectList: RowsCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List projects with today's times.")
    static let member = BIOMATIMER_TIMER1_LIST_PROJECTS
    static let none = "No projects yet. Add one with: biomatimer project add NAME [--color #RRGGBB]"
    @Flag(help: "JSON for scripts.") var json = false

    static func sayLines(_ projects: [ProjectListing]) { ProjectLines.say(projects, style: terminalStyle()) }

    static func rowsJSON(_ projects: [ProjectListing]) -> JSON {
        JSON.objects(projects) { p in
            [
                "id": .string(p.id), "name": .string(p.name), "color": .string(p.color),
                "position": .integer(p.position), "running": .bool(p.running), "session_time": .int(p.sessionTime),
                "daily_total": .int(p.dailyTotal), "budget": p.budget > 0 ? .int(p.budget) : .null,
                "budget_period": p.budget > 0 ? .string(p.budgetPeriod) : .null,
                "budget_used": p.budget > 0 ? .int(p.budgetUsed) : .null,
                "client": p.client.isEmpty ? .null : .string(p.client),
                "client_name": p.client.isEmpty ? .null : .string(p.clientName),
                "rate": p.rate > 0 ? .int(p.rate) : .null, "currency": p.currency.isEmpty ? .null : .string(p.currency),
                "billable": .bool(p.billable),
            ]
        }
    }
}

struct ProjectAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a project; prints its id.")
    @Argument(help: "1–64 characters, unique ignoring case, not of an id's form (p1, c1, t1).") var name: String
    @Option(help: "Colour #RRGGBB (default: the next of a palette of ten told apart easily, #007AFF first).") var color = ""
    @OptionGroup var billing: ProjectBillingOptions
    func validate() throws { try checkColor(color) }
    func run() throws { say(try billing.addProject(name: name, color: color)) }
}

struct ProjectStart: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Run a project (starting work if needed).")
    @Argument(completion: .projects) var project: String
    @Argument(help: "+word tags for its interval.") var tags: [String] = []
    func validate() throws { _ = try checkedTags(tags) }
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_START_PROJECT, [.string(project)])
        let tags = try checkedTags(tags)
        if !tags.isEmpty { _ = try callDaemon(BIOMATIMER_TIMER1_TAG_RUNNING, [tags.dbusValue, [String]().dbusValue]) }
        try sayWhatRunsNow()
    }
}

struct ProjectStop: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the running project; work goes on.")
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_STOP_PROJECT)
        try sayWhatRunsNow()
    }
}

struct ProjectToggle: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "toggle", abstract: "Start a project, or stop it if it runs.")
    @Argument(completion: .projects) var project: String
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_TOGGLE_PROJECT, [.string(project)])
        try sayWhatRunsNow()
    }
}

struct ProjectNext: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Run the next project in list order.")
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(1)])
        try sayWhatRunsNow()
    }
}

struct ProjectPrev: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Run the previous project in list order.")
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(-1)])
        try sayWhatRunsNow()
    }
}

struct ProjectReset: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: "Zero a project's session (its daily total stays).")
    @Argument(completion: .projects) var project: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_RESET_PROJECT, [.string(project)]) }
}

struct ProjectEdit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Rename, recolour or set a budget on a project.",
        discussion: """
            A budget is an amount of time per week, per month or in total: `--budget 20h --per week` \
            (the default period), `--budget 150h --per total`; `--budget none` removes it. At 80 % \
            and at 100 % of it the daemon shows a notification, each once per period.
            """)
    @Argument(completion: .projects) var project: String
    @Option(help: "A new name.") var name: String?
    @Option(help: "A new colour, #RRGGBB.") var color: String?
    @Option(help: "The budget: a length (20h, 7h30m, 90m) or none.") var budget: String?
    @Option(help: "The budget's period: week, month or total (default week).") var per: String?
    @OptionGroup var billing: ProjectBillingOptions

    /// The `UpdateProject` changes; a bad budget or period is a usage error naming it.
    func changes() throws -> [(String, DBusValue)] {
        var changes: [(String, DBusValue)] = []
        if let name { changes.append(("Name", .string(name))) }
        if let color { changes.append(("Color", .string(color))) }
        if let budget {
            do {
                if let (amount, period) = try BudgetText.parse(amount: budget, per: per) {
                    changes += [("Budget", .int64(amount)), ("BudgetPeriod", .string(period))]
                } else {
                    changes.append(("Budget", .int64(0)))
                }
            } catch {
                throw ValidationError(error.message)
            }
        } else if per != nil {
            throw ValidationError("--per goes with --budget.")
        }
        changes += billing.changes
        guard !changes.isEmpty else {
            throw ValidationError("Give --name, --color, --budget, --client, --rate, --currency or --billable.")
        }
        return changes
    }

    func validate() throws {
        try checkColor(color)
        _ = try changes()
    }

    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(ordered: try changes())])
    }
}

struct ProjectRename: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a project.")
    @Argument(completion: .projects) var project: String
    @Argument(help: "The new name.") var name: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(["Name": .string(name)])]) }
}

struct ProjectColor: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "color", abstract: "Set a project's colour.")
    @Argument(completion: .projects) var project: String
    @Argument(help: "#RRGGBB") var color: String
    func validate() throws { try checkColor(color, "COLOR") }
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(["Color": .string(color)])]) }
}

struct ProjectMove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a project to a place in the list (0 is first).")
    @Argument(completion: .projects) var project: String
    @Argument var position: UInt32
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(["Position": .uint32(position)])]) }
}

struct ProjectDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a project and its recorded time (a backup is kept).")
    @Argument(completion: .projects) var project: String
    @Flag(help: "Do not ask for confirmation.") var yes = false
    func validate() throws { try requireTerminalOrYes(yes) }

    func run() throws {
        try confirm("Delete project \(TextEscaping.singleLine(project)) and all its recorded time?", yes: yes)
        _ = try callDaemon(BIOMATIMER_TIMER1_DELETE_PROJECT, [.string(project)])
    }
}
