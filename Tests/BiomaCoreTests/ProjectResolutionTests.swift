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
