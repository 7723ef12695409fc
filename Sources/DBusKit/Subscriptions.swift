import CDBus
import Glibc

/// Signals received: match rules registered with the bus, name-owner tracking.
extension Bus {
    /// Subscribes to signals matching `rule`; `handler` runs on the loop thread. Returns once
    /// the bus has the match rule, so no signal sent after that is missed.
    @discardableResult
    public func subscribe(_ rule: MatchRule, handler: @escaping @Sendable (BusMessage) -> Void) throws(BusError)
        -> SubscriptionToken
    {
        let text = try rule.text()
        return try sync { [self] () throws(BusError) -> SubscriptionToken in
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            dbus_bus_add_match(connection, text, &error)
            if dbus_error_is_set(&error) != 0 { throw RawConnection.busError(error) }
            let id = nextSubscriptionID
            nextSubscriptionID += 1
            subscriptions[id] = Subscription(rule: rule, text: text, handler: handler)
            return SubscriptionToken(id: id)
        }
    }

    public func unsubscribe(_ token: SubscriptionToken) {
        perform { [self] in
            guard let sub = subscriptions.removeValue(forKey: token.id) else { return }
            dbus_bus_remove_match(connection, sub.text, nil)
        }
    }

    /// Follows who owns `name`: `handler` gets the current owner at once (nil when none) and
    /// every change after, on the loop thread.
    @discardableResult
    public func watchNameOwner(_ name: String, handler: @escaping @Sendable (String?) -> Void) throws(BusError)
        -> SubscriptionToken
    {
        try Validate.name(.busName, name)
        let rule = MatchRule(
            type: .signal, sender: StandardNames.bus, path: StandardNames.busPath,
            interface: StandardNames.bus, member: "NameOwnerChanged", arg0: name)
        let token = try subscribe(rule) { message in
            let args = message.arguments
            guard args.count == 3, args[0].string == name, let owner = args[2].string else { return }
            handler(owner.isEmpty ? nil : owner)
        }
        let message = try BusMessage.methodCall(
            destination: StandardNames.bus, path: StandardNames.busPath, interface: StandardNames.bus,
            member: "GetNameOwner", arguments: [.string(name)])
        send(message) { result in
            switch result {
            case .success(let args): handler(args.first?.string)
            case .failure: handler(nil)
            }
        }
        return token
    }
}

extension Bus {
    /// Runs `handler` once, on the loop thread, when the connection `uniqueName` (a caller
    /// waiting for a deferred reply) leaves the bus, or at once if it already has. Nothing here
    /// waits for the bus: the match rule is sent without waiting for its answer, and a
    /// `GetNameOwner` sent after it (the bus handles a connection's messages in order) tells
    /// whether the name was gone before the rule took effect. Stop with `unsubscribe`.
    public func whenGone(_ uniqueName: String, _ handler: @escaping @Sendable () -> Void) throws(BusError) -> SubscriptionToken {
        try Validate.name(.busName, uniqueName)
        let rule = MatchRule(
            type: .signal, sender: StandardNames.bus, path: StandardNames.busPath,
            interface: StandardNames.bus, member: "NameOwnerChanged", arg0: uniqueName)
        let text = try rule.text()
        let once = Once(handler)
        let token = SubscriptionToken(id: try sync { [self] () throws(BusError) -> Int in
            dbus_bus_add_match(connection, text, nil)
            let id = nextSubscriptionID
            nextSubscriptionID += 1
            subscriptions[id] = Subscription(rule: rule, text: text) { message in
                let args = message.arguments
                if args.count == 3, args[0].string == uniqueName, args[2].string == "" { once.run() }
            }
            return id
        })
        let ask = try BusMessage.methodCall(
            destination: StandardNames.bus, path: StandardNames.busPath, interface: StandardNames.bus,
            member: "GetNameOwner", arguments: [.string(uniqueName)])
        send(ask) { result in
            if case .failure = result { once.run() }
        }
        return token
    }
}

/// A handler that runs at most once.
private final class Once: @unchecked Sendable {
    private var handler: (@Sendable () -> Void)?
    init(_ handler: @escaping @Sendable () -> Void) { self.handler = handler }
    /// On the loop thread only.
    func run() {
        let pending = handler
        handler = nil
        pending?()
    }
}

public struct SubscriptionToken: Sendable, Hashable {
    let id: Int
}

struct Subscription {
    let rule: MatchRule
    let text: String
    let handler: @Sendable (BusMessage) -> Void
}

/// A D-Bus match rule for signals. Every field is validated before it reaches the bus.
public struct MatchRule: Sendable, Equatable {
    public enum MessageType: String, Sendable { case signal, method_call, method_return, error }
    public var type: MessageType
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    public var arg0: String?

    public init(
        type: MessageType = .signal, sender: String? = nil, path: String? = nil, interface: String? = nil,
        member: String? = nil, arg0: String? = nil
    ) {
        (self.type, self.sender, self.path, self.interface) = (type, sender, path, interface)
        (self.member, self.arg0) = (member, arg0)
    }

    /// The rule as the bus reads it, e.g. `type='signal',interface='org.example.I'`.
    public func text() throws(BusError) -> String {
        var parts = ["type='\(type.rawValue)'"]
        let keys: [(key: String, value: String?, kind: DBusName)] = [
            ("sender", sender, .busName), ("path", path, .objectPath), ("interface", interface, .interfaceName),
            ("member", member, .memberName),
        ]
        for (key, value, kind) in keys {
            guard let value else { continue }
            try Validate.name(kind, value)
            parts.append("\(key)='\(value)'")
        }
        if let arg0 {
            try Validate.string(arg0)
            // Inside quotes only the apostrophe needs care: close, escape it, reopen.
            parts.append("arg0='" + arg0.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'")
        }
        return parts.joined(separator: ",")
    }

    /// Whether a received message fits this rule. The bus resolved a well-known sender to its
    /// owner when it routed the message, so only unique sender names are compared here.
    func matches(_ message: BusMessage) -> Bool {
        guard message.kind == .signal || type != .signal else { return false }
        if let sender, sender.hasPrefix(":"), message.sender != sender { return false }
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let arg0, message.firstStringArgument != arg0 { return false }
        return true
    }
}
