/// ISO 4217 currencies and amounts in their minor unit, written for people: one table for the
/// daemon's checks (`Currency`, BiomaCore) and the command line's listings.
public enum CurrencyText {
    /// Code and minor-unit digits, from ISO 4217's list of current currencies.
    public static let digits: [String: Int] = {
        let list = """
            AED2 AFN2 ALL2 AMD2 ANG2 AOA2 ARS2 AUD2 AWG2 AZN2 BAM2 BBD2 BDT2 BGN2 BHD3 BIF0 BMD2 BND2 BOB2 BRL2 \
            BSD2 BTN2 BWP2 BYN2 BZD2 CAD2 CDF2 CHF2 CLP0 CNY2 COP2 CRC2 CUP2 CVE2 CZK2 DJF0 DKK2 DOP2 DZD2 EGP2 \
            ERN2 ETB2 EUR2 FJD2 FKP2 GBP2 GEL2 GHS2 GIP2 GMD2 GNF0 GTQ2 GYD2 HKD2 HNL2 HTG2 HUF2 IDR2 ILS2 INR2 \
            IQD3 IRR2 ISK0 JMD2 JOD3 JPY0 KES2 KGS2 KHR2 KMF0 KPW2 KRW0 KWD3 KYD2 KZT2 LAK2 LBP2 LKR2 LRD2 LSL2 \
            LYD3 MAD2 MDL2 MGA2 MKD2 MMK2 MNT2 MOP2 MRU2 MUR2 MVR2 MWK2 MXN2 MYR2 MZN2 NAD2 NGN2 NIO2 NOK2 NPR2 \
            NZD2 OMR3 PAB2 PEN2 PGK2 PHP2 PKR2 PLN2 PYG0 QAR2 RON2 RSD2 RUB2 RWF0 SAR2 SBD2 SCR2 SDG2 SEK2 SGD2 \
            SHP2 SLE2 SOS2 SRD2 SSP2 STN2 SVC2 SYP2 SZL2 THB2 TJS2 TMT2 TND3 TOP2 TRY2 TTD2 TWD2 TZS2 UAH2 UGX0 \
            USD2 UYU2 UZS2 VES2 VND0 VUV0 WST2 XAF0 XCD2 XOF0 XPF0 YER2 ZAR2 ZMW2 ZWL2
            """
        var digits: [String: Int] = [:]
        for entry in list.split(separator: " ") { digits[String(entry.prefix(3))] = Int(String(entry.dropFirst(3)))! }
        return digits
    }()

    /// A currency or rate a person gave that cannot be used, in words.
    public struct Failure: Error, Equatable, Sendable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    /// The code upper-cased if ISO 4217 lists it.
    public static func code(_ raw: String) throws(Failure) -> String {
        let code = String(raw.filter { $0 != " " }).uppercased()
        guard digits[code] != nil else { throw Failure("Currency '\(raw)' is not an ISO 4217 code (EUR, USD, GBP, JPY, CHF, …).") }
        return code
    }

    /// The most an hourly rate may be, in major units: more is a typing mistake.
    public static let maximumRate: Int64 = 1_000_000

    /// `90`, `90.5`, `1234.56` in the major unit of a currency whose minor unit has `digits`
    /// digits → minor units per hour. Negative, zero, more decimals than the currency has,
    /// exponents and absurd rates are refused, saying why (`code` names the currency).
    public static func rate(_ raw: String, digits: Int, code: String) throws(Failure) -> Int64 {
        let text = String(raw.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts.first.map(String.init) ?? ""
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        let isDigits = { (s: String) in s.unicodeScalars.allSatisfy { $0.value >= 48 && $0.value <= 57 } }
        guard !whole.isEmpty, whole.count <= 7, isDigits(whole), isDigits(fraction), parts.count == 1 || !fraction.isEmpty else {
            if text.hasPrefix("-") { throw Failure("A rate cannot be negative: '\(raw)'.") }
            throw Failure("Rate '\(raw)' is not an amount per hour such as 90 or 87.50.")
        }
        guard fraction.count <= digits else { throw Failure("Rate '\(raw)' has more decimals than \(code) has (\(digits)).") }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let major = Int64(whole)!
        guard major < maximumRate || (major == maximumRate && Int64(fraction.isEmpty ? "0" : fraction)! == 0) else {
            throw Failure("Rate '\(raw)' is more than \(maximumRate) \(code) an hour: not a rate.")
        }
        let padded = fraction + String(repeating: "0", count: digits - fraction.count)
        let minor = major * scale + (padded.isEmpty ? 0 : Int64(padded)!)
        guard minor > 0 else { throw Failure("A rate is more than 0: leave it out (or `none`) for no rate.") }
        return minor
    }

    /// `amount` minor units written in major units: `31500` EUR → `315.00`, `-5` → `-0.05`.
    public static func format(_ amount: Int64, _ code: String) -> String {
        let digits = Self.digits[code] ?? 2
        guard digits > 0 else { return String(amount) }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let magnitude = amount.magnitude
        let fraction = String(magnitude % UInt64(scale))
        return (amount < 0 ? "-" : "") + String(magnitude / UInt64(scale)) + "."
            + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
