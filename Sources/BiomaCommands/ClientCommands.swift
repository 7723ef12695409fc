import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

// MARK: - Clients

struct ClientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client", abstract: "List, add, edit and remove clients (above projects, with an hourly rate).",
        discussion: """
            CLIENT is a client's id or its name (ignoring case). A rate is per hour in the client's \
            currency (an ISO 4217 code: EUR, USD, JPY…): `client add ACME --rate 90 --currency EUR`. \
            A project's own rate overrides its client's (`project edit X --rate 110`).
            """,
        subcommands: [ClientList.self, ClientAdd.self, ClientEdit.self, ClientRemove.self])
}

struct ClientList: RowsCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List clients with their rates.")
    static let member = BIOMATIMER_TIMER1_LIST_CLIENTS
    static let none = "No clients yet. Add one with: biomatimer client add NAME [--rate 90 --currency EUR]"
    @Flag(help: "JSON for scripts.") var json = false

    static func sayLines(_ clients: [ClientListing]) {
        for c in clients {
            let rate = c.rate > 0 ? "\(CurrencyText.format(c.rate, c.currency)) \(c.currency)/h" : "no rate"
            let count = "\(c.projects) project\(c.projects == 1 ? "" : "s")"
            say("\(Terminal.pad(TextEscaping.singleLine(c.name), 28)) \(Terminal.pad(rate, 18)) \(Terminal.pad(count, 12)) [\(c.id)]")
        }
    }

    static func rowsJSON(_ clients: [ClientListing]) -> JSON {
        JSON.objects(clients) { c in
            [
                "id": .string(c.id), "name": .string(c.name), "rate": c.rate > 0 ? .int(c.rate) : .null,
                "currency": c.currency.isEmpty ? .null : .string(c.currency), "projects": .integer(c.projects),
            ]
        }
    }
}

/// `--rate`, `--currency` and `--color` checked before any call, by the readers the daemon
/// uses (BiomaText): a bad value is a usage error (exit 2) whichever process finds it. A rate
/// without its currency here is checked as an amount; the currency's decimals are the
/// daemon's to check. `none` (removing it) passes.
func checkBilling(rate: String?, currency: String?) throws {
    var digits = 3
    var code = "its currency"
    if let currency, currency.lowercased() != "none" {
        do {
            code = try CurrencyText.code(currency)
            digits = CurrencyText.digits[code] ?? 2
        } catch {
            throw ValidationError("--currency: \(error.message)")
        }
    }
    if let rate, rate.lowercased() != "none" {
        do {
            _ = try CurrencyText.rate(rate, digits: digits, code: code)
        } catch {
            throw ValidationError("--rate: \(error.message)")
        }
    }
}

/// A colour checked before any call: `#RRGGBB`, or a usage error saying so.
func checkColor(_ color: String?, _ what: String = "--color") throws {
    if let color, !color.isEmpty, ColorText.normalized(color) == nil { throw ValidationError("\(what): \(ColorText.problem(color))") }
}

struct ClientAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a client; prints its id.")
    @Argument(help: "1–64 characters, unique ignoring case, not of an id's form (p1, c1, t1).") var name: String
    @Option(parsing: .unconditional, help: "An hourly rate, e.g. 90 or 87.50 (needs --currency).") var rate: String?
    @Option(help: "An ISO 4217 currency code, e.g. EUR.") var currency: String?
    func validate() throws {
        if rate != nil && currency == nil { throw ValidationError("--rate needs --currency (EUR, USD, …).") }
        try checkBilling(rate: rate, currency: currency)
    }
    func run() throws {
        var options: [(String, DBusValue)] = []
        if let rate { options.append(("Rate", .string(rate))) }
        if let currency { options.append(("Currency", .string(currency))) }
        say(try callDaemon(BIOMATIMER_TIMER1_ADD_CLIENT, [.string(name), .vardict(ordered: options)]).first?.string ?? "")
    }
}

struct ClientEdit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Rename a client or change its rate and currency (--rate none removes the rate).")
    @Argument var client: String
    @Option(help: "A new name.") var name: String?
    @Option(parsing: .unconditional, help: "An hourly rate, or none.") var rate: String?
    @Option(help: "An ISO 4217 currency code.") var currency: String?
    func validate() throws {
        if name == nil && rate == nil && currency == nil { throw ValidationError("Give --name, --rate or --currency.") }
        try checkBilling(rate: rate, currency: currency)
    }
    func run() throws {
        var changes: [(String, DBusValue)] = []
        if let name { changes.append(("Name", .string(name))) }
        if let rate { changes.append(("Rate", .string(rate.lowercased() == "none" ? "" : rate))) }
        if let currency { changes.append(("Currency", .string(currency))) }
        _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_CLIENT, [.string(client), .vardict(ordered: changes)])
    }
}

struct ClientRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a client; its projects stay, without a client.")
    @Argument var client: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_DELETE_CLIENT, [.string(client)]) }
}

/// `project add|edit`'s billing options, as `UpdateProject` changes.
struct ProjectBillingOptions: ParsableArguments {
    @Option(help: "Its client's id or name (\"\" or none: no client).") var client: String?
    @Option(parsing: .unconditional, help: "Its own hourly rate, overriding its client's (none removes it).") var rate: String?
    @Option(help: "The currency of its own rate, an ISO 4217 code.") var currency: String?
    @Option(help: "Whether it is billed: yes or no.") var billable: Billable?

    func validate() throws { try checkBilling(rate: rate, currency: currency) }

    enum Billable: String, ExpressibleByArgument, CaseIterable {
        case yes, no
    }

    /// `project add NAME --client C …`: the client checked first, the project made, then its
    /// billing set; a refused rate or currency takes the new project away again, so a failed
    /// command changes nothing. Returns the project's id.
    func addProject(name: String, color: String) throws -> String {
        let daemon = try daemonClient()
        if let ref = client, ref.lowercased() != "none", !ref.isEmpty {
            let clients = ClientListing.rows(try daemon.call(BIOMATIMER_TIMER1_LIST_CLIENTS).first)
            let key = ref.lowercased()
            guard clients.contains(where: { $0.id == ref || $0.name.lowercased() == key }) else {
                throw ClientFailure(exitCode: ExitCode.refused, "No client named or with id '\(ref)' (`biomatimer client list` shows them).")
            }
        }
        let id = try daemon.call(BIOMATIMER_TIMER1_ADD_PROJECT, [.string(name), .string(color)]).first?.string ?? ""
        if !changes.isEmpty {
            do {
                _ = try daemon.call(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(id), .vardict(ordered: changes)])
            } catch {
                _ = try? daemon.call(BIOMATIMER_TIMER1_DELETE_PROJECT, [.string(id)])
                throw error
            }
        }
        return id
    }

    var changes: [(String, DBusValue)] {
        var changes: [(String, DBusValue)] = []
        let none = { (text: String) in text.lowercased() == "none" ? "" : text }
        if let client { changes.append(("Client", .string(none(client)))) }
        if let rate { changes.append(("Rate", .string(none(rate)))) }
        if let currency { changes.append(("Currency", .string(none(currency)))) }
        if let billable { changes.append(("Billable", .boolean(billable == .yes))) }
        return changes
    }
}

// MARK: - Tags

/// `+word` arguments: the tags, checked before any call (a usage error, nothing changes).
func checkedTags(_ words: [String]) throws -> [String] {
    for word in words {
        guard word.hasPrefix("+") else { throw ValidationError("'\(word)' is not a tag: tags are written +word.") }
        if let problem = TagText.problem(word) { throw ValidationError(problem) }
    }
    if Set(words.map { $0.lowercased() }).count > TagText.maxCount {
        throw ValidationError("An interval has at most \(TagText.maxCount) tags.")
    }
    return words.map(TagText.word)
}

struct TagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag", abstract: "Add (+word) and remove (-word) tags on the running interval; prints its tags.",
        discussion: """
            A tag is a word of letters, digits, '-', '_' and '.', at most 32 characters; an \
            interval has at most 16. `biomatimer tag +call -meeting`; `undo` takes it back.
            """)
    @Argument(parsing: .allUnrecognized, help: "+word to add, -word to remove.") var changes: [String] = []

    func split() throws -> (add: [String], remove: [String]) {
        var (add, remove): ([String], [String]) = ([], [])
        for word in changes {
            if word.hasPrefix("-") {
                let tag = String(word.dropFirst())
                if let problem = TagText.problem(tag) { throw ValidationError(problem) }
                remove.append(tag)
            } else if word.hasPrefix("+") {
                add += try checkedTags([word])
            } else {
                throw ValidationError("'\(word)' is neither +word (add) nor -word (remove).")
            }
        }
        if add.isEmpty && remove.isEmpty { throw ValidationError("Give +word to add a tag or -word to remove one.") }
        return (add, remove)
    }

    func validate() throws { _ = try split() }

    func run() throws {
        let (add, remove) = try split()
        let reply = try callDaemon(BIOMATIMER_TIMER1_TAG_RUNNING, [add.dbusValue, remove.dbusValue])
        say(((reply.first?.array ?? []).compactMap(\.string)).map { "+" + $0 }.joined(separator: " "))
    }
}


/// `start [PROJECT] [+tag …]`: at most one project, then the tags (checked before any call).
struct StartWords {
    var project: String?
    var tags: [String]

    init(_ words: [String]) throws {
        let projects = words.filter { !$0.hasPrefix("+") }
        guard projects.count <= 1 else { throw ValidationError("Give one project at most (tags are written +word).") }
        (project, tags) = (projects.first, try checkedTags(words.filter { $0.hasPrefix("+") }))
    }

    func run() throws {
        if let project {
            _ = try callDaemon(BIOMATIMER_TIMER1_START_PROJECT, [.string(project)])
        } else {
            _ = try callDaemon(BIOMATIMER_TIMER1_START)
        }
        if !tags.isEmpty { _ = try callDaemon(BIOMATIMER_TIMER1_TAG_RUNNING, [tags.dbusValue, [String]().dbusValue]) }
    }
}

/// `project list`'s lines: grouped under their client's name when any project has a client.
enum ProjectLines {
    static func say(_ projects: [ProjectListing], style: Terminal) {
        let grouped = projects.contains { !$0.client.isEmpty }
        var order: [String] = []
        for p in projects where !order.contains(p.client) { order.append(p.client) }
        if grouped { order = order.filter { !$0.isEmpty } + (order.contains("") ? [""] : []) }
        for client in order {
            if grouped {
                BiomaCommands.say(client.isEmpty ? "no client" : TextEscaping.singleLine(projects.first { $0.client == client }!.clientName))
            }
            for p in projects where p.client == client { line(p, style: style, indent: grouped ? "  " : "") }
        }
    }

    static func line(_ p: ProjectListing, style: Terminal, indent: String) {
        let mark = p.running ? "▶" : " "
        let times = "\(DurationFormat.hms(p.sessionTime)) (\(DurationFormat.hms(p.dailyTotal)))"
        let budget =
            p.budget > 0
            ? "  budget \(DurationClock.hoursMinutes(p.budgetUsed))/\(DurationClock.hoursMinutes(p.budget)) \(p.budgetPeriod)" : ""
        let rate = !p.billable ? "  not billed" : p.rate > 0 ? "  \(CurrencyText.format(p.rate, p.currency)) \(p.currency)/h" : ""
        BiomaCommands.say(
            "\(indent)\(mark) \(style.swatch(p.color)) \(Terminal.pad(TextEscaping.singleLine(p.name), 28)) \(times)  [\(p.id)]\(budget)\(rate)")
    }
}
