@testable import BiomaTray
import BiomaWidgets
import DBusCore
import Testing
import BiomaContract

/// More projects than a screen holds: those with a client in a submenu per client.
@Suite struct TrayClientTests {
    static func input(count: Int, clients: [Int: (String, String)]) -> TrayInput {
        var input = TrayMenuTests.input(names: (1...count).map { "Project \($0)" })
        for index in input.projects.indices {
            if let (id, name) = clients[index] { (input.projects[index].client, input.projects[index].clientName) = (id, name) }
        }
        return input
    }

    @Test func projectsGoUnderTheirClientWhenTheyAreMany() throws {
        var clients: [Int: (String, String)] = [:]
        for index in 0..<10 { clients[index * 2] = index % 2 == 0 ? ("c1", "ACME") : ("c2", "Glo_bex") }
        var menu = TrayMenu()
        _ = menu.update(Self.input(count: 25, clients: clients), now: TrayMenuTests.now)
        let labels = menu.root.children.map { $0.properties["label"]?.string ?? "" }
        let acme = try #require(menu.root.children.first { $0.properties["label"]?.string == "ACME (5)" })
        #expect(acme.properties["children-display"] == "submenu")
        #expect(acme.children.map { $0.properties["label"]?.string?.prefix(10) ?? "" } == ["Project 1 ", "Project 5 ", "Project 9 ", "Project 13", "Project 17"])
        #expect(labels.contains("Glo__bex (5)"), "\(labels)")
        // The 15 without a client stay in the menu itself, after the clients.
        #expect(labels.filter { $0.hasPrefix("Project ") }.count == 15)
        // Clicking a project in a submenu starts it.
        #expect(acme.children.first?.action == .startProject("p1") || acme.children.first?.action == .stopProject)
        // Few projects: one flat list whatever their clients.
        var small = TrayMenu()
        _ = small.update(Self.input(count: 5, clients: [0: ("c1", "ACME")]), now: TrayMenuTests.now)
        #expect(small.root.children.filter { ($0.properties["label"]?.string ?? "").hasPrefix("Project ") }.count == 5)
    }
}
