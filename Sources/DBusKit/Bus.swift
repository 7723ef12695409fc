import CDBus
import Glibc

/// A bus connection owned by one event-loop thread, for long-lived processes (the daemon, a
/// widget following changes).
///
/// The loop thread is the only thread that touches libdbus for this connection: it polls the
/// connection's file descriptors (libdbus watches), runs libdbus timeouts, dispatches incoming
/// messages and runs work handed to it with `perform`, woken through an eventfd so that a
/// reply or signal sent from any task leaves at once. Method handlers and signal handlers run
/// on that thread, one at a time.
public final class Bus: @unchecked Sendable {
    // Set once in init, read-only afterwards.
    let connection: OpaquePointer
    /// This connection's unique name, e.g. `:1.42`.
    public let uniqueName: String
    private let wakeFD: Int32
    /// The loop thread, for joining (nil once joined); `loopThread` stays for identity checks.
    private var thread: pthread_t?
    private var loopThread = pthread_t()

    // Shared with other threads: guarded by `lock`.
    private let lock = Lock()
    private var queue: [() -> Void] = []
    private var stopping = false
    /// Set when the loop thread has returned; work handed over after that runs on the caller.
    private var finished = false
    private var disconnectHandlers: [@Sendable (String) -> Void] = []
    private var closedReason: String?

    // Loop-thread only.
    private var watches: [OpaquePointer] = []
    private var timeouts: [OpaquePointer: UInt64] = [:]  // DBusTimeout* → deadline (ms, monotonic)
    private var objects: [String: ExportedObject] = [:]
    private var subscriptions: [Int: Subscription] = [:]
    private var nextSubscriptionID = 1
    private var nameLostHandlers: [String: @Sendable () -> Void] = [:]
    private var fdHandlers: [Int32: @Sendable () -> Void] = [:]

    /// Connects and starts the loop thread.
    public init(_ address: BusAddress = .session) throws(BusError) {
        // The eventfd first: once every property is set, a throw runs deinit, which must not
        // release a connection twice.
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw .connectionFailed("eventfd: \(String(cString: strerror(errno)))") }
        do {
            connection = try RawConnection.open(address)
        } catch {
            Glibc.close(fd)
            throw error
        }
        wakeFD = fd
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        installCallbacks()
        startThread()
    }

    deinit {
        // libdbus insists that a private connection is closed before its last reference goes.
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        Glibc.close(wakeFD)
    }

    // MARK: - Running work on the loop

    /// Runs `work` on the loop thread. From the loop thread itself it runs at once.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        if isLoopThread {
            work()
            return
        }
        lock.lock()
        if finished {
            // No loop left to run it: the connection is closed, so libdbus calls made by
            // `work` fail at once (sends report `.disconnected`) rather than waiting forever.
            lock.unlock()
            work()
            return
        }
        queue.append(work)
        lock.unlock()
        wake()
    }

    /// Runs `work` on the loop thread and waits for its result. Must not be called from a
    /// handler (it would wait for itself); from the loop thread it simply runs.
    public func sync<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) throws(BusError) -> T {
        if isLoopThread { return try work() }
        let box = ResultBox<T>()
        let done = Semaphore()
        perform {
            box.result = Result { () throws(BusError) -> T in try work() }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// Whether the caller runs on this bus's loop thread.
    public var isLoopThread: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isLoopThreadLocked
    }

    private var isLoopThreadLocked: Bool {
        pthread_equal(loopThread, pthread_self()) != 0
    }

    /// Whether the connection is still open.
    public var isConnected: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closedReason == nil
    }

    /// Called once, on the loop thread, when the bus connection is lost or closed.
    public func onDisconnect(_ handler: @escaping @Sendable (String) -> Void) {
        lock.lock()
        if let reason = closedReason {
            lock.unlock()
            handler(reason)
            return
        }
        disconnectHandlers.append(handler)
        lock.unlock()
    }

    /// Closes the connection and stops the loop thread; waits for it unless called from it.
    /// A deliberate close is not a lost bus: the disconnect handlers are not called.
    public func close() {
        lock.lock()
        let alreadyStopping = stopping
        stopping = true
        disconnectHandlers.removeAll()
        // Exactly one caller joins the loop thread.
        let joinable = isLoopThreadLocked ? nil : thread
        if joinable != nil { thread = nil }
        lock.unlock()
        if !alreadyStopping {
            perform { [self] in
                dbus_connection_close(connection)
            }
        }
        wake()
        if let joinable { pthread_join(joinable, nil) }
    }

    /// Polls `fd` in the loop and runs `handler` on the loop thread whenever it is readable
    /// (a timerfd, a signalfd, a pipe): one loop for everything the process waits on.
    public func watchReadable(fd: Int32, _ handler: @escaping @Sendable () -> Void) {
        perform { [self] in fdHandlers[fd] = handler }
    }

    public func unwatchReadable(fd: Int32) {
        perform { [self] in fdHandlers[fd] = nil }
    }

    // MARK: - Client side

    /// Calls a method and waits (without blocking a thread) for the reply.
    public func call(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: CallTimeout = .default, autoStart: Bool = true
    ) async throws(BusError) -> [DBusValue] {
        let message = try BusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        message.autoStart = autoStart
        return try await call(message, timeout: timeout)
    }

    public func call(_ message: BusMessage, timeout: CallTimeout = .default) async throws(BusError) -> [DBusValue] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[DBusValue], BusError>, Never>) in
            send(message, timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Calls a method and blocks this thread for the reply. Not from a handler.
    public func callBlocking(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: CallTimeout = .default, autoStart: Bool = true
    ) throws(BusError) -> [DBusValue] {
        precondition(!isLoopThread, "callBlocking from the loop thread would wait for itself")
        let message = try BusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        message.autoStart = autoStart
        let box = ResultBox<[DBusValue]>()
        let done = Semaphore()
        send(message, timeout: timeout) {
            box.result = $0
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// Sends a method call; `completion` runs on the loop thread with the reply or error.
    public func send(
        _ message: BusMessage, timeout: CallTimeout = .default,
        completion: @escaping @Sendable (Result<[DBusValue], BusError>) -> Void
    ) {
        perform { [self] in
            let label = "\(message.interface ?? "").\(message.member ?? "") on \(message.destination ?? "")"
            var pending: OpaquePointer?
            guard dbus_connection_send_with_reply(connection, message.raw, &pending, timeout.milliseconds) != 0 else {
                completion(.failure(.outOfMemory))
                return
            }
            guard let pending else {
                completion(.failure(.disconnected(closedReasonText)))
                return
            }
            let box = Unmanaged.passRetained(PendingBox(label: label, completion: completion)).toOpaque()
            let installed = dbus_pending_call_set_notify(
                pending,
                { pending, data in
                    guard let pending, let data else { return }
                    Unmanaged<PendingBox>.fromOpaque(data).takeUnretainedValue().complete(pending)
                },
                box,
                { data in
                    if let data { Unmanaged<PendingBox>.fromOpaque(data).release() }
                })
            if installed == 0 {
                Unmanaged<PendingBox>.fromOpaque(box).release()
                dbus_pending_call_cancel(pending)
                dbus_pending_call_unref(pending)
                completion(.failure(.outOfMemory))
                return
            }
            // The reply may already be there (the notify would then never fire).
            if dbus_pending_call_get_completed(pending) != 0 {
                Unmanaged<PendingBox>.fromOpaque(box).takeUnretainedValue().complete(pending)
            }
            dbus_pending_call_unref(pending)
        }
    }

    /// Sends a message that needs no reply (a signal, or a call flagged no-reply).
    public func send(_ message: BusMessage) {
        perform { [self] in
            _ = dbus_connection_send(connection, message.raw, nil)
        }
    }

    /// Emits a signal from `path`.
    public func emit(path: String, interface: String, member: String, _ arguments: [DBusValue] = []) throws(BusError) {
        send(try BusMessage.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` (signature `sa{sv}as`).
    public func emitPropertiesChanged(
        path: String, interface: String, changed: [(String, DBusValue)], invalidated: [String] = []
    ) throws(BusError) {
        try emit(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            [.string(interface), .vardict(ordered: changed), .strings(invalidated)])
    }

    // MARK: - Signals

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
        try Validate.busName(name)
        let rule = MatchRule(
            type: .signal, sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name)
        let token = try subscribe(rule) { message in
            let args = message.arguments
            guard args.count == 3, args[0].string == name, let owner = args[2].string else { return }
            handler(owner.isEmpty ? nil : owner)
        }
        let message = try BusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)])
        send(message) { result in
            switch result {
            case .success(let args): handler(args.first?.string)
            case .failure: handler(nil)
            }
        }
        return token
    }

    // MARK: - Service side

    /// Exports an object. Do this before requesting a well-known name, so calls queued by bus
    /// activation find it.
    public func export(_ object: ExportedObject) throws(BusError) {
        try Validate.objectPath(object.path)
        for interface in object.interfaces { try interface.validate() }
        try sync { [self] () throws(BusError) in objects[object.path] = object }
    }

    public func unexport(path: String) {
        perform { [self] in objects[path] = nil }
    }

    /// Requests a well-known name as its single owner. Another owner makes this fail with
    /// `.nameTaken` naming it, unless `replace` is set (and the owner allows replacement, as
    /// every `Bus` does). `onLost` runs on the loop thread if the name is later taken away.
    public func requestName(_ name: String, replace: Bool = false, onLost: (@Sendable () -> Void)? = nil) throws(BusError)
    {
        try Validate.busName(name)
        try sync { [self] () throws(BusError) in
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            var flags = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE | DBUS_NAME_FLAG_ALLOW_REPLACEMENT)
            if replace { flags |= UInt32(DBUS_NAME_FLAG_REPLACE_EXISTING) }
            let reply = dbus_bus_request_name(connection, name, flags, &error)
            if dbus_error_is_set(&error) != 0 { throw RawConnection.busError(error) }
            switch reply {
            case Int32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER), Int32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER):
                if let onLost { nameLostHandlers[name] = onLost }
            default:
                throw .nameTaken(name: name, owner: describeOwnerBlocking(name))
            }
        }
    }

    public func releaseName(_ name: String) throws(BusError) {
        try Validate.busName(name)
        try sync { [self] () throws(BusError) in
            nameLostHandlers[name] = nil
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            _ = dbus_bus_release_name(connection, name, &error)
            if dbus_error_is_set(&error) != 0 { throw RawConnection.busError(error) }
        }
    }

    /// "`:1.5` (pid 1234)" for a name's owner; loop thread only (makes blocking calls).
    private func describeOwnerBlocking(_ name: String) -> String {
        func ask(_ member: String, _ arg: String) -> DBusValue? {
            guard
                let message = try? BusMessage.methodCall(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: member, arguments: [.string(arg)])
            else { return nil }
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            guard let reply = dbus_connection_send_with_reply_and_block(connection, message.raw, 2000, &error) else {
                return nil
            }
            return BusMessage(owning: reply).arguments.first
        }
        guard let owner = ask("GetNameOwner", name)?.string else { return "another process" }
        if let pid = ask("GetConnectionUnixProcessID", owner)?.int64 { return "\(owner) (pid \(pid))" }
        return owner
    }

    // MARK: - The loop

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private var closedReasonText: String {
        lock.lock()
        defer { lock.unlock() }
        return closedReason ?? "the connection is closed"
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        // The new thread waits for this lock before its first look at `loopThread`.
        lock.lock()
        let rc = pthread_create(
            &tid, nil,
            { context in
                let bus = Unmanaged<Bus>.fromOpaque(context!).takeRetainedValue()
                bus.run()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        thread = tid
        loopThread = tid
        lock.unlock()
    }

    private func run() {
        lock.lock()
        lock.unlock()
        defer {
            // Nothing handed to a closed bus may keep objects (or the bus itself) alive.
            subscriptions.removeAll()
            fdHandlers.removeAll()
            objects.removeAll()
            nameLostHandlers.removeAll()
        }
        var fds: [pollfd] = []
        while true {
            // Queued work first: it may send, which libdbus writes at once where it can.
            lock.lock()
            var work = queue
            queue.removeAll(keepingCapacity: true)
            let stop = stopping
            lock.unlock()
            for item in work { item() }
            // Release the closures (and what they captured) now, not after the next poll: an
            // idle loop would otherwise keep them alive indefinitely.
            work.removeAll()

            while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
                _ = dbus_connection_dispatch(connection)
            }
            if stop || dbus_connection_get_is_connected(connection) == 0 {
                lock.lock()
                let leftover = queue
                queue.removeAll()
                if leftover.isEmpty { finished = true }
                lock.unlock()
                if leftover.isEmpty { break }
                for item in leftover { item() }
                continue
            }

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            var polled: [OpaquePointer] = []
            for watch in watches where dbus_watch_get_enabled(watch) != 0 {
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
                polled.append(watch)
            }
            let extraFDs = Array(fdHandlers.keys)
            for fd in extraFDs { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let now = Self.monotonicMilliseconds()
            var wait: Int32 = -1
            for (timeout, deadline) in timeouts where dbus_timeout_get_enabled(timeout) != 0 {
                let remaining = deadline > now ? Int32(clamping: deadline - now) : 0
                wait = wait < 0 ? remaining : min(wait, remaining)
            }
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 && errno != EINTR {
                // Cannot happen with valid descriptors; close rather than spin.
                dbus_connection_close(connection)
                continue
            }

            if fds[0].revents != 0 {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
            }
            for (index, watch) in polled.enumerated() {
                let revents = fds[index + 1].revents
                guard revents != 0, watches.contains(watch) else { continue }
                var flags: UInt32 = 0
                if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                _ = dbus_watch_handle(watch, flags)
            }
            for (index, fd) in extraFDs.enumerated() where fds[polled.count + 1 + index].revents != 0 {
                fdHandlers[fd]?()
            }
            let after = Self.monotonicMilliseconds()
            // Handling one timeout may remove others (and free them): look each up again.
            let expired = timeouts.filter { dbus_timeout_get_enabled($0.key) != 0 && $0.value <= after }.map(\.key)
            for timeout in expired where timeouts[timeout] != nil {
                timeouts[timeout] = after + UInt64(max(0, dbus_timeout_get_interval(timeout)))
                _ = dbus_timeout_handle(timeout)
            }
        }
        markClosed("the connection was closed")
    }

    private func markClosed(_ reason: String) {
        lock.lock()
        guard closedReason == nil else {
            lock.unlock()
            return
        }
        closedReason = reason
        let handlers = disconnectHandlers
        disconnectHandlers.removeAll()
        lock.unlock()
        for handler in handlers { handler(reason) }
    }

    static func monotonicMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }

    // MARK: - libdbus callbacks (all on the loop thread, or during init before it starts)

    private func installCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            connection,
            { watch, data in
                guard let watch, let data else { return 0 }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().watches.append(watch)
                return 1
            },
            { watch, data in
                guard let watch, let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().watches.removeAll { $0 == watch }
            },
            { _, data in
                // Enabled state is read on every iteration; just make the loop look again.
                guard let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().wake()
            }, me, nil)
        dbus_connection_set_timeout_functions(
            connection,
            { timeout, data in
                guard let timeout, let data else { return 0 }
                let bus = Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue()
                bus.timeouts[timeout] = Bus.monotonicMilliseconds() + UInt64(max(0, dbus_timeout_get_interval(timeout)))
                bus.wake()
                return 1
            },
            { timeout, data in
                guard let timeout, let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().timeouts[timeout] = nil
            },
            { timeout, data in
                guard let timeout, let data else { return }
                let bus = Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue()
                bus.timeouts[timeout] = Bus.monotonicMilliseconds() + UInt64(max(0, dbus_timeout_get_interval(timeout)))
                bus.wake()
            }, me, nil)
        dbus_connection_set_wakeup_main_function(
            connection,
            { data in
                guard let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().wake()
            }, me, nil)
        dbus_connection_set_dispatch_status_function(
            connection,
            { _, status, data in
                guard let data, status == DBUS_DISPATCH_DATA_REMAINS else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().wake()
            }, me, nil)
        _ = dbus_connection_add_filter(
            connection,
            { _, message, data in
                guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                return Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().handle(BusMessage(borrowing: message))
            }, me, nil)
    }

    private func handle(_ message: BusMessage) -> DBusHandlerResult {
        switch message.kind {
        case .signal:
            handleSignal(message)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodCall:
            return handleMethodCall(message)
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func handleSignal(_ message: BusMessage) {
        if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
            markClosed("the bus closed the connection")
            return
        }
        if message.sender == "org.freedesktop.DBus", message.interface == "org.freedesktop.DBus",
            message.member == "NameLost", let name = message.firstStringArgument,
            let handler = nameLostHandlers.removeValue(forKey: name)
        {
            handler()
        }
        for (_, sub) in subscriptions.sorted(by: { $0.key < $1.key }) where sub.rule.matches(message) {
            sub.handler(message)
        }
    }

    private func handleMethodCall(_ message: BusMessage) -> DBusHandlerResult {
        guard let path = message.path else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        guard let object = objects[path] else {
            // Intermediate nodes answer Introspect so tools like `busctl tree` can walk to us.
            if message.interface == "org.freedesktop.DBus.Introspectable" || message.interface == nil,
                message.member == "Introspect"
            {
                let children = childNodes(of: path)
                if !children.isEmpty {
                    reply(to: message, .success([.string(Introspection.node(interfaces: [], children: children))]))
                    return DBUS_HANDLER_RESULT_HANDLED
                }
            }
            reply(to: message, .failure(DBusMethodError("org.freedesktop.DBus.Error.UnknownObject", "No object at path \(path)")))
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let member = message.member ?? ""
        let signature = message.signature
        switch message.interface {
        case "org.freedesktop.DBus.Introspectable":
            guard member == "Introspect", signature.isEmpty else { break }
            reply(to: message, .success([.string(Introspection.node(interfaces: object.interfaces, children: childNodes(of: path)))]))
            return DBUS_HANDLER_RESULT_HANDLED
        case "org.freedesktop.DBus.Properties":
            guard !message.carriesFileDescriptors else {
                reply(to: message, .failure(DBusMethodError.invalidArgs("Properties calls take no file descriptors")))
                return DBUS_HANDLER_RESULT_HANDLED
            }
            reply(to: message, handleProperties(object, member: member, message: message))
            return DBUS_HANDLER_RESULT_HANDLED
        case "org.freedesktop.DBus.Peer":
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED  // libdbus answers Ping and GetMachineId itself
        default:
            break
        }
        let candidates = object.interfaces.filter { message.interface == nil || $0.name == message.interface }
        guard let method = candidates.lazy.compactMap({ $0.method(member) }).first else {
            if message.interface == nil, member == "Introspect" {
                reply(to: message, .success([.string(Introspection.node(interfaces: object.interfaces, children: childNodes(of: path)))]))
                return DBUS_HANDLER_RESULT_HANDLED
            }
            reply(
                to: message,
                .failure(
                    DBusMethodError.unknownMethod(
                        "No method \(member) on interface \(message.interface ?? "(none)") at \(path)")))
            return DBUS_HANDLER_RESULT_HANDLED
        }
        guard signature == method.inputSignature else {
            reply(
                to: message,
                .failure(
                    DBusMethodError.invalidArgs(
                        "\(method.name) takes arguments of type '\(method.inputSignature)', not '\(signature)'")))
            return DBUS_HANDLER_RESULT_HANDLED
        }
        // Decoding dups every descriptor: only methods that can take one get them.
        if message.carriesFileDescriptors && !method.inputSignature.contains(where: { $0 == "h" || $0 == "v" }) {
            reply(to: message, .failure(DBusMethodError.invalidArgs("\(method.name) takes no file descriptors")))
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let call = MethodCall(message: message, arguments: message.arguments)
        let result: Result<[DBusValue], any Error>
        do {
            let values = try method.handler(call)
            let produced = DBusType.signature(of: values.map(\.type))
            if produced != method.outputSignature {
                result = .failure(
                    DBusMethodError.failed(
                        "internal error: \(method.name) produced '\(produced)' instead of '\(method.outputSignature)'"))
            } else {
                result = .success(values)
            }
        } catch {
            result = .failure(error)
        }
        reply(to: message, result)
        return DBUS_HANDLER_RESULT_HANDLED
    }

    private func handleProperties(_ object: ExportedObject, member: String, message: BusMessage) -> Result<[DBusValue], any Error> {
        // Only the three known shapes are decoded (and they carry no descriptors: checked above).
        let args = ["ss", "s", "ssv"].contains(message.signature) ? message.arguments : []
        func interface(_ name: String) throws -> DBusInterface {
            guard let found = object.interfaces.first(where: { $0.name == name }) else {
                throw DBusMethodError.unknownInterface("No interface \(name) at \(object.path)")
            }
            return found
        }
        do {
            switch (member, message.signature) {
            case ("Get", "ss"):
                let i = try interface(args[0].string ?? "")
                guard let p = i.property(args[1].string ?? "") else {
                    throw DBusMethodError.unknownProperty("No property \(args[1].string ?? "") on \(i.name)")
                }
                return .success([.variant(try checked(p, from: i.propertyValues?()))])
            case ("GetAll", "s"):
                let name = args[0].string ?? ""
                // An empty interface name means all of them, as in the specification.
                let interfaces = name.isEmpty ? object.interfaces : [try interface(name)]
                var entries: [(String, DBusValue)] = []
                for i in interfaces {
                    let values = i.propertyValues?()
                    for p in i.properties { entries.append((p.name, try checked(p, from: values))) }
                }
                return .success([.vardict(ordered: entries)])
            case ("Set", "ssv"):
                let i = try interface(args[0].string ?? "")
                guard let p = i.property(args[1].string ?? "") else {
                    throw DBusMethodError.unknownProperty("No property \(args[1].string ?? "") on \(i.name)")
                }
                guard let setter = p.set else { throw DBusMethodError.propertyReadOnly("\(p.name) is read-only") }
                let value = args[2].unwrapped
                guard value.type == p.type else {
                    throw DBusMethodError.invalidArgs("\(p.name) has type '\(p.type.signature)', not '\(value.signature)'")
                }
                try setter(value)
                return .success([])
            case ("Get", _), ("GetAll", _), ("Set", _):
                throw DBusMethodError.invalidArgs("Wrong arguments '\(message.signature)' for Properties.\(member)")
            default:
                throw DBusMethodError.unknownMethod("No method \(member) on org.freedesktop.DBus.Properties")
            }
        } catch {
            return .failure(error)
        }
    }

    private func checked(_ property: DBusProperty, from values: [String: DBusValue]? = nil) throws -> DBusValue {
        let value = try values?[property.name] ?? property.get()
        guard value.type == property.type else {
            throw DBusMethodError.failed("internal error: \(property.name) produced '\(value.signature)'")
        }
        return value
    }

    private func childNodes(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names = Set<String>()
        for other in objects.keys where other.hasPrefix(prefix) && other != path {
            if let first = other.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    private func reply(to call: BusMessage, _ result: Result<[DBusValue], any Error>) {
        guard !call.noReply else { return }
        let reply: BusMessage?
        switch result {
        case .success(let values):
            do {
                reply = try call.methodReturn(values)
            } catch {
                reply = call.errorReply(name: "org.freedesktop.DBus.Error.Failed", message: "internal error: \(error)")
            }
        case .failure(let error as any DBusErrorConvertible):
            reply = call.errorReply(name: error.dbusErrorName, message: error.dbusErrorMessage)
        case .failure(let error):
            reply = call.errorReply(name: "org.freedesktop.DBus.Error.Failed", message: "\(error)")
        }
        if let reply { _ = dbus_connection_send(connection, reply.raw, nil) }
    }
}

/// An object path and the interfaces it implements.
public struct ExportedObject: Sendable {
    public var path: String
    public var interfaces: [DBusInterface]
    public init(path: String, interfaces: [DBusInterface]) {
        self.path = path
        self.interfaces = interfaces
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
        self.type = type
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule as the bus reads it, e.g. `type='signal',interface='org.example.I'`.
    public func text() throws(BusError) -> String {
        var parts = ["type='\(type.rawValue)'"]
        if let sender {
            try Validate.busName(sender)
            parts.append("sender='\(sender)'")
        }
        if let path {
            try Validate.objectPath(path)
            parts.append("path='\(path)'")
        }
        if let interface {
            try Validate.interfaceName(interface)
            parts.append("interface='\(interface)'")
        }
        if let member {
            try Validate.memberName(member)
            parts.append("member='\(member)'")
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

/// A pending call's completion, kept alive by libdbus until the call ends.
private final class PendingBox: @unchecked Sendable {
    let label: String
    var completion: (@Sendable (Result<[DBusValue], BusError>) -> Void)?
    init(label: String, completion: @escaping @Sendable (Result<[DBusValue], BusError>) -> Void) {
        self.label = label
        self.completion = completion
    }

    func complete(_ pending: OpaquePointer) {
        guard let completion else { return }
        self.completion = nil
        guard let reply = dbus_pending_call_steal_reply(pending) else {
            completion(.failure(.disconnected("no reply to \(label)")))
            return
        }
        completion(RawConnection.result(of: BusMessage(owning: reply), call: label))
    }
}

/// Carries a result from the loop thread to a waiting thread (ordered by a semaphore).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, BusError>?
}
