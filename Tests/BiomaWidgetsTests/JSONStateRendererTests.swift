import BiomaWidgets
import Foundation
import Testing

@Suite struct JSONStateRendererTests {
    let json = JSONStateRenderer()

    @Test func runningWithProjectHasLiveValues() {
        #expect(
            json.render(Fixture.project(), now: Fixture.now)
                == ##"{"online":true,"state":"running","running":true,"updated_at":1763776800500000,"day":"2026-11-22","session_time":330100000,"daily_total":9915200000,"active_project":"p1","active_project_name":"Client A","active_project_color":"#007AFF","project_session_time":135300000,"project_daily_total":5445400000,"session":"0:05:30","daily":"2:45:15","project_session":"0:02:15","project_daily":"1:30:45","percentage":54,"open_tasks":0,"due_tasks":0}"##
        )
    }

    @Test func runningPausedIdleOffline() {
        #expect(
            json.render(Fixture.running, now: Fixture.now)
                == ##"{"online":true,"state":"running","running":true,"updated_at":1763776800500000,"day":"2026-11-22","session_time":330100000,"daily_total":9915200000,"active_project":"","active_project_name":"","active_project_color":"","project_session_time":0,"project_daily_total":0,"session":"0:05:30","daily":"2:45:15","project_session":"0:00:00","project_daily":"0:00:00","percentage":0,"open_tasks":0,"due_tasks":0}"##
        )
        #expect(
            json.render(Fixture.paused, now: Fixture.now)
                == ##"{"online":true,"state":"paused","running":false,"updated_at":1763776800500000,"day":"2026-11-22","session_time":330000000,"daily_total":9915000000,"active_project":"","active_project_name":"","active_project_color":"","project_session_time":0,"project_daily_total":0,"session":"0:05:30","daily":"2:45:15","project_session":"0:00:00","project_daily":"0:00:00","percentage":0,"open_tasks":0,"due_tasks":0}"##
        )
        #expect(
            json.render(Fixture.idle, now: Fixture.now)
                == ##"{"online":true,"state":"idle","running":false,"updated_at":1763776800500000,"day":"2026-11-22","session_time":0,"daily_total":9915000000,"active_project":"","active_project_name":"","active_project_color":"","project_session_time":0,"project_daily_total":0,"session":"0:00:00","daily":"2:45:15","project_session":"0:00:00","project_daily":"0:00:00","percentage":0,"open_tasks":0,"due_tasks":0}"##
        )
        #expect(
            json.render(Fixture.offline, now: Fixture.now)
                == ##"{"online":false,"state":"offline","running":false,"updated_at":0,"day":"","session_time":0,"daily_total":0,"active_project":"","active_project_name":"","active_project_color":"","project_session_time":0,"project_daily_total":0,"session":"0:00:00","daily":"0:00:00","project_session":"0:00:00","project_daily":"0:00:00","percentage":0,"open_tasks":0,"due_tasks":0}"##
        )
    }

    @Test func namesAreFullAndJSONEscaped() throws {
        let hostile = json.render(Fixture.project(Fixture.hostileName), now: Fixture.now)
        #expect(hostile.contains(##""active_project_name":"R&D <b>\"x\"</b> %{F#f00} #[fg=red]""##))
        let long = json.render(Fixture.project(Fixture.longName), now: Fixture.now)
        #expect(long.contains(##""active_project_name":"A very long project name that goes on and on""##))
        // And it is JSON that a parser reads back to the same name.
        let object = try JSONSerialization.jsonObject(with: Data(hostile.utf8)) as? [String: Any]
        #expect(object?["active_project_name"] as? String == Fixture.hostileName)
    }
}
