import BiomaText

/// JSON read straight from its bytes in one exact form, for the hot readers (a peer's log, a
/// Timewarrior export): each method takes what it reads and moves on, or answers nil and the
/// caller leaves the text to the JSON tree (`StrictJSON`), which accepts or refuses it and says
/// why. What these take, the tree takes the same: strings without escapes or control
/// characters, whole numbers without fraction or exponent that fit an Int64, no spaces.
struct JSONByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Whether the text is read to its end.
    var atEnd: Bool { index == bytes.count }

    /// Skips JSON's white space (space, tab, line feed, carriage return).
    mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let base = text.utf8Start
        for offset in 0..<count where bytes[index + offset] != base[offset] { return false }
        index += count
        return true
    }

    /// `-?(0|[1-9][0-9]*)` that fits an Int64, followed by no fraction or exponent.
    mutating func integer() -> Int64? {
        let negative = peek == UInt8(ascii: "-")
        var at = index + (negative ? 1 : 0)
        let first = at
        var magnitude: UInt64 = 0
        while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(bytes[at] - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            at += 1
        }
        let digits = at - first
        guard digits > 0, digits == 1 || bytes[first] != 0x30 else { return nil }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") || bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            return nil
        }
        let value: Int64
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        index = at
        return value
    }

    /// A string with no escape and no control character.
    mutating func string() -> String? {
        stringBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// `string()`'s bytes, between its quotes.
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        var at = index + 1
        while at < bytes.count, bytes[at] != UInt8(ascii: "\"") {
            guard bytes[at] >= 0x20, bytes[at] != UInt8(ascii: "\\") else { return nil }
            at += 1
        }
        guard at < bytes.count else { return nil }
        let text = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<at])
        index = at + 1
        return text
    }
}
