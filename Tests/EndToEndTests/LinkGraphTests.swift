import Foundation
import Testing

import TestSupport

/// The dependency graph runs one way: the daemon links the command tree's grammar but none of
/// the local commands' bodies — the tray, the watcher, the installer — nor zlib (the tray's
/// PNG dots), read from the built binaries' symbols (binutils' `nm`) and dynamic section.
@Suite(.timeLimit(.minutes(2)))
struct LinkGraphTests {
    /// Swift mangles a module's name into each of its symbols as its length and its name.
    static func mangled(_ module: String) -> String { "\(module.utf8.count)\(module)" }

    static let forbidden = ["BiomaTray", "BiomaClient", "BiomaInstall"]
    static let zlibSymbols = ["deflate", "deflateInit_", "crc32", "inflate", "zlibVersion"]

    /// The names `nm` lists for `binary` (defined and undefined alike).
    static func symbols(_ binary: String) throws -> Set<Substring> {
        let listed = try runProcess("/usr/bin/nm", [productsDirectory.appendingPathComponent(binary).path], timeout: 60)
            .requireSuccess("nm \(binary)")
        return Set(listed.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last })
    }

    static func needed(_ binary: String) throws -> [String] {
        let dynamic = try runProcess("/usr/bin/readelf", ["-d", productsDirectory.appendingPathComponent(binary).path])
            .requireSuccess("readelf \(binary)")
        return dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map(String.init)
    }

    @Test func theDaemonLinksNeitherTheTrayTheWatcherTheInstallerNorZlib() throws {
        let names = try Self.symbols("biomatimerd")
        // The check reads real symbols: the daemon's own modules are there.
        for module in ["BiomaDaemon", "BiomaCommands", "BiomaSystem"] {
            #expect(names.contains { $0.contains(Self.mangled(module)) }, "no \(module) symbol in biomatimerd")
        }
        for module in Self.forbidden {
            let found = names.filter { $0.contains(Self.mangled(module)) }
            #expect(found.isEmpty, "biomatimerd links \(module): \(found.prefix(3))")
        }
        let zlib = Self.zlibSymbols.filter { names.contains(Substring($0)) }
        #expect(zlib.isEmpty, "biomatimerd names zlib's \(zlib)")
        let libraries = try Self.needed("biomatimerd")
        #expect(!libraries.contains { $0.contains("libz.so") }, "biomatimerd needs \(libraries)")
    }

    /// The same reading finds them where they belong: the tool runs those commands.
    @Test func theToolCarriesTheLocalCommandsBodies() throws {
        let names = try Self.symbols("biomatimer-tool")
        for module in Self.forbidden {
            #expect(names.contains { $0.contains(Self.mangled(module)) }, "no \(module) symbol in biomatimer-tool")
        }
        #expect(names.contains("deflate") || names.contains("crc32"), "no zlib symbol in biomatimer-tool")
    }
}
