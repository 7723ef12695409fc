import ArgumentParser
import BiomaText
import CContract
import DBusCore
import TimerControl

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

struct ClientList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List clients with their rates.")
    @Flag(help: "JSON for scripts.") var json = false
    func run() throws {
        let clients = ClientListing.rows(try callDaemon(BIOMATIMER_TIMER1_LIST_CLIENTS).first)
        if json {
            say(
                JSON.objects(clients) { c in
                    [
                        "id": .string(c.id), "name": .string(c.name), "rate": c.rate > 0 ? .int(c.rate) : .null,
                        "currency": c.currency.isEmpty ? .null : .string(c.currency), "projects": .integer(c.projects),
                    ]
                }.text)
            return
        }
        if clients.isEmpty {
            say("No clients yet. Add one with: biomatimer client add NAME [--rate 90 --currency EUR]")
            return
        }
        for c in clients {
            let rate = c.rate > 0 ? "\(CurrencyText.format(c.rate, c.currency)) \(c.currency)/h" : "no rate"
            let count = "\(c.projects) project\(c.projects == 1 ? "" : "s")"
            say("\(Terminal.pad(Terminal.singleLine(c.name), 28)) \(Terminal.pad(rate, 18)) \(Terminal.pad(count, 12)) [\(c.id)]")
        }
    }
}

struct ClientAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a client; prints its id.")
    @Argument(help: "1–64 characters, unique ignoring case.") var name: String
    @Option(help: "An hourly rate, e.g. 90 or 87.50 (needs --currency).") var rate: String?
    @Option(help: "An ISO 4217 currency code, e.g. EUR.") var currency: String?
    func validate() throws {
        if rate != nil && currency == nil { throw ValidationError("--rate needs --currency (EUR, USD, …).") }
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
    @Option(help: "An hourly rate, or none.") var rate: String?
    @Option(help: "An ISO 4217 currency code.") var currency: String?
    func validate() throws {
        if name == nil && rate == nil && currency == nil { throw ValidationError("Give --name, --rate or --currency.") }
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
    @Option(help: "Its own hourly rate, overriding its client's (none removes it).") var rate: String?
    @Option(help: "The currency of its own rate, an ISO 4217 code.") var currency: String?
    @Option(help: "Whether it is billed: yes or no.") var billable: Billable?

    enum Billable: String, ExpressibleByArgument, CaseIterable {
        case yes, no
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

