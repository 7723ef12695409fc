import ArgumentParser
import BiomaText

/// A command as ArgumentParser describes it (`--experimental-dump-help`'s tree), with what the
/// manual shows: its displayed arguments, without `--help` and `--version`.
struct ManualCommand {
    var name: String
    var path: [String]
    var abstract: String
    var discussion: String
    var shouldDisplay: Bool
    var defaultSubcommand: String?
    var arguments: [ManualArgument]
    var subcommands: [ManualCommand]
    /// The abstract of `--version`, as ArgumentParser words it.
    var versionAbstract: String

    init(tree json: String) {
        let parsed = (try? StrictJSON.parse(json)) ?? .null
        self.init(parsed["command"] ?? .null, parent: [])
    }

    init(_ json: StrictJSON, parent: [String]) {
        name = json["commandName"]?.string ?? ""
        path = parent + [name]
        abstract = json["abstract"]?.string ?? ""
        discussion = json["discussion"]?.string ?? ""
        shouldDisplay = json["shouldDisplay"]?.bool ?? true
        defaultSubcommand = json["defaultSubcommand"]?.string
        let all = (json["arguments"]?.items ?? []).map(ManualArgument.init)
        versionAbstract = all.first { $0.kind == .flag && $0.long == "version" }?.abstract ?? "Show the version."
        arguments = all.filter { $0.shouldDisplay && !($0.kind == .flag && ["help", "version"].contains($0.long ?? "")) }
        let path = path
        subcommands = (json["subcommands"]?.items ?? []).map { ManualCommand($0, parent: path) }
    }

    /// A group's paragraph: its abstract and discussion, and what it runs alone.
    var familyParagraph: String {
        var words = abstract
        if !discussion.isEmpty { words += "\n" + discussion }
        if let defaultSubcommand {
            words += "\n`\(path.joined(separator: " "))` alone runs `\(path.dropFirst().joined(separator: " ")) \(defaultSubcommand)`."
        }
        return words
    }
}

struct ManualArgument {
    enum Kind: String { case positional, option, flag }
    var kind: Kind
    /// `-o`, `--output`, as typed.
    var names: [String]
    var long: String?
    var valueName: String
    var isOptional: Bool
    var isRepeating: Bool
    var shouldDisplay: Bool
    var allValues: [String]
    var abstract: String

    init(_ json: StrictJSON) {
        kind = Kind(rawValue: json["kind"]?.string ?? "") ?? .option
        let names = (json["names"]?.items ?? []).compactMap { name -> (kind: String, name: String)? in
            guard let kind = name["kind"]?.string, let text = name["name"]?.string else { return nil }
            return (kind, text)
        }
        // `-o|--output`: the short name first.
        self.names = names.filter { $0.kind != "long" }.map { "-" + $0.name } + names.filter { $0.kind == "long" }.map { "--" + $0.name }
        long = names.first { $0.kind == "long" }?.name
        valueName = json["valueName"]?.string ?? ""
        isOptional = json["isOptional"]?.bool ?? false
        isRepeating = json["isRepeating"]?.bool ?? false
        shouldDisplay = json["shouldDisplay"]?.bool ?? true
        allValues = (json["allValues"]?.items ?? []).compactMap(\.string)
        abstract = json["abstract"]?.string ?? ""
    }
}

extension String {
    /// Paragraphs, split at blank lines.
    var paragraphs: [String] {
        split(separator: "\n\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The first sentence, when there is more than an example: up to the first `. ` before a
    /// capital letter, or the whole text when it is one sentence; nil when empty or indented.
    var firstSentence: String? {
        guard let first = split(separator: "\n").first, !first.isEmpty, first.first != " " else { return nil }
        let characters = Array(first)
        for index in characters.indices.dropLast(2)
        where characters[index] == "." && characters[index + 1] == " " && characters[index + 2].isUppercase {
            let sentence = String(characters[...index])
            if sentence.hasSuffix("e.g.") || sentence.hasSuffix("i.e.") { continue }
            return sentence
        }
        return String(first)
    }

    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
