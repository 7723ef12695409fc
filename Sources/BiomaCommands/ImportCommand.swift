import CContract
import BiomaText
import ArgumentParser
import BiomaSystem
import DBusCore
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

struct Import: ParsableCommand, UsesFiles, RefusesEarly {
    static let configuration = CommandConfiguration(
        abstract: "Import intervals from a CSV file made by export, from Timewarrior or from Watson; all or nothing.",
        discussion: """
            --format csv (the default) reads what `biomatimer export` writes. --format timewarrior \
            reads what `timew export` writes (every interval must be closed: run `timew stop` \
            first); --format watson reads Watson's frames file (~/.config/watson/frames). An \
            interval's project is the first of its labels that a --tag-map names, else its first \
            label: Timewarrior's tags (in Timewarrior's order, which is alphabetical), or \
            Watson's project followed by its tags; untagged time is work without a project. \
            Projects are matched by name ignoring case, or created. Time already recorded \
            exactly so is skipped, so importing the same data twice adds nothing; time \
            overlapping other recorded time is refused, naming the entry, and nothing is written.
            """)
    // `--format`, as export's: `--from` is a first day everywhere else.
    @Option(help: "The format: csv, timewarrior (`timew export`) or watson (its frames file).") var format: Source = .csv
    @Option(
        name: .customLong("tag-map"),
        help: ArgumentHelp(
            "Time labelled TAG goes to PROJECT (repeatable; an empty PROJECT means no project).", valueName: "TAG=PROJECT"))
    var tagMap: [String] = []
    @Argument(help: "The file, or - for standard input.", completion: .file()) var file: String

    var fileRequests: [FileRequest] { [file == "-" ? .standardInput : .read(file)] }

    enum Source: String, ExpressibleByArgument, CaseIterable {
        case csv, timewarrior, watson
    }

    /// The most a D-Bus message can carry (the protocol's limit; a bus may set a lower one).
    static let messageLimit = 134_217_728

    func validate() throws {
        let map = try Self.parseTagMap(tagMap)
        if format == .csv && !map.isEmpty {
            throw ValidationError("--tag-map is for --format timewarrior and --format watson: a CSV file names its projects.")
        }
    }

    static func parseTagMap(_ items: [String]) throws -> [(String, String)] {
        var seen = Set<String>()
        return try items.map { item in
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                throw ValidationError("--tag-map \(TextEscaping.visible(item)) is not TAG=PROJECT (e.g. --tag-map acme=\"ACME Corp\").")
            }
            let tag = String(item[..<equals])
            guard seen.insert(tag).inserted else { throw ValidationError("--tag-map names the tag \(TextEscaping.visible(tag)) twice.") }
            return (tag, String(item[item.index(after: equals)...]))
        }
    }

    func run() throws {
        let data = try CommandContext.current.files.read(file)
        guard !data.withUnsafeBufferPointer({ bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }),
            let text = String(validating: data, as: UTF8.self)
        else {
            throw ClientFailure(exitCode: 1, "\(file) is not UTF-8 text.")
        }
        guard data.count <= Self.messageLimit - 4096 else {
            throw ClientFailure(
                exitCode: 1,
                "\(file) has \(data.count / 1_048_576) MiB: more than one D-Bus message can carry (128 MiB). Split it (for Timewarrior, `timew export` with a date range) and import the parts.")
        }
        if CommandContext.current.stderrTTY, let entries = Self.entryCount(data, format: format), entries >= 10_000 {
            writeStandardError("Importing \(entries) intervals…\n")
        }
        let count: Int64
        do {
            if format == .csv {
                count = try callDaemon(BIOMATIMER_TIMER1_IMPORT_CSV, [.string(text)]).first?.int64 ?? 0
            } else {
                let pairs = try Self.parseTagMap(tagMap).map { (DBusValue.string($0.0), DBusValue.string($0.1)) }
                let options: DBusValue =
                    pairs.isEmpty ? .vardict([:]) : .vardict(["TagMap": .dictionary(key: .string, value: .string, pairs)])
                count = try callDaemon(BIOMATIMER_TIMER1_IMPORT, [.string(format.rawValue), .string(text), options]).first?.int64 ?? 0
            }
        } catch let failure as ClientFailure where failure.exitCode == ExitCode.unavailable && data.count > 32 << 20 {
            // A bus drops a connection that sends a message over its max_message_size.
            throw ClientFailure(
                exitCode: ExitCode.refused,
                "\(failure.description)\n\(file) has \(data.count / 1_048_576) MiB: the bus may have refused a message that large (its max_message_size). Split it and import the parts.")
        }
        say("Imported \(count) interval\(count == 1 ? "" : "s").")
    }

    /// Refused whatever follows: a NUL byte, as `run` refuses anything that is not UTF-8
    /// text (`/dev/urandom`, a binary file, `cat /dev/zero` through a pipe). The daemon stops
    /// reading there, so none of the rest is kept.
    var refusesAlready: @Sendable ([UInt8], Range<Int>) -> Bool {
        { bytes, new in
            !new.isEmpty && bytes.withUnsafeBufferPointer { memchr($0.baseAddress! + new.lowerBound, 0, new.count) != nil }
        }
    }

    /// About how many entries the data holds, for the progress line: the top-level array's
    /// elements for JSON, the lines after the header for CSV.
    static func entryCount(_ data: [UInt8], format: Source) -> Int? {
        if format == .csv { return max(0, data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } - 1) }
        var depth = 0
        var inString = false
        var escaped = false
        var count = 0
        var empty = true
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 { empty = false }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1 { empty = false }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { count += 1 }
            case 0x20, 0x09, 0x0A, 0x0D: break
            default: if depth == 1 { empty = false }
            }
        }
        return empty ? 0 : count + 1
    }
}
