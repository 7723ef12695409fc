import BiomaText
import BiomaSystem
import ArgumentParser

struct Tray: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        abstract: "Show biomatimer in the system tray (StatusNotifierItem with a menu).",
        discussion: """
            Exports an org.kde.StatusNotifierItem and its com.canonical.dbusmenu menu on the \
            session bus, for waybar's tray, KDE Plasma, GNOME with the AppIndicator extension, \
            xfce4-panel and others. Left click toggles work, middle click pauses or resumes the \
            focus timer, scrolling goes through the projects; the menu lists the projects with \
            today's times. It follows the daemon's changes and never polls. Exits 3 when the \
            session bus is gone.
            """)

    func run() throws { try localBodies().tray() }
}
