import CContract
import Foundation
import TestSupport
import Testing
import BiomaContract

/// The member and error names both clients and the daemon read from the C header are exactly
/// the contract's: the methods of dbus/org.biomatimer.Timer1.xml (which the daemon serves byte
/// for byte) and the errors of dbus/README.md.
@Suite struct MemberNamesTests {
    /// Each interface's method (or signal) names, in the order the file lists them.
    static func methods(_ element: String = "method") throws -> [String: [String]] {
        let xml = try String(
            contentsOf: repositoryRoot.appendingPathComponent("dbus/org.biomatimer.Timer1.xml"), encoding: .utf8)
        var result: [String: [String]] = [:]
        for part in xml.components(separatedBy: "<interface name=\"").dropFirst() {
            let name = String(part.prefix { $0 != "\"" })
            let body = part.components(separatedBy: "</interface>")[0]
            result[name] = body.components(separatedBy: "<\(element) name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        }
        return result
    }

    @Test func methodsAreTheIntrospectionData() throws {
        let methods = try Self.methods()
        #expect(methods[ContractNames.interface] == ContractMembers.timer1)
        #expect(methods[ContractNames.tasksInterface] == ContractMembers.tasks1)
        #expect(methods[ContractNames.focusInterface] == ContractMembers.focus1)
        #expect(methods[ContractNames.commandInterface] == ContractMembers.command1)
        #expect(methods[ContractNames.syncInterface] == ContractMembers.sync1)
        #expect(methods[ContractNames.hooksInterface] == ContractMembers.hooks1)
        #expect(
            Set(methods.keys.filter { $0.hasPrefix("org.biomatimer.") }) == [
                ContractNames.interface, ContractNames.tasksInterface, ContractNames.focusInterface,
                ContractNames.syncInterface, ContractNames.hooksInterface, ContractNames.commandInterface,
            ])
        #expect(BIOMATIMER_TIMER1_START_PROJECT == "StartProject" && BIOMATIMER_FOCUS1_TOGGLE_PAUSE == "TogglePause")
    }

    @Test func signalsAreTheIntrospectionData() throws {
        let signals = try Self.methods("signal").filter { $0.key.hasPrefix("org.biomatimer.") && !$0.value.isEmpty }
        #expect(signals == ContractMembers.signals)
        #expect(BIOMATIMER_FOCUS1_PHASE_ENDED == "PhaseEnded" && BIOMATIMER_SYNC1_MERGED == "Merged")
    }

    @Test func errorsAreTheDocumentedOnes() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("dbus/README.md"), encoding: .utf8)
        let table = readme.components(separatedBy: "## Errors")[1].components(separatedBy: "\n## ")[0]
        let documented = table.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            return String(line.dropFirst(3).prefix { $0 != "`" })
        }
        #expect(documented.count == 15)
        #expect(ContractMembers.errors == documented)
    }

    /// Run's context keys, which the front writes and the daemon reads from the header, are
    /// the ones dbus/README.md describes, in its order, each with its type.
    @Test func runContextKeysAreTheDocumentedOnes() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("dbus/README.md"), encoding: .utf8)
        let text = readme.components(separatedBy: "The caller's context:")[1].components(separatedBy: "another key is")[0]
        var documented: [String] = []
        for (index, part) in text.components(separatedBy: "`").enumerated()
        where index % 2 == 1 && part.first?.isUppercase == true && !documented.contains(part) {
            documented.append(part)
        }
        #expect(documented == ContractMembers.runContext)
        #expect(BIOMATIMER_RUN_STDOUT_TTY == "StdoutTty" && BIOMATIMER_RUN_OPEN_ERRORS == "OpenErrors")
    }
}
