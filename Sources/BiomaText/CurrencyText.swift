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
