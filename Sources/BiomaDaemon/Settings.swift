import BiomaCore
import BiomaText
import Foundation

/// The daemon's settings: `$XDG_CONFIG_HOME/biomatimer/config` (default
/// `~/.config/biomatimer/config`), read at start-up, overridden by command-line options.
///
/// ```
/// # biomatimer
/// day_start = 04:00      # when a day begins (local time)
/// week_start = sunday    # monday (default) or sunday
/// data_dir = ~/timesheets
/// notifications = off   # no desktop notifications (reminders)
/// away = stop            # away time is not work: stop (default), pause or keep
/// away_after = 10m       # lock and idle absences shorter than this count as work
/// phase_end_command = notify-send "$BIOMATIMER_PHASE done"   # at each focus phase end
/// export_ics = ~/calendars/work.ics   # kept fresh: the last 8 weeks and this one
/// target = 8h            # a work target every day; target_mon … target_sun beat it
/// balance_since = 2026-01-01   # the overtime balance counts from this day
/// sync_dir = ~/Sync/biomatimer  # one history across machines (a folder Syncthing shares)
/// input_timeout = 30s    # a command's input (`import -`) that sends nothing this long ends
/// hook_timeout = 10s     # a hook still running this long gets SIGTERM (then SIGKILL)
/// short_interval = 5s    # an interval left by switching away within this many seconds is
///                        # not recorded; its seconds go to the interval that stays
/// ```
///
/// A line that cannot be used (a bad value, an unknown key, a line that is not `key = value`)
/// never stops the daemon: it is one of `problems`, and its setting keeps its default (or what
/// an earlier line gave it); every other line applies.
public struct Settings: Equatable, Sendable {
    public var dayStartMinutes = 0
    public var firstWeekday = 2
    public var dataDirectory: URL?
    /// Desktop notifications (task reminders): on unless `notifications = off`.
    public var notifications = true
    /// `away = stop|pause|keep` and `away_after = 10m`.
    public var away = AwayRules()
    /// `phase_end_command = …`: run through `/bin/sh -c` at each focus phase end, with the
    /// phase in `BIOMATIMER_*` environment variables.
    public var phaseEndCommand: String?
    /// `export_ics = PATH` (`~/` expanded; absolute): the calendar file the daemon keeps fresh.
    public var exportICS: String?
    /// `target = 8h`, `target_mon = 8h` … `target_sun = 0`: the daily work targets.
    public var targets = WorkTargets()
    /// `balance_since = YYYY-MM-DD`: the first day of the balance (nil: the first recorded day).
    public var balanceSince: Day?
    /// `sync_dir = DIR` (`~/` expanded; absolute): sync is turned on for this folder at start.
    public var syncDirectory: String?
    /// `input_timeout = 30s`: a caller's pipe or terminal that sends nothing this long ends its
    /// command (`cannot read standard input: no data for 30 s`).
    public var inputIdleSeconds = 30
    /// `hook_timeout = 10s`: how long a hook may run before SIGTERM (then SIGKILL).
    public var hookSeconds = 10
    /// `short_interval = 5s` (0 to 10 min): an interval left by switching away within this many
    /// seconds is not recorded; its seconds go to the interval that stays.
    public var shortInterval: Micros = Settings.defaultShortInterval
    /// The lines of the file that were not used, each `FILE:LINE: what is wrong` (or `FILE: …`
    /// for a file that cannot be read), in the file's order.
    public var problems: [String] = []

    public static let defaultShortInterval: Micros = 5 * microsPerSecond
    /// The longest `short_interval`.
    public static let maximumShortInterval: Micros = 10 * 60 * microsPerSecond

    public init() {}

    /// The hooks folder: `hooks/` beside the settings file.
    public static func hooksDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        file(environment: environment).deletingLastPathComponent().appendingPathComponent("hooks").path
    }

    public static func file(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("biomatimer/config")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/biomatimer/config")
    }

    /// Reads the file; a missing file means the defaults. A bad line is one of `problems`, and
    /// so is a file that is there but cannot be read (then every setting keeps its default).
    public static func load(from file: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> Settings {
        guard FileManager.default.fileExists(atPath: file.path) else { return Settings() }
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            var settings = Settings()
            settings.problems = ["\(file.path): cannot be read (\(error.localizedDescription)): every setting keeps its default"]
            return settings
        }
        return parse(text, source: file.path, environment: environment)
    }

    /// The settings `text` gives; each line that cannot be used is one of `problems`, named
    /// `SOURCE:LINE`, and changes nothing.
    public static func parse(_ text: String, source: String, environment: [String: String] = [:]) -> Settings {
        var settings = Settings()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            do throws(SettingsError) {
                try settings.apply(line: raw, at: "\(source):\(index + 1)", environment: environment)
            } catch {
                settings.problems.append(error.description)
            }
        }
        return settings
    }

    /// Applies one line of the file, or throws what is wrong with it and changes nothing.
    mutating func apply(line raw: Substring, at where_: String, environment: [String: String]) throws(SettingsError) {
        // A command is the rest of its line, `#` included.
        let whole = raw.trimmingCharacters(in: .whitespaces)
        if whole.hasPrefix("phase_end_command"), let equals = whole.firstIndex(of: "="),
            whole[..<equals].trimmingCharacters(in: .whitespaces) == "phase_end_command"
        {
            let command = whole[whole.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !command.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else {
                throw SettingsError("\(where_): phase_end_command must be one line")
            }
            phaseEndCommand = command.isEmpty ? nil : command
            return
        }
        let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return }
        let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { throw SettingsError("\(where_): expected `key = value`, got `\(trimmed)`") }
        if try applyTarget(key: parts[0], value: parts[1], at: where_) { return }
        switch parts[0] {
        case "day_start":
            guard let minutes = Self.parseTime(parts[1]) else {
                throw SettingsError("\(where_): day_start `\(parts[1])` is not a time: use HH:MM, e.g. 04:00")
            }
            dayStartMinutes = minutes
        case "week_start":
            guard let weekday = Self.parseWeekStart(parts[1]) else {
                throw SettingsError("\(where_): week_start must be monday or sunday, not `\(parts[1])`")
            }
            firstWeekday = weekday
        case "data_dir":
            var path = parts[1]
            if path.hasPrefix("~/"), let home = environment["HOME"] { path = home + path.dropFirst() }
            guard path.hasPrefix("/") else { throw SettingsError("\(where_): data_dir must be an absolute path") }
            dataDirectory = URL(fileURLWithPath: path, isDirectory: true)
        case "away":
            guard let policy = AwayPolicy(rawValue: parts[1].lowercased()) else {
                throw SettingsError("\(where_): away must be stop, pause or keep, not `\(parts[1])`")
            }
            away.policy = policy
        case "away_after":
            guard let threshold = DurationText.parse(parts[1]) else {
                throw SettingsError("\(where_): away_after `\(parts[1])` is not a duration: use e.g. 10m, 90s, 1h")
            }
            away.threshold = threshold
        case "notifications":
            switch parts[1].lowercased() {
            case "on", "yes", "true": notifications = true
            case "off", "no", "false": notifications = false
            default: throw SettingsError("\(where_): notifications must be on or off, not `\(parts[1])`")
            }
        case "export_ics":
            exportICS = try Self.exportPath(parts[1], where_, environment, key: "export_ics")
        case "sync_dir":
            syncDirectory = try Self.exportPath(parts[1], where_, environment, key: "sync_dir")
        case "input_timeout":
            guard let seconds = Self.parseInputTimeout(parts[1]) else {
                throw SettingsError("\(where_): input_timeout `\(parts[1])` is not a duration from 1s to 24h: use e.g. 30s, 2m")
            }
            inputIdleSeconds = seconds
        case "hook_timeout":
            guard let limit = DurationText.parse(parts[1]), (1_000_000...3_600_000_000).contains(limit) else {
                throw SettingsError("\(where_): hook_timeout `\(parts[1])` is not a duration from 1s to 1h: use e.g. 10s, 1m")
            }
            hookSeconds = Int(limit / 1_000_000)
        case "short_interval":
            guard
                let length = try? DurationText.read(parts[1], what: "short_interval", max: Self.maximumShortInterval, allowZero: true)
            else {
                throw SettingsError("\(where_): short_interval `\(parts[1])` is not a duration from 0s to 10m: use e.g. 5s, 30s, 0")
            }
            shortInterval = length
        default:
            throw SettingsError(
                "\(where_): unknown setting `\(parts[0])` (known: day_start, week_start, data_dir, notifications, away, away_after, phase_end_command, export_ics, sync_dir, input_timeout, hook_timeout, short_interval, target, target_mon … target_sun, balance_since)")
        }
    }

    /// `input_timeout`'s (and `--input-timeout`'s) whole seconds: a duration from 1 s to 24 h.
    public static func parseInputTimeout(_ text: String) -> Int? {
        guard let limit = DurationText.parse(text), (1_000_000...86_400_000_000).contains(limit) else { return nil }
        return Int(limit / 1_000_000)
    }

    /// `export_ics`'s and `sync_dir`'s path: `~/` expanded, then absolute (without a final `/`).
    static func exportPath(_ text: String, _ where_: String, _ environment: [String: String], key: String) throws(SettingsError) -> String {
        var path = text
        if path.hasPrefix("~/"), let home = environment["HOME"] { path = home + path.dropFirst() }
        guard path.hasPrefix("/"), !path.hasSuffix("/") else {
            throw SettingsError("\(where_): \(key) must be an absolute path (or start with ~/), not `\(text)`")
        }
        return path
    }

    /// The target settings (`target`, `target_mon` … `target_sun`, `balance_since`): true when
    /// `key` is one of them, a `SettingsError` naming the line when its value is bad.
    mutating func applyTarget(key: String, value: String, at line: String) throws(SettingsError) -> Bool {
        do throws(TrackerError) {
            if key == "balance_since" {
                balanceSince = try parseBalanceSince(value)
                return true
            }
            return try targets.apply(key: key, value: value)
        } catch {
            throw SettingsError("\(line): \(error.message)")
        }
    }

    /// `HH:MM` → minutes after midnight (`ClockText`, the one reader of a clock time).
    public static func parseTime(_ text: String) -> Int? {
        ClockText.parse(text).map { $0.hour * 60 + $0.minute }
    }

    /// `monday` / `sunday` → the Calendar weekday number (2 / 1).
    public static func parseWeekStart(_ text: String) -> Int? {
        switch text.lowercased() {
        case "monday", "mon": return 2
        case "sunday", "sun": return 1
        default: return nil
        }
    }
}

/// What is wrong with a line of the settings file: `FILE:LINE: what`.
public struct SettingsError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
