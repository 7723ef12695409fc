import BiomaText
import Testing

/// The JSON writer appends bytes (`JSON.write(to:)`): the same text as the string-building
/// writer it replaced, for random strings rich in what must be escaped — quotes, backslashes,
/// C0 and C1 controls, DEL, the line and paragraph separators — and in what must not be.
@Suite struct JSONWriterTests {
    /// The writer as it was: scalar by scalar.
    static func reference(_ text: String) -> String {
        func hex4(_ value: UInt32) -> String {
            let digits = Array("0123456789abcdef")
            return (0..<4).map { String(digits[Int((value >> UInt32(12 - 4 * $0)) & 0xF)]) }.joined()
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            default:
                if JSON.isLineBreaking(scalar) { result += "\\u" + hex4(scalar.value) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    static let alphabet: [Unicode.Scalar] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "\u{7F}", "\u{80}",
        "\u{85}", "\u{9F}", "\u{A0}", "é", "\u{2027}", "\u{2028}", "\u{2029}", "\u{202A}", "€", "\u{1F600}", "\u{E2}", "\u{C2}",
    ]

    @Test func quotingIsTheSameAsBefore() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &generator) { text.append(Self.alphabet.randomElement(using: &generator)!) }
            let string = String(text)
            #expect(JSON.quoted(string) == Self.reference(string), "\(Array(string.unicodeScalars))")
        }
    }

    @Test func valuesAreWrittenAsBefore() {
        let value = JSON.fields([
            ("b", .int(-3)), ("a", .array([.bool(true), .null, .double(1.5), .double(2), .double(.nan)])),
            ("o", .object(["z": .string("x\u{2028}y"), "a": .string("")])),
        ])
        #expect(value.text == #"{"b":-3,"a":[true,null,1.5,2,null],"o":{"a":"","z":"x\u2028y"}}"#)
    }
}
