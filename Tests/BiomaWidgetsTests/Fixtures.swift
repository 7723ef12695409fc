import BiomaWidgets

/// States shared by the tests. Every time value is chosen so that at `now` (half a
/// second after `t0`) the displayed values are 0:05:30 (2:45:15) for work and
/// 0:02:15 (1:30:45) for the project.
enum Fixture {
    static let t0: Int64 = 1_763_776_800_000_000
    static let now: Int64 = t0 + 500_000
    static let day = "2026-11-22"
    static let hostileName = ##"R&D <b>"x"</b> %{F#f00} #[fg=red]"##
    static let longName = "A very long project name that goes on and on"

    static let idle = WidgetState(
        running: false, updatedAt: t0, sessionTime: 0, dailyTotal: 9_915_000_000, day: day)

    static let paused = WidgetState(
        running: false, updatedAt: t0, sessionTime: 330_000_000, dailyTotal: 9_915_000_000, day: day)

    static let running = WidgetState(
        running: true, updatedAt: t0, sessionTime: 329_600_000, dailyTotal: 9_914_700_000, day: day)

    static func project(
        _ name: String = "Client A", id: String = "p1", color: String = "#007AFF"
    ) -> WidgetState {
        var state = running
        state.activeProject = id
        state.activeProjectName = name
        state.activeProjectColor = color
        state.projectSessionTime = 134_800_000
        state.projectDailyTotal = 5_444_900_000
        return state
    }

    static let offline = WidgetState.offline

    /// Every format, by name, with the given options.
    static func renderers(_ options: RenderOptions = RenderOptions()) -> [(String, any WidgetRenderer)] {
        WidgetFormats.names.map { name in
            // The names come from the factory's own list, so this cannot fail.
            (name, try! WidgetFormats.renderer(for: name, options: options))
        }
    }
}
