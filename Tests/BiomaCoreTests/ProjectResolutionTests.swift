import BiomaCore
import Testing

/// Which project a caller means: an id first, then a name ignoring case and white space.
@Suite struct ProjectResolutionTests {
    let projects = [
        Project(id: "p1", name: "Client A", color: "#FF8800", position: 0),
        Project(id: "p2", name: "p1", color: "#007AFF", position: 1),
    ]

    @Test func idsComeBeforeNames() throws {
        #expect(try projects.resolve("p1").name == "Client A")
        #expect(try projects.resolve("p2").name == "p1")
    }

    @Test func namesIgnoreCaseAndSurroundingSpace() throws {
        #expect(try projects.resolve("client a").id == "p1")
        #expect(try projects.resolve("  CLIENT A\n").id == "p1")
    }

    @Test func anUnknownReferenceIsNamed() {
        #expect(throws: TrackerError.noSuchProject("Client B")) { try projects.resolve("Client B") }
        #expect(throws: TrackerError.noSuchProject("")) { try [Project]().resolve("") }
    }
}

/// A project made without a colour gets the palette's next: distinct colours for the first
/// ten, the first free one after a delete, and the palette in turn once all are taken.
@Suite struct ProjectPaletteTests {
    @Test func newProjectsGetDistinctColours() {
        var projects: [Project] = []
        for index in 0..<10 {
            let color = Project.nextColor(after: projects)
            projects.append(Project(id: "p\(index + 1)", name: "P\(index)", color: color, position: index))
        }
        #expect(Set(projects.map(\.color)).count == 10)
        #expect(projects.map(\.color) == Project.palette)
        #expect(projects.allSatisfy { (try? Project.validatedColor($0.color)) == $0.color })
        // One deleted: its colour is the next; all taken: in turn.
        #expect(Project.nextColor(after: projects.filter { $0.id != "p3" }) == Project.palette[2])
        #expect(Project.nextColor(after: projects) == Project.palette[0])
        // A colour given by hand in another case still counts as used.
        #expect(Project.nextColor(after: [Project(id: "p1", name: "A", color: "#007aff", position: 0)]) == "#F28E2B")
    }
}
