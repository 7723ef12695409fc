import BiomaText

/// Clients, rates and earnings: a client above projects, an hourly rate per client overridden
/// per project, in an ISO 4217 currency, amounts in the currency's minor unit as integers
/// (never floating point), and projects that are not billed.

/// A client: a name, optionally an hourly rate in a currency.
public struct Client: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Minor units of `currency` per hour, if a rate is set.
    public var rate: Int64?
    /// An ISO 4217 code, upper-case, if set.
    public var currency: String?

    public init(id: String, name: String, rate: Int64? = nil, currency: String? = nil) {
        (self.id, self.name, self.rate, self.currency) = (id, name, rate, currency)
    }

    /// Trims the name and checks it as project names are checked (1–64 characters, no control
    /// characters); the message names a client.
    public static func validatedName(_ raw: String) throws(TrackerError) -> String {
        do {
            return try Project.validatedName(raw)
        } catch {
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { throw .invalidArgument("Client names cannot be empty: give 1–64 characters.") }
            if trimmed.count > Project.maxNameLength {
                throw .invalidArgument("Client names are 1–64 characters after trimming; this one has \(trimmed.count).")
            }
            throw .invalidArgument("Client names cannot contain control characters (tabs, line breaks, …): \(TextEscaping.visible(raw)).")
        }
    }
}

extension Client {
    /// A name given to a client added or renamed: `validatedName`, and not of the form of an
    /// id (`NameRules.idForm`), which a command line would take for that id.
    public static func validatedNewName(_ raw: String) throws(TrackerError) -> String {
        let name = try validatedName(raw)
        try NameRules.refuseIDForm(name, for: "client")
        return name
    }
}

extension Array where Element == Client {
    /// The client a caller means by `ref`: its id, or its name ignoring case.
    public func resolve(_ ref: String) throws(TrackerError) -> Client {
        if let client = first(where: { $0.id == ref }) { return client }
        let key = Project.nameKey(ref.trimmingCharacters(in: .whitespacesAndNewlines))
        if let client = first(where: { Project.nameKey($0.name) == key }) { return client }
        throw .invalidArgument("No client named or with id '\(ref)' (`biomatimer client list` shows them).")
    }
}

/// ISO 4217 currencies in use and the digits of their minor unit.
public enum Currency {
    /// The code upper-cased if ISO 4217 lists it; otherwise a clear error (`CurrencyText`).
    public static func validated(_ raw: String) throws(TrackerError) -> String {
        do {
            return try CurrencyText.code(raw)
        } catch {
            throw .invalidArgument(error.message)
        }
    }

    /// The digits of `code`'s minor unit (2 for EUR, 0 for JPY, 3 for KWD).
    public static func digits(_ code: String) -> Int { CurrencyText.digits[code] ?? 2 }

    /// The most an hourly rate may be, in major units: more is a typing mistake.
    public static let maximumRate: Int64 = CurrencyText.maximumRate

    /// `90`, `90.5`, `1234.56` in `code`'s major unit → minor units per hour (`CurrencyText.rate`,
    /// the one reader). Negative, zero, more decimals than the currency has, exponents and
    /// absurd rates are clear errors.
    public static func parseRate(_ raw: String, currency code: String) throws(TrackerError) -> Int64 {
        do {
            return try CurrencyText.rate(raw, digits: digits(code), code: code)
        } catch {
            throw .invalidArgument(error.message)
        }
    }

    /// `amount` minor units written in major units: `31500` EUR → `315.00`.
    public static func format(_ amount: Int64, _ code: String) -> String { CurrencyText.format(amount, code) }

    /// `duration` (µs) at `rate` minor units per hour, rounded to the nearest minor unit (a
    /// half rounds up), in integers throughout and without overflow for any history.
    public static func amount(_ duration: Micros, rate: Int64) -> Int64 {
        guard duration > 0, rate > 0 else { return 0 }
        let hour: Int64 = 3_600_000_000
        let (hours, rest) = duration.quotientAndRemainder(dividingBy: hour)
        return hours * rate + (rest * rate + hour / 2) / hour
    }
}

/// How a project is billed: its client, its rate (the project's own, else its client's), the
/// currency, and whether it is billed at all.
public struct Billing: Sendable, Equatable {
    public var clientID: String?
    /// Minor units per hour; nil: no rate.
    public var rate: Int64?
    public var currency: String?
    public var billable: Bool

    public init(clientID: String? = nil, rate: Int64? = nil, currency: String? = nil, billable: Bool = true) {
        (self.clientID, self.rate, self.currency, self.billable) = (clientID, rate, currency, billable)
    }

    /// The effective billing of a project with its own `rate`/`currency` under `client`.
    public static func resolve(client: Client?, rate: Int64?, currency: String?, billable: Bool) -> Billing {
        if let rate { return Billing(clientID: client?.id, rate: rate, currency: currency ?? client?.currency, billable: billable) }
        return Billing(clientID: client?.id, rate: client?.rate, currency: client?.currency, billable: billable)
    }
}
