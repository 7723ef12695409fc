import BiomaClient
import BiomaContract
import BiomaWidgets
import DBusKit
import Foundation
import Testing

import TestSupport

/// `DaemonFollower`, what the watch and the tray follow the daemon with, against a stand-in
/// daemon on a private bus (the three followed interfaces from their property tables): the
/// state read when the daemon appears, each `PropertiesChanged` applied, its absence and its
/// return, each handed to the handler on the loop with its cause.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DaemonFollowerTests {
    /// The stand-in's published state, read on its loop thread.
    final class Published: @unchecked Sendable {
        var work = WorkStatus()
        var tasks = TasksStatus()
        var focus = FocusStatus()
    }

    /// What the handler was given, in order.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(WidgetState, DaemonFollower.Cause)] = []
        func add(_ state: WidgetState, _ cause: DaemonFollower.Cause) { lock.withLock { entries.append((state, cause)) } }
        var all: [(state: WidgetState, cause: DaemonFollower.Cause)] { lock.withLock { entries.map { ($0.0, $0.1) } } }
        var causes: [DaemonFollower.Cause] { all.map(\.cause) }
    }

    /// A stand-in daemon owning the contract's name, its object exporting `published`.
    static func standIn(_ address: String, _ published: Published) throws -> Bus {
        let bus = try Bus(.address(address))
        try bus.export(
            ExportedObject(
                path: ContractNames.objectPath,
                interfaces: [
                    DBusInterface(WorkStatus.table, state: { published.work }),
                    DBusInterface(TasksStatus.table, state: { published.tasks }),
                    DBusInterface(FocusStatus.table, state: { published.focus }),
                ]))
        try bus.requestName(ContractNames.busName)
        return bus
    }

    /// A follower started on `client`, and what it hands over.
    static func follow(_ client: Bus, activating: Bool) throws -> Seen {
        let seen = Seen()
        // Kept by the bus's handlers as long as the connection lives.
        try DaemonFollower(bus: client) { seen.add($0, $1) }.start(activating: activating)
        return seen
    }

    @Test func followsTheStateTheAbsenceAndTheReturn() throws {
        let daemon = try PrivateBus()
        let client = try Bus(.address(daemon.address))
        defer { client.close() }
        let seen = try Self.follow(client, activating: false)
        // No daemon yet: its absence, offline.
        #expect(waitUntil { seen.causes == [.gone] })
        #expect(seen.all.last?.state == .offline)

        let published = Published()
        published.work.activeProject = "a"
        published.work.activeProjectName = "Client A"
        published.tasks.dueTasks = 2
        let service = try Self.standIn(daemon.address, published)
        #expect(waitUntil { seen.causes == [.gone, .read(first: false)] })
        let read = try #require(seen.all.last?.state)
        #expect(read.online && read.activeProjectName == "Client A" && read.tasks.dueTasks == 2)

        // A change: one signal, applied to the state read.
        let before = published.work
        try service.sync { () throws(BusError) in
            published.work.activeProjectName = "Client B"
            service.emitChanges(WorkStatus.table, path: ContractNames.objectPath, from: before, to: published.work)
        }
        #expect(waitUntil { seen.causes.count == 3 })
        #expect(seen.all.last?.cause == .changed(interface: ContractNames.interface))
        #expect(seen.all.last?.state.activeProjectName == "Client B")
        #expect(seen.all.last?.state.tasks.dueTasks == 2)

        // Gone, then back.
        service.close()
        #expect(waitUntil { seen.causes.count == 4 })
        #expect(seen.all.last?.cause == .gone)
        #expect(seen.all.last?.state == .offline)
        published.work.activeProjectName = "Client C"
        let back = try Self.standIn(daemon.address, published)
        defer { back.close() }
        #expect(waitUntil { seen.causes.count == 5 })
        #expect(seen.all.last?.cause == .read(first: false))
        #expect(seen.all.last?.state.activeProjectName == "Client C")
        // Nothing more while nothing changes.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(seen.causes.count == 5)
    }

    @Test func theFirstReadIsNamedAndAnsweredOfflineWhenNothingCanStartTheDaemon() throws {
        let daemon = try PrivateBus()
        let client = try Bus(.address(daemon.address))
        defer { client.close() }
        let seen = try Self.follow(client, activating: true)
        #expect(waitUntil { seen.causes.contains(.read(first: true)) && seen.causes.contains(.gone) })
        #expect(seen.all.allSatisfy { $0.state == .offline })

        // With a daemon there, the first read carries its state.
        let published = Published()
        published.work.running = true
        let service = try Self.standIn(daemon.address, published)
        defer { service.close() }
        let second = try Self.follow(client, activating: true)
        #expect(waitUntil { second.causes.contains(.read(first: true)) && second.causes.contains(.read(first: false)) })
        #expect(second.all.allSatisfy { $0.state.online && $0.state.running })
    }
}
