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

    /// A new name (add, rename) of an id's form is refused: `p1` would find the project with
    /// that id first. Names already stored keep the shape check alone and stay reachable.
    @Test func newNamesCannotLookLikeIds() throws {
        #expect(throws: TrackerError.invalidArgument(
            "A project's name cannot look like an id (p1 is how projects are named on the command line): choose another name.")
        ) { try Project.validatedNewName("p1") }
        #expect(throws: TrackerError.invalidArgument(
            "A project's name cannot look like an id (c12 is how clients are named on the command line): choose another name.")
        ) { try Project.validatedNewName(" C12\n") }
        #expect(throws: TrackerError.invalidArgument(
            "A client's name cannot look like an id (t3 is how tasks are named on the command line): choose another name.")
        ) { try Client.validatedNewName("T3") }
        #expect(throws: TrackerError.self) { try Client.validatedNewName("p7") }
        #expect(throws: TrackerError.self) { try Project.validatedNewName("p90000000000000000000000") }
        for kept in ["p", "p0", "p01", "p1a", "p 1", "Project 1", "pp1", "x1", "1", "p١", "p¹"] {
            #expect(try Project.validatedNewName(kept) == kept, "\(kept)")
            #expect(try Client.validatedNewName(kept) == kept, "\(kept)")
        }
        // The shape check, for names stored or imported, takes them.
        #expect(try Project.validatedName("p1") == "p1" && Client.validatedName("c2") == "c2")
        // Still empty, too long or with control characters: that error first.
        #expect(throws: TrackerError.invalidName("")) { try Project.validatedNewName("") }
        #expect(NameRules.idForm("P2") == "projects" && NameRules.idForm("c2") == "clients" && NameRules.idForm("Client") == nil)
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
