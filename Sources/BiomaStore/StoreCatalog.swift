import BiomaCore
import GRDB

/// What time is recorded for: the projects (`StoreCatalog+Projects`), their clients and billing.
public struct StoreCatalog: StorePart {
    let tracker: Tracker
}

/// Clients above projects, and how each project is billed: a client (removing it keeps its
/// projects, client-less), a rate and currency of its own that override its client's, and
/// whether it is billed. Read from the store when asked (lists, reports): nothing of it is
/// kept in memory.
extension StoreCatalog {
    /// A client's changes (`UpdateClient`); nil leaves a field, `.some(nil)` removes a rate.
    public struct ClientChanges: Sendable, Equatable {
        public var name: String?
        /// A rate as typed (`90`, `87.50`), read in the currency it ends up with.
        public var rate: String??
        public var currency: String?
        public init(name: String? = nil, rate: String?? = nil, currency: String? = nil) {
            (self.name, self.rate, self.currency) = (name, rate, currency)
        }
    }

    /// A project's billing changes (`UpdateProject`'s `Client`, `Rate`, `Currency`, `Billable`).
    public struct ProjectBillingChanges: Sendable, Equatable {
        /// `.some(nil)`: no client.
        public var client: String??
        public var rate: String??
        public var currency: String??
        public var billable: Bool?
        public init(client: String?? = nil, rate: String?? = nil, currency: String?? = nil, billable: Bool? = nil) {
            (self.client, self.rate, self.currency, self.billable) = (client, rate, currency, billable)
        }
        public var isEmpty: Bool { client == nil && rate == nil && currency == nil && billable == nil }
    }

    /// Every client, in the order they were added.
    public func clients() throws -> [Client] { try readOrThrow { try StoreCatalog.clients($0) } }

    static func clients(_ db: Database) throws -> [Client] {
        try Row.fetchAll(db, sql: "SELECT id, name, rate_minor, currency FROM client ORDER BY position, id").map {
            Client(id: $0[0], name: $0[1], rate: $0[2], currency: $0[3])
        }
    }

    /// Each project's billing, by project id (its client's rate unless it has its own).
    public func billing() throws -> [String: Billing] {
        try readOrThrow { db in
            let clients = Dictionary(try StoreCatalog.clients(db).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var result: [String: Billing] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, client_id, rate_minor, currency, billable FROM project") {
                let client = (row[1] as String?).flatMap { clients[$0] }
                result[row[0]] = Billing.resolve(client: client, rate: row[2], currency: row[3], billable: row[4])
            }
            return result
        }
    }

    /// Adds a client; returns its id (`c1`, `c2`, …).
    public func addClient(name: String, rate: String?, currency: String?, at now: Micros) throws -> String {
        let valid = try Client.validatedNewName(name)
        let code = try currency.map { raw throws(TrackerError) in try Currency.validated(raw) }
        if rate != nil, code == nil {
            throw TrackerError.invalidArgument("A rate needs its currency: add --currency (EUR, USD, …).")
        }
        let minor = try rate.map { raw throws(TrackerError) in try Currency.parseRate(raw, currency: code!) }
        var id = ""
        try change(at: now) { _, db in
            let existing = try StoreCatalog.clients(db)
            if existing.contains(where: { Project.nameKey($0.name) == Project.nameKey(valid) }) {
                throw TrackerError.invalidArgument("A client named '\(valid)' already exists (names are unique ignoring case).")
            }
            let highest = existing.compactMap { Int($0.id.dropFirst()) }.max() ?? 0
            id = "c\(highest + 1)"
            try db.execute(
                sql: "INSERT INTO client (id, name, name_key, rate_minor, currency, position) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [id, valid, Project.nameKey(valid), minor, code, existing.count])
            return []
        }
        return id
    }

    /// Renames a client, or sets its rate (`.some(nil)` removes it) and currency.
    public func updateClient(_ ref: String, _ changes: ClientChanges, at now: Micros) throws {
        let name = try changes.name.map { raw throws(TrackerError) in try Client.validatedNewName(raw) }
        let code = try changes.currency.map { raw throws(TrackerError) in try Currency.validated(raw) }
        try change(at: now) { _, db in
            let existing = try StoreCatalog.clients(db)
            var client = try existing.resolve(ref)
            if let name {
                if existing.contains(where: { $0.id != client.id && Project.nameKey($0.name) == Project.nameKey(name) }) {
                    throw TrackerError.invalidArgument("A client named '\(name)' already exists (names are unique ignoring case).")
                }
                client.name = name
            }
            if let code {
                // Projects with a rate of their own read in this client's currency keep it.
                if let old = client.currency, old != code { try StoreCatalog.pinProjectCurrencies(of: client.id, old, db) }
                // A rate kept in another currency is read again in this one's minor unit.
                if client.rate != nil, changes.rate == nil, let old = client.currency,
                    Currency.digits(old) != Currency.digits(code)
                {
                    throw TrackerError.invalidArgument("Give the rate again with a new currency of other decimals: --rate R --currency \(code).")
                }
                client.currency = code
            }
            if let rate = changes.rate {
                if let rate {
                    guard let currency = client.currency else {
                        throw TrackerError.invalidArgument("A rate needs its currency: add --currency (EUR, USD, …).")
                    }
                    client.rate = try Currency.parseRate(rate, currency: currency)
                } else {
                    client.rate = nil
                }
            }
            try db.execute(
                sql: "UPDATE client SET name = ?, name_key = ?, rate_minor = ?, currency = ? WHERE id = ?",
                arguments: [client.name, Project.nameKey(client.name), client.rate, client.currency, client.id])
            return []
        }
    }

    /// Removes a client; its projects stay, without a client.
    public func deleteClient(_ ref: String, at now: Micros) throws {
        try change(at: now) { _, db in
            let client = try StoreCatalog.clients(db).resolve(ref)
            if let currency = client.currency { try StoreCatalog.pinProjectCurrencies(of: client.id, currency, db) }
            try db.execute(sql: "UPDATE project SET client_id = NULL WHERE client_id = ?", arguments: [client.id])
            try db.execute(sql: "DELETE FROM client WHERE id = ?", arguments: [client.id])
            return []
        }
    }

    /// Checks a project's billing changes against the store without writing: the client exists,
    /// the currency is ISO 4217, the rate is a rate in it. Returns the values to write.
    func checkedBilling(_ projectID: String, _ changes: ProjectBillingChanges, _ db: Database) throws -> (
        client: String?, rate: Int64?, currency: String?, billable: Bool
    ) {
        guard let row = try Row.fetchOne(db, sql: "SELECT client_id, rate_minor, currency, billable FROM project WHERE id = ?", arguments: [projectID])
        else { throw TrackerError.noSuchProject(projectID) }
        let clients = try StoreCatalog.clients(db)
        var (client, rate, currency, billable): (String?, Int64?, String?, Bool) = (row[0], row[1], row[2], row[3])
        let clientCurrency = { (id: String?) in id.flatMap { id in clients.first { $0.id == id }?.currency } }
        // A rate of the project's own is in the currency it was given in, whatever the client
        // becomes: the currency is written beside it.
        if rate != nil, currency == nil { currency = clientCurrency(client) }
        if let ref = changes.client { client = try ref.map { try clients.resolve($0).id } }
        if let code = changes.currency { currency = try code.map { raw throws(TrackerError) in try Currency.validated(raw) } }
        if let raw = changes.rate {
            if let raw {
                guard let code = currency ?? clientCurrency(client) else {
                    throw TrackerError.invalidArgument(
                        "A rate needs its currency: add --currency, or give the project's client one.")
                }
                rate = try Currency.parseRate(raw, currency: code)
                currency = code
            } else {
                rate = nil
            }
        }
        if let value = changes.billable { billable = value }
        return (client, rate, currency, billable)
    }

    /// Writes `currency` beside the rate of each of `clientID`'s projects that has a rate of its
    /// own read in the client's currency, before that currency changes or the client goes: the
    /// rate keeps the meaning it was given.
    static func pinProjectCurrencies(of clientID: String, _ currency: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE project SET currency = ? WHERE client_id = ? AND rate_minor IS NOT NULL AND currency IS NULL",
            arguments: [currency, clientID])
    }

    static func writeBilling(
        _ projectID: String, _ values: (client: String?, rate: Int64?, currency: String?, billable: Bool), _ db: Database
    ) throws {
        try db.execute(
            sql: "UPDATE project SET client_id = ?, rate_minor = ?, currency = ?, billable = ? WHERE id = ?",
            arguments: [values.client, values.rate, values.currency, values.billable, projectID])
    }

    /// Sets a project's client, rate, currency and billing; nothing changes on any error.
    public func updateProjectBilling(_ ref: String, _ changes: ProjectBillingChanges, at now: Micros) throws {
        try change(at: now) { model, db in
            let id = try model.projects.resolve(ref).id
            try StoreCatalog.writeBilling(id, try checkedBilling(id, changes, db), db)
            return []
        }
    }

    /// Checks billing changes for `ref` without writing (so that a call changing names and
    /// billing together fails before either is written).
    public func checkProjectBilling(_ ref: String, _ changes: ProjectBillingChanges) throws {
        let id = try model.projects.resolve(ref).id
        _ = try readOrThrow { try checkedBilling(id, changes, $0) }
    }
}

extension StoreCatalog {
    /// The name of `projectID`'s client, nil for none: one indexed lookup (the published
    /// state asks it while a project runs).
    public func clientName(ofProject projectID: String) -> String? {
        try? readOrThrow { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT c.name FROM project p JOIN client c ON c.id = p.client_id WHERE p.id = ?"),
                arguments: [projectID])
        }
    }
}
