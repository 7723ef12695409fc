import Foundation

/// A named, coloured stopwatch inside the work timer.
public struct Project: Sendable, Equatable {
    public var id: String
    public var name: String
    /// `#RRGGBB`, upper-case.
    public var color: String
    /// 0-based place in the list.
    public var position: Int
    /// An amount of time per week, per month or in total (`project edit --budget`), if any.
    public var budget: Budget?

    public init(id: String, name: String, color: String, position: Int, budget: Budget? = nil) {
        (self.id, self.name, self.color, self.position) = (id, name, color, position)
        self.budget = budget
    }

    public static let defaultColor = "#007AFF"
    /// The colours a project made without one gets, in turn: Tableau's ten, chosen to be told
    /// apart (also by most people with a colour vision deficiency), its blue the default.
    public static let palette = [
        "#007AFF", "#F28E2B", "#59A14F", "#E15759", "#B07AA1", "#76B7B2", "#EDC948", "#FF9DA7", "#9C755F", "#BAB0AC",
    ]

    /// The colour for a project made without one beside `existing`: the first of the palette
    /// no project has (ignoring case), else the palette's in turn by how many there are.
    public static func nextColor(after existing: [Project]) -> String {
        let used = Set(existing.map { $0.color.uppercased() })
        return palette.first { !used.contains($0) } ?? palette[existing.count % palette.count]
    }
    public static let maxNameLength = 64

    /// Trims the name and checks it: 1–64 characters, no control characters.
    public static func validatedName(_ raw: String) throws(TrackerError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= maxNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidName(raw) }
        return name
    }

    /// A name given to a project added or renamed: `validatedName`, and not of the form of an
    /// id (`NameRules.idForm`), which a command line would take for that id. Names already
    /// stored, merged from a peer or brought by an import keep `validatedName` alone.
    public static func validatedNewName(_ raw: String) throws(TrackerError) -> String {
        let name = try validatedName(raw)
        try NameRules.refuseIDForm(name, for: "project")
        return name
    }

    /// The key under which names are unique (ignoring case).
    public static func nameKey(_ name: String) -> String { name.lowercased() }

    /// Checks `#RRGGBB` (any case) and returns it upper-case.
    public static func validatedColor(_ raw: String) throws(TrackerError) -> String {
        guard let color = ColorText.normalized(raw) else { throw .invalidColor(raw) }
        return color
    }
}

/// What names may not be: the form of the ids things are named by on the command line.
public enum NameRules {
    /// The ids' forms: a letter and a number from 1, `p1` for a project, `c1` for a client,
    /// `t1` for a task.
    static let idLetters: [(letter: Character, kind: String)] = [("p", "projects"), ("c", "clients"), ("t", "tasks")]

    /// What a name has the form of an id of (`projects`, `clients`, `tasks`), or nil. Case is
    /// ignored, as in names: `P1` is refused too, since `p1` finds an id before a name. `p`,
    /// `p0`, `p01`, `p1a` and `project 1` are no id's form (no id is written so).
    public static func idForm(_ name: String) -> String? {
        let lowered = name.lowercased()
        let digits = lowered.dropFirst()
        guard let first = lowered.first, let lead = digits.first, lead != "0",
            digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return idLetters.first { $0.letter == first }?.kind
    }

    /// Refuses a name of `what` (`project`, `client`) that has the form of an id.
    static func refuseIDForm(_ name: String, for what: String) throws(TrackerError) {
        guard let kind = idForm(name) else { return }
        throw .invalidArgument(
            "A \(what)'s name cannot look like an id (\(name.lowercased()) is how \(kind) are named on the command line): choose another name.")
    }
}

extension Array where Element == Project {
    /// The project a caller means by `ref`: its id, or its name ignoring case and surrounding
    /// white space (ids are tried first, so a project named like another's id stays reachable
    /// by that id).
    public func resolve(_ ref: String) throws(TrackerError) -> Project {
        if let project = first(where: { $0.id == ref }) { return project }
        let key = Project.nameKey(ref.trimmingCharacters(in: .whitespacesAndNewlines))
        if let project = first(where: { Project.nameKey($0.name) == key }) { return project }
        throw .noSuchProject(ref)
    }
}

/// Every way a tracker call can fail. A failed call changes nothing.
public enum TrackerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The reference (id or name) given.
    case noSuchProject(String)
    /// The name given.
    case invalidName(String)
    /// The colour given.
    case invalidColor(String)
    /// The name given, which another project already has (ignoring case).
    case nameTaken(String)
    /// The task id given.
    case noSuchTask(String)
    /// The interval id given.
    case noSuchInterval(String)
    /// A sentence naming the intervals in the way.
    case overlap(String)
    /// A sentence: the journal is empty.
    case nothingToUndo(String)
    /// A sentence saying what is wrong.
    case invalidArgument(String)
    /// No focus timer, or none in a state the operation applies to: a sentence.
    case noFocus(String)
    /// The preset reference (id or name) given.
    case noSuchPreset(String)
    /// A sentence naming the entry or line of imported data that is wrong, and why.
    case invalidImport(String)
    /// A sentence naming the database path and the cause.
    case storage(String)

    /// A sentence a person can act on.
    public var message: String {
        switch self {
        case .noSuchProject(let ref):
            return "No project named or with id '\(ref)'."
        case .invalidName(let name):
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                return "Project names cannot be empty: give 1–64 characters."
            }
            if trimmed.count > Project.maxNameLength {
                return "Project names are 1–64 characters after trimming; this one has \(trimmed.count)."
            }
            return "Project names cannot contain control characters (tabs, line breaks, …): \(TextEscaping.visible(name))."
        case .invalidColor(let color):
            return ColorText.problem(color)
        case .nameTaken(let name):
            return "A project named '\(name)' already exists (names are unique ignoring case)."
        case .noSuchTask(let id):
            return "No task with id '\(id)' (`biomatimer task list --all` shows them)."
        case .noSuchPreset(let ref):
            return "No focus preset named or with id '\(ref)'."
        case .noSuchInterval(let id):
            return "No interval with id '\(id)' (`biomatimer log` shows them)."
        case .invalidArgument(let text), .invalidImport(let text), .storage(let text), .noFocus(let text), .overlap(let text), .nothingToUndo(let text):
            return text
        }
    }

    public var description: String { message }
}
