/// Calls made in the service's own process (the daemon running a command line for its
/// caller): the same dispatch as a call over the bus — the object, the method, its argument
/// types, the strings libdbus would refuse, the output types — without a message.
extension Bus {
    /// Calls `member` of `interface` on the object at `path` exported on this bus, for
    /// `sender`, and waits for its answer. From another thread the call runs on the loop
    /// (while the loop is held for bulk work, only a call that reads does; the rest wait for
    /// it) and a deferred method's later answer is waited for too. On the loop thread the call
    /// runs at once, and a deferred method finishes in place.
    public func callLocally(
        path: String, interface: String, member: String, arguments: [DBusValue], sender: String
    ) throws -> [DBusValue] {
        if isLoopThread {
            // Nothing can be waited for here: a deferred method is asked to finish in place
            // (`EventLoop.finishesInPlace`), holding the loop as long as it takes.
            let box = Answer()
            try BusMessage.validateArguments(arguments)
            loop.inPlace += 1
            defer { loop.inPlace -= 1 }
            dispatchLocally(path, interface, member, arguments, sender: sender) { box.result = $0 }
            guard let result = box.result else {
                throw DBusMethodError.failed("internal error: \(member) did not finish in place")
            }
            return try result.get()
        }
        // The checks sending them would make (strings libdbus refuses), here on the caller's
        // thread: an import's megabytes are not scanned on the loop.
        try BusMessage.validateArguments(arguments)
        let box = Answer()
        let done = Semaphore()
        let answer: @Sendable (Result<[DBusValue], any Error>) -> Void = { result in
            box.result = result
            done.signal()
        }
        // Looked at on the loop: a call that does not only read waits for a held loop's release
        // (work queued meanwhile runs after it, in order).
        let queued = loop.performIfRunning(whileHeld: true) { [self] in
            if loop.held && !onlyReads(path, interface, member) {
                loop.later { [self] in dispatchLocally(path, interface, member, arguments, sender: sender, answer: answer) }
            } else {
                dispatchLocally(path, interface, member, arguments, sender: sender, answer: answer)
            }
        }
        // A loop that has stopped (the daemon exiting) runs no handler: not on this thread
        // either, beside the tear-down.
        guard queued else { throw BusError.disconnected("the daemon is stopping") }
        done.wait()
        return try box.result!.get()
    }

    /// On the loop thread: the call dispatched as `handleMethodCall` does, `answer` told once.
    private func dispatchLocally(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue], sender: String,
        answer: @escaping @Sendable (Result<[DBusValue], any Error>) -> Void
    ) {
        guard let object = objects[path] else {
            return answer(.failure(DBusMethodError("org.freedesktop.DBus.Error.UnknownObject", "No object at path \(path)")))
        }
        let signature = DBusType.signature(of: arguments.map(\.type))
        if interface == "org.freedesktop.DBus.Properties" {
            return answer(properties(object, member: member, signature: signature, arguments: arguments))
        }
        let method: DBusMethod
        switch Self.method(of: object, interface: interface, member: member, signature: signature) {
        case .success(let found): method = found
        case .failure(let error): return answer(.failure(error))
        }
        let call: MethodCall
        do {
            // The arguments were checked by `callLocally`; the message only names the call:
            // the handler takes the values as they are.
            let message = try BusMessage.methodCall(destination: nil, path: path, interface: interface, member: member)
            call = MethodCall(message: message, arguments: arguments)
        } catch {
            return answer(.failure(error))
        }
        if let start = method.deferredHandler {
            let pending = PendingReply(local: method, sender: sender, answer)
            do {
                try start(call, pending)
            } catch {
                pending.finish(.failure(error))
            }
            return
        }
        do {
            answer(Self.checked(try method.handler(call), of: method))
        } catch {
            answer(.failure(error))
        }
    }
}

/// A local call's answer, written on the loop thread and read by the caller after the signal.
private final class Answer: @unchecked Sendable {
    var result: Result<[DBusValue], any Error>?
}
