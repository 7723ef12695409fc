import BiomaSystem
import DBusKit
import Glibc

/// What systemd-logind says about sleep, lock and idle, on the system bus.
///
/// - Sleep: `PrepareForSleep(true)` while the daemon holds a `delay` inhibitor lock, so the
///   stop is written before the machine sleeps (the lock is released right after);
///   `PrepareForSleep(false)` on waking, when a new lock is taken.
/// - Lock and idle: the user's session (found with `ListSessions`: the one of this uid,
///   active first), its `LockedHint`, `IdleHint` and `IdleSinceHint` properties and its
///   `Lock`/`Unlock` signals. (The `/session/auto` alias sends no property changes.)
///
/// The system-bus connection is polled by the daemon's one event loop, beside the session bus:
/// events reach the timer on the thread it lives on. Without a
/// system bus or without logind, the daemon says once in its log what it cannot watch and
/// everything else goes on: the suspend gap still catches sleep.
final class LogindWatcher: @unchecked Sendable {
    static let name = "org.freedesktop.login1"
    static let path = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"

    private let timer: WorkService
    /// The daemon's loop: the timer's thread, and the one the system bus is polled on.
    private let loop: EventLoop
    private let log: @Sendable (String) -> Void
    private var system: Bus?
    // Loop thread only.
    private var inhibitor: Int32 = -1
    private var sessionPath: String?
    private var locked = false
    private var idle = false

    init(timer: WorkService, loop: EventLoop, log: @escaping @Sendable (String) -> Void) {
        (self.timer, self.loop, self.log) = (timer, loop, log)
    }

    deinit {
        if inhibitor >= 0 { close(inhibitor) }
        system?.close()
    }

    /// Closes the system-bus connection.
    func stop() {
        system?.close()
    }

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` when set, else the standard socket.
    static func systemBusAddress(_ environment: [String: String] = processEnvironment()) -> String {
        if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty { return address }
        return "unix:path=/run/dbus/system_bus_socket"
    }

    /// Connects and subscribes; says once what it could not watch. Not on the loop thread.
    func start() {
        let address = Self.systemBusAddress()
        let bus: Bus
        do {
            bus = try Bus(.address(address), loop: loop)
        } catch {
            log("no system bus at \(address) (\(error)): sleep is still noticed by the clock; lock and idle come only from `biomatimer away`")
            return
        }
        system = bus
        do {
            try bus.subscribe(
                MatchRule(sender: Self.name, path: Self.path, interface: Self.manager, member: "PrepareForSleep")
            ) { [self] message in
                guard case .boolean(let sleeping) = message.arguments.first else { return }
                prepareForSleep(sleeping)
            }
        } catch {
            log("cannot watch logind for sleep (\(error)): sleep is still noticed by the clock")
        }
        takeInhibitor { [log] error in
            log("cannot watch logind for sleep (\(error)): sleep is still noticed by the clock")
        }
        do {
            try followSession(on: bus)
        } catch {
            log("cannot watch the login session (\(error)): lock and idle come only from `biomatimer away`")
        }
    }

    // MARK: - Sleep

    /// Asks logind for a delay lock; the answer arrives on the loop thread (never blocking it).
    private func takeInhibitor(failed: @escaping @Sendable (BusError) -> Void) {
        guard let bus = system,
            // Fixed, valid names and strings: building the message cannot fail.
            let message = try? BusMessage.methodCall(
                destination: Self.name, path: Self.path, interface: Self.manager, member: "Inhibit",
                arguments: [
                    .string("sleep"), .string("biomatimer"), .string("Stopping the work timer before sleep"), .string("delay"),
                ])
        else { return }
        bus.send(message, timeout: .seconds(5)) { [self] result in
            switch result {
            case .success(let reply):
                guard case .unixFD(let fd) = reply.first else {
                    failed(.typeMismatch(expected: "h", actual: reply.first?.signature ?? ""))
                    return
                }
                if inhibitor >= 0 { close(inhibitor) }
                inhibitor = fd
            case .failure(let error):
                failed(error)
            }
        }
    }

    /// On the loop thread.
    private func prepareForSleep(_ sleeping: Bool) {
        let fd = inhibitor
        if sleeping {
            inhibitor = -1
            // The stop is written on the timer's thread; the lock goes once it is.
            loop.perform { [timer] in
                timer.away.sleepBegins()
                if fd >= 0 { close(fd) }
            }
        } else {
            loop.perform { [timer] in timer.away.sleepEnds() }
            // A new lock for the next sleep.
            takeInhibitor { [log] error in log("cannot take a new sleep inhibitor (\(error))") }
        }
    }

    // MARK: - Lock and idle

    private func followSession(on bus: Bus) throws(BusError) {
        let reply = try bus.callBlocking(
            destination: Self.name, path: Self.path, interface: Self.manager, member: "ListSessions", timeout: .seconds(5))
        let uid = Int64(getuid())
        // (id, uid, user, seat, path): this user's sessions.
        let mine = (reply.first?.array ?? []).compactMap(\.fields).filter { $0.count == 5 && $0[1].int64 == uid }
            .compactMap { $0[4].string }
        guard !mine.isEmpty else {
            log("no login session of uid \(uid) in logind: lock and idle come only from `biomatimer away`")
            return
        }
        // An active one if there are several (a session whose Active cannot be read is just
        // not preferred: the first one is taken then, nothing is lost).
        var chosen = mine[0]
        for path in mine where (try? property(bus, path, "Active")) == .boolean(true) {
            chosen = path
            break
        }
        sessionPath = chosen
        try bus.subscribe(
            MatchRule(
                sender: Self.name, path: chosen, interface: StandardNames.properties, member: "PropertiesChanged",
                arg0: Self.session)
        ) { [self] message in
            guard let changed = message.arguments.dropFirst().first?.vardict else { return }
            sessionChanged(changed)
        }
        for member in ["Lock", "Unlock"] {
            try bus.subscribe(MatchRule(sender: Self.name, path: chosen, interface: Self.session, member: member)) {
                [self] _ in setLocked(member == "Lock")
            }
        }
        // The state now, read after subscribing. Its answer is handled on the loop thread in
        // the order the bus delivered it, so a change signalled after it is applied after it.
        // (A blocking call, answered on this thread and handed over, could apply the older
        // state last: a lock that came meanwhile was undone.)
        let getAll = try BusMessage.methodCall(
            destination: Self.name, path: chosen, interface: StandardNames.properties, member: "GetAll",
            arguments: [.string(Self.session)])
        bus.send(getAll, timeout: .seconds(5)) { [self] result in
            switch result {
            case .success(let reply): sessionChanged(reply.first?.vardict ?? [:])
            case .failure(let error): log("cannot read the login session's state (\(error)); its changes are followed")
            }
        }
    }

    private func property(_ bus: Bus, _ path: String, _ name: String) throws(BusError) -> DBusValue? {
        try bus.callBlocking(
            destination: Self.name, path: path, interface: StandardNames.properties, member: "Get",
            [.string(Self.session), .string(name)], timeout: .seconds(5)
        ).first?.unwrapped
    }

    /// On the loop thread.
    private func sessionChanged(_ changed: [String: DBusValue]) {
        if case .boolean(let value) = changed["LockedHint"] { setLocked(value) }
        if case .boolean(let value) = changed["IdleHint"] {
            var since: Int64 = 0
            if case .uint64(let hint) = changed["IdleSinceHint"], hint > 0 { since = Int64(clamping: hint) }
            setIdle(value, since: since)
        }
    }

    private func setLocked(_ value: Bool) {
        guard value != locked else { return }
        locked = value
        loop.perform { [timer] in value ? timer.away.awayFromLogind(.lock, since: 0) : timer.away.backFromLogind() }
    }

    private func setIdle(_ value: Bool, since: Int64) {
        guard value != idle else { return }
        idle = value
        loop.perform { [timer] in value ? timer.away.awayFromLogind(.idle, since: since) : timer.away.backFromLogind() }
    }
}
