import BiomaClient
import BiomaCommands
import BiomaInstall
import BiomaSystem
import BiomaTray
import BiomaWidgets
import BiomaContract

/// `watch`, `tray`, `install`, `uninstall` and `daemon` as this process runs them: the
/// watcher, the tray and the installer live here, not in the command tree the daemon links.
final class LocalBodies: LocalCommands {
    private func say(_ text: String) { CommandContext.current.output(text + "\n") }

    func watch(_ renderer: any WidgetRenderer) throws {
        // One write(2) per line: every line reaches the bar at once.
        let watcher = Watcher(renderer: renderer) { line in writeAll(line + "\n", to: 1) }
        // Why it shows offline, on standard error (the bar's log), once per reason.
        watcher.problem = { reason in _ = writeAll("biomatimer: \(reason)\n", to: 2) }
        let clicks = I3blocksClicks.stdinCarriesClicks(environment: processEnvironment())
        watcher.run(address: .session, handleClicks: clicks)
    }

    func tray() throws {
        TrayService.run { line in writeAll(line + "\n", to: 2) }
    }

    func daemon(options: [String]) throws {
        guard let daemon = Installer.siblingExecutable("biomatimerd") else {
            throw ClientFailure(
                exitCode: ExitCode.refused, "cannot find biomatimerd beside \(Installer.currentExecutable()); reinstall biomatimer.")
        }
        do {
            try Installer.exec(daemon, arguments: ["biomatimerd"] + options)
        } catch {
            throw ClientFailure(exitCode: ExitCode.refused, error.description)
        }
    }

    func install(prefix: String?, taskwarrior: Bool, texts: GrammarTexts) throws {
        let layout = prefix.map { InstallLayout.prefix(Installer.expandingTilde($0)) } ?? .user()
        let tool = Installer.currentExecutable()
        guard let front = Installer.frontExecutable(besides: tool), let daemon = Installer.siblingExecutable("biomatimerd")
        else {
            throw ClientFailure(exitCode: 1, "cannot find the biomatimer and biomatimerd binaries that belong beside \(tool).")
        }
        // The top bar extension in the form the installed GNOME Shell loads.
        let gnome = GnomeShellExtension.installedVersion()
        let extras: [(path: String, text: String)] = [
            (layout.manualPage, texts.manual), (layout.bashCompletion, texts.bash), (layout.zshCompletion, texts.zsh),
            (layout.fishCompletion, texts.fish),
        ] + GnomeShellExtension.files(.init(forVersion: gnome)).map { ("\(layout.gnomeShellExtension)/\($0.name)", $0.text) }
        let paths: [String]
        do {
            let scripts: [(path: String, text: String)] =
                taskwarrior
                ? [(Installer.taskwarriorHooksFolder() + "/on-modify.biomatimer", Installer.taskwarriorHook(front: layout.bin + "/biomatimer"))]
                : []
            paths = try Installer.install(
                layout, front: front, tool: tool, daemon: daemon, tray: Installer.siblingExecutable("biomatimer-tray"), extras: extras,
                scripts: scripts)
        } catch {
            throw ClientFailure(exitCode: ExitCode.refused, error.description)
        }
        for path in paths { say("installed \(path)") }
        say("The session bus now starts the daemon on the first call (run `biomatimer status` to try).")
        if let gnome { say(gnomeAdvice(gnome)) }
    }

    /// What happens next for the top bar: a running GNOME Shell has the extension enabled for
    /// its next start (it reads its extensions once); otherwise, how to turn it on.
    private func gnomeAdvice(_ version: String) -> String {
        let uuid = GnomeShellExtension.uuid
        if GnomeShellExtension.shellIsRunning(), GnomeShellExtension.enable() {
            return "\(version): the top bar extension \(uuid) is enabled and shows after your next login "
                + "(on X11, Alt+F2 then r restarts the shell now)."
        }
        return "\(version): to show biomatimer in the top bar, log in to GNOME again and run "
            + "`gnome-extensions enable \(uuid)` (or turn it on in the Extensions app)."
    }

    func uninstall(prefix: String?) throws {
        let layout = prefix.map { InstallLayout.prefix(Installer.expandingTilde($0)) } ?? .user()
        let paths: [String]
        do {
            paths = try Installer.uninstall(layout)
        } catch {
            throw ClientFailure(exitCode: ExitCode.refused, error.description)
        }
        for path in paths { say("removed \(path)") }
        say("Recorded time and settings were left as they were.")
    }
}
