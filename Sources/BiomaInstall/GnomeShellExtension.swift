import BiomaSystem
import DBusCore

#if canImport(Glibc)
import Glibc
#endif

/// biomatimer's GNOME Shell extension (its sources in `gnome-shell/` beside this file): the folder `install` writes into
/// `gnome-shell/extensions/`. One source, two forms: GNOME 43–44 load an extension as a legacy
/// `imports` script, GNOME 45 and later as an ES module, so `extension.js` is the shared code
/// (`island.js`, `client.js`, `indicator.js`) between the form's head and tail.
public enum GnomeShellExtension {
    public static let uuid = "biomatimer@biomatimer.org"

    public enum Form: Sendable, Equatable {
        /// GNOME 43 and 44: `imports.gi`, `init()`.
        case legacy
        /// GNOME 45 and later: `import … from 'gi://…'`, `export default class`.
        case modules

        var shellVersions: String { self == .legacy ? #"["43", "44"]"# : #"["45", "46", "47", "48", "49"]"# }
        var prefix: String { self == .legacy ? "legacy" : "module" }

        /// The form for the GNOME Shell `gnome-shell --version` names (`GNOME Shell 43.9`):
        /// legacy before 45; ES modules from 45, and when no GNOME Shell is installed (the
        /// current form, for a shell installed later).
        public init(forVersion text: String?) {
            guard let text, let number = text.split(separator: " ").last,
                let major = Int(number.split(separator: ".").first ?? "")
            else {
                self = .modules
                return
            }
            self = major < 45 ? .legacy : .modules
        }
    }

    /// The extension folder's files for `form`, by name.
    public static func files(_ form: Form) -> [(name: String, text: String)] {
        func source(_ name: String) -> String { String(decoding: sources[name] ?? [], as: UTF8.self) }
        let script = ["\(form.prefix)-head.js", "island.js", "client.js", "indicator.js", "\(form.prefix)-tail.js"].map(source).joined()
        let metadata = source("metadata.json")
            .split(separator: "@SHELL_VERSIONS@", omittingEmptySubsequences: false).joined(separator: form.shellVersions)
        return [("extension.js", script), ("metadata.json", metadata), ("stylesheet.css", source("stylesheet.css"))]
    }


    /// The sources in `gnome-shell/`, by name, compiled in as they are (the package's
    /// resources).
    static let sources: [String: [UInt8]] = [
        "metadata.json": PackageResources.metadata_json, "stylesheet.css": PackageResources.stylesheet_css,
        "legacy-head.js": PackageResources.legacy_head_js, "legacy-tail.js": PackageResources.legacy_tail_js,
        "module-head.js": PackageResources.module_head_js, "module-tail.js": PackageResources.module_tail_js,
        "island.js": PackageResources.island_js, "client.js": PackageResources.client_js,
        "indicator.js": PackageResources.indicator_js,
    ]

    /// `gnome-shell --version`'s answer, nil when GNOME Shell is not installed.
    public static func installedVersion() -> String? {
        guard let output = Subprocess.output(["gnome-shell", "--version"]) else { return nil }
        let line = output.split(separator: "\n").first.map(String.init) ?? ""
        return line.hasPrefix("GNOME Shell ") ? line : nil
    }

    /// Adds the extension to `org.gnome.shell enabled-extensions` (through `gsettings`, so the
    /// user's dconf database) unless it is there; GNOME loads it at its next start. Returns
    /// false when the setting could not be read or written.
    public static func enable() -> Bool {
        guard let current = Subprocess.output(["gsettings", "get", "org.gnome.shell", "enabled-extensions"]) else {
            return false
        }
        var names = enabledNames(current)
        if names.contains(uuid) { return true }
        names.append(uuid)
        let list = "[" + names.map { "'\($0)'" }.joined(separator: ", ") + "]"
        return Subprocess.output(["gsettings", "set", "org.gnome.shell", "enabled-extensions", list]) != nil
    }

    /// The names in a GVariant string list as `gsettings get` prints it (`['a@b', 'c@d']`,
    /// `@as []`). Extension UUIDs hold no quotes.
    static func enabledNames(_ text: String) -> [String] {
        text.split(separator: "'", omittingEmptySubsequences: false).enumerated()
            .compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }
}

/// A program run to its end with its standard output read.
enum Subprocess {
    /// What `argv` (searched on `PATH`) printed, or nil when it could not run or exited with
    /// another status than 0. Its standard error is discarded.
    static func output(_ argv: [String]) -> String? {
        guard let (status, bytes) = try? Spawn.run(argv, environment: .inherited), Spawn.succeeded(status) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension GnomeShellExtension {
    /// Whether a GNOME Shell owns `org.gnome.Shell` on this session bus.
    public static func shellIsRunning() -> Bool {
        guard let bus = try? BlockingBus(.session) else { return false }
        return (try? bus.nameOwner("org.gnome.Shell")) != nil
    }
}
