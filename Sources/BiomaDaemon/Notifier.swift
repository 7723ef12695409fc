import BiomaText
import BiomaWidgets
import DBusKit

/// Desktop notifications through `org.freedesktop.Notifications` on the session bus (mako,
/// dunst, GNOME Shell, KDE Plasma…).
///
/// Every call is asynchronous: the daemon never waits for the notification server. The
/// server's capabilities are asked once per server (again when another takes the name);
/// actions are offered only when it lists `actions`, and body text is escaped when it reads
/// markup. An `ActionInvoked` signal counts only when it comes from the server's owner and
/// names one of this daemon's notifications. No server, or a failing one, changes nothing
/// but the log, once. Loop thread only.
public final class Notifier: @unchecked Sendable {
    public struct Notice: Sendable {
        public var summary: String
        public var body: String
        /// Action key and label, offered when the server takes actions.
        public var actions: [(key: String, label: String)]
        /// 0 low, 1 normal, 2 critical.
        public var urgency: UInt8 = 1
        /// A sound theme name (`alarm-clock-elapsed`), for servers that play one.
        public var soundName: String?

        public init(summary: String, body: String, actions: [(key: String, label: String)] = []) {
            (self.summary, self.body, self.actions) = (summary, body, actions)
        }
    }

    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    private let bus: Bus
    private let enabled: Bool
    private let log: @Sendable (String) -> Void
    /// The current server's capabilities; nil until asked (or after the server changed).
    private var capabilities: Set<String>?
    /// Notices waiting for the capabilities' answer.
    private var waiting: [() -> Void] = []
    private var asking = false
    /// This daemon's notifications that are still shown, with what their actions do.
    private var handlers: [UInt32: @Sendable (String) -> Void] = [:]
    private var saidUnavailable = false

    /// `enabled` false (`notifications = off`): nothing is ever sent.
    public init(bus: Bus, enabled: Bool, log: @escaping @Sendable (String) -> Void) {
        (self.bus, self.enabled, self.log) = (bus, enabled, log)
    }

    /// Follows the server's signals and owner. Call once, on the loop thread.
    public func start() throws(BusError) {
        guard enabled else { return }
        try bus.subscribe(MatchRule(sender: Self.name, path: Self.path, interface: Self.name, member: "ActionInvoked")) {
            [self] message in
            guard message.arguments.count == 2, case .uint32(let id) = message.arguments[0],
                let key = message.arguments[1].string, let handler = handlers[id]
            else { return }
            handler(key)
        }
        try bus.subscribe(
            MatchRule(sender: Self.name, path: Self.path, interface: Self.name, member: "NotificationClosed")
        ) { [self] message in
            if case .uint32(let id) = message.arguments.first { handlers[id] = nil }
        }
        try bus.watchNameOwner(Self.name) { [self] _ in
            // Another server (or none): ask again before the next notice; its ids are new.
            capabilities = nil
            handlers.removeAll()
        }
    }

    /// Shows `notice`, replacing notification `replacing` (0 for none); `completion` gets its
    /// id (nil when it could not be shown), `onAction` the key of an action the user invoked.
    public func show(
        _ notice: Notice, replacing: UInt32 = 0, onAction: @escaping @Sendable (String) -> Void,
        completion: @escaping @Sendable (UInt32?) -> Void = { _ in }
    ) {
        guard enabled else { return completion(nil) }
        whenCapabilitiesKnown { [self] in
            send(notice, replacing: replacing, onAction: onAction, completion: completion)
        }
    }

    /// Closes one of this daemon's notifications (the task it was about was done elsewhere).
    public func close(_ id: UInt32) {
        guard enabled, handlers.removeValue(forKey: id) != nil,
            // Fixed, valid names and a number: building the message cannot fail.
            let message = try? BusMessage.methodCall(
                destination: Self.name, path: Self.path, interface: Self.name, member: "CloseNotification",
                arguments: [.uint32(id)])
        else { return }
        message.autoStart = false
        bus.send(message, timeout: .seconds(5)) { _ in }
    }

    private func whenCapabilitiesKnown(_ next: @escaping () -> Void) {
        if capabilities != nil { return next() }
        waiting.append(next)
        guard !asking else { return }
        asking = true
        guard
            // Fixed, valid names: building the message cannot fail.
            let message = try? BusMessage.methodCall(
                destination: Self.name, path: Self.path, interface: Self.name, member: "GetCapabilities")
        else { return }
        bus.send(message, timeout: .seconds(5)) { [self] result in
            asking = false
            switch result {
            case .success(let reply):
                capabilities = Set((reply.first?.array ?? []).compactMap(\.string))
            case .failure(let error):
                unavailable(error)
                capabilities = []  // plain notices, if the server answers Notify at all
            }
            let queued = waiting
            waiting.removeAll()
            for run in queued { run() }
            // A failed question is asked again next time.
            if case .failure = result { capabilities = nil }
        }
    }

    private func send(
        _ notice: Notice, replacing: UInt32, onAction: @escaping @Sendable (String) -> Void,
        completion: @escaping @Sendable (UInt32?) -> Void
    ) {
        let caps = capabilities ?? []
        let body = caps.contains("body-markup") ? TextEscaping.pango(notice.body) : notice.body
        let actions = caps.contains("actions") ? notice.actions.flatMap { [$0.key, $0.label] } : []
        var hints: [(String, DBusValue)] = [("urgency", .byte(notice.urgency)), ("desktop-entry", .string("biomatimer"))]
        if let sound = notice.soundName { hints.append(("sound-name", .string(sound))) }
        let message: BusMessage
        do {
            message = try BusMessage.methodCall(
                destination: Self.name, path: Self.path, interface: Self.name, member: "Notify",
                arguments: [
                    .string("biomatimer"), .uint32(replacing), .string(""), .string(Self.printable(notice.summary)),
                    .string(Self.printable(body)), .strings(actions), .vardict(ordered: hints), .int32(-1),
                ])
        } catch {
            log("cannot build the notification \(BusError.quote(notice.summary, limit: 80)): \(error)")
            return completion(nil)
        }
        bus.send(message, timeout: .seconds(5)) { [self] result in
            switch result {
            case .success(let reply):
                guard case .uint32(let id) = reply.first else { return completion(nil) }
                if replacing != 0 && replacing != id { handlers[replacing] = nil }
                handlers[id] = onAction
                saidUnavailable = false
                completion(id)
            case .failure(let error):
                unavailable(error)
                completion(nil)
            }
        }
    }

    private func unavailable(_ error: BusError) {
        guard !saidUnavailable else { return }
        saidUnavailable = true
        log("cannot show notifications (\(error)); everything else goes on without them")
    }

    /// Valid for D-Bus (no NUL) whatever a title held.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{0}" }))
    }
}
