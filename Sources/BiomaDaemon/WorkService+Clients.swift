import BiomaCore
import BiomaStore
import CContract
import DBusKit
import BiomaContract

/// Clients, rates and tags on org.biomatimer.Timer1: `ListClients`, `AddClient`,
/// `UpdateClient`, `DeleteClient`, `TagRunning`, and `UpdateProject`'s `Client`, `Rate`,
/// `Currency` and `Billable` keys.
extension WorkService {
    func clientMethods() -> [DBusMethod] {
        [
            DBusMethod(BIOMATIMER_TIMER1_LIST_CLIENTS, out: [.init("clients", "aa{sv}")]) { [self] _ in
                [try listClients()]
            },
            DBusMethod(BIOMATIMER_TIMER1_ADD_CLIENT, in: [.init("name", "s"), .init("options", "a{sv}")], out: [.init("client_id", "s")]) {
                [self] call in
                let name = call.arguments[0].string!
                let options = try Options(call.arguments[1].vardict ?? [:], allowed: ["Rate", "Currency"])
                let (rate, currency) = (try options.string("Rate"), try options.string("Currency"))
                return [.string(try change { try tracker.catalog.addClient(name: name, rate: rate, currency: currency, at: $0) })]
            },
            DBusMethod.action(BIOMATIMER_TIMER1_UPDATE_CLIENT, in: [.init("client", "s"), .init("changes", "a{sv}")]) { [self] call in
                let ref = call.arguments[0].string!
                let options = try Options(call.arguments[1].vardict ?? [:], allowed: ["Name", "Rate", "Currency"])
                var changes = StoreCatalog.ClientChanges()
                changes.name = try options.string("Name")
                if let rate = try options.string("Rate") { changes.rate = .some(rate.isEmpty ? nil : rate) }
                changes.currency = try options.string("Currency")
                guard changes != StoreCatalog.ClientChanges() else {
                    throw DaemonAPI.invalidArgument("No changes given: use the keys Name, Rate or Currency.")
                }
                try change { try tracker.catalog.updateClient(ref, changes, at: $0) }
            },
            DBusMethod.action(BIOMATIMER_TIMER1_DELETE_CLIENT, in: [.init("client", "s")]) { [self] call in
                let ref = call.arguments[0].string!
                try change { try tracker.catalog.deleteClient(ref, at: $0) }
            },
            DBusMethod(BIOMATIMER_TIMER1_TAG_RUNNING, in: [.init("add", "as"), .init("remove", "as")], out: [.init("tags", "as")]) {
                [self] call in
                let add = (call.arguments[0].array ?? []).compactMap(\.string)
                let remove = (call.arguments[1].array ?? []).compactMap(\.string)
                let (_, tags) = try change { try tracker.edits.changeRunningTags(add: add, remove: remove, at: $0) }
                return [tags.dbusValue]
            },
        ]
    }

    private func listClients() throws -> DBusValue {
        do {
            let clients = try tracker.catalog.clients()
            let billing = try tracker.catalog.billing()
            return ClientListing.list(
                clients.map { client in
                    var row = ClientListing()
                    (row.id, row.name) = (client.id, client.name)
                    (row.rate, row.currency) = (client.rate ?? 0, client.currency ?? "")
                    row.projects = UInt32(clamping: billing.values.filter { $0.clientID == client.id }.count)
                    return row
                })
        } catch {
            throw DaemonAPI.dbusError(error)
        }
    }

    /// Takes `UpdateProject`'s billing keys out of `changes`.
    static func billingChanges(_ changes: inout [String: DBusValue]) throws -> StoreCatalog.ProjectBillingChanges {
        var billing = StoreCatalog.ProjectBillingChanges()
        for key in ["Client", "Rate", "Currency"] {
            guard let value = changes.removeValue(forKey: key) else { continue }
            guard let text = value.string else { throw DaemonAPI.invalidArgument("\(key) must be of type s, not \(value.signature).") }
            let change: String?? = .some(text.isEmpty ? nil : text)
            switch key {
            case "Client": billing.client = change
            case "Rate": billing.rate = change
            default: billing.currency = change
            }
        }
        if let value = changes.removeValue(forKey: "Billable") {
            guard let flag = value.bool else { throw DaemonAPI.invalidArgument("Billable must be of type b, not \(value.signature).") }
            billing.billable = flag
        }
        return billing
    }

    /// A `ListProjects` row's billing fields.
    func addBilling(_ row: inout ProjectListing, _ billing: Billing?, clients: [String: Client]) {
        guard let billing else { return }
        row.client = billing.clientID ?? ""
        row.clientName = billing.clientID.flatMap { clients[$0]?.name } ?? ""
        (row.rate, row.currency, row.billable) = (billing.rate ?? 0, billing.currency ?? "", billing.billable)
    }
}

extension Options {
    /// An `as` option.
    func strings(_ key: String) throws -> [String]? {
        guard let value = values[key] else { return nil }
        guard let items = value.array, items.allSatisfy({ $0.string != nil }) else {
            throw DaemonAPI.invalidArgument("\(key) must be of type as, not \(value.signature).")
        }
        return items.compactMap(\.string)
    }
}
