import Foundation
import TestSupport
import Testing

/// ARCHITECTURE.md stays a one-page map: at most 1,000 words, and every target the package
/// builds for its programs has a row in its table of rooms.
@Suite struct ArchitectureMapTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theMapIsOnePage() throws {
        let words = try Self.text("ARCHITECTURE.md").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        #expect(words.count <= 1000, "ARCHITECTURE.md has \(words.count) words")
    }

    @Test func everyTargetHasARoom() throws {
        let package = try Self.text("Package.swift")
            .replacingOccurrences(of: "\\s+", with: "", options: .regularExpression)
        let map = try Self.text("ARCHITECTURE.md")
        let rows = Set(map.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { String($0.dropFirst(3).prefix { $0 != "`" }) })
        // `.target(name: "X"` — the libraries (C ones share the `C*` row; the benches and the
        // test support are not the programs').
        let names = package.components(separatedBy: ".target(name:\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let libraries = names.filter { !($0.first == "C" && $0.dropFirst().first?.isUppercase == true) && !$0.contains("Test") }
        #expect(libraries.count >= 14)
        for name in libraries {
            #expect(rows.contains(name), "ARCHITECTURE.md has no row for \(name)")
        }
    }
}
