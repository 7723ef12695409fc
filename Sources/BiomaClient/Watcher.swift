import BiomaWidgets
import DBusKit
import TimerControl

/// `biomatimer watch`: follows the daemon's `PropertiesChanged` and its name owner, and prints
/// one line for a bar whenever the displayed text changes. It never polls the daemon: while
/// the timer runs it wakes exactly when the displayed second changes (from `UpdatedAt`), and
/// while stopped or offline it sleeps until a signal arrives.
public final class Watcher: @unchecked Sendable {
    private let renderer: any WidgetRenderer
    private let output: @Sendable (String) -> Void
    private let clock: any TimeSource
    private let condition = Condition()
    // Guarded by `condition`.
    private var state = WidgetState.offline
    private var generation = 0
    private var connected = false
    /// Connected, and the first read of the daemon's state has not answered yet: nothing is
    /// drawn meanwhile, so a bar starting next to a running daemon never flashes `offline`.
    private var awaitingFirstRead = false

    public init(renderer: any WidgetRenderer, clock: any TimeSource = SystemClock(), output: @escaping @Sendable (String) -> Void) {
        self.renderer = renderer
        self.clock = clock
        self.output = output
    }

    /// Connects and follows the daemon until the process ends. When the bus itself is gone it
    /// prints the offline line and tries again every few seconds.
    public func run(address: BusAddress, handleClicks: Bool = false) -> Never {
        if handleClicks { startClickReader(address: address) }
        while true {
            do {
                let bus = try Bus(address)
                update { _ in
                    connected = true
                    awaitingFirstRead = true
                }
                bus.onDisconnect { [self] _ in
                    update {
                        $0 = .offline
                        connected = false
                        awaitingFirstRead = false
                    }
                }
                // However this ends, the connection and its loop thread go with it.
                defer { bus.close() }
                try follow(bus)
                drawLoop(timeout: nil)
            } catch {
                update {
                    $0 = .offline
                    connected = false
                    awaitingFirstRead = false
                }
                drawLoop(timeout: 5)
            }
        }
    }

    /// Subscribes before reading, so no change between the read and the subscription is lost.
    func follow(_ bus: Bus) throws(BusError) {
        try bus.subscribe(
            // Only the name's owner: the bus resolves the well-known sender, so another
            // process cannot feed the bar a fake state.
            MatchRule(
                sender: TimerNames.busName, path: TimerNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged")
        ) { [self] message in
            guard let interface = message.arguments.first?.string,
                let changed = message.arguments.dropFirst().first?.vardict
            else { return }
            update { if $0.online { $0.apply(changed, interface: interface) } }
        }
        try bus.watchNameOwner(TimerNames.busName) { [self, weak bus] owner in
            if owner == nil {
                set(.offline)
            } else if let bus {
                refresh(bus, autoStart: false)
            }
        }
        // The first read may start the daemon by bus activation. Its answer (or failure,
        // after at most the call's timeout) is the first line drawn.
        refresh(bus, autoStart: true, first: true)
    }

    /// Reads every interface's properties (one `GetAll` each, sent together) and draws the
    /// state when all have answered; a failure of any means offline.
    private func refresh(_ bus: Bus, autoStart: Bool, first: Bool = false) {
        let interfaces = WidgetState.interfaces
        let replies = RefreshReplies(count: interfaces.count)
        for interface in interfaces {
            guard
                let message = try? BusMessage.methodCall(
                    destination: TimerNames.busName, path: TimerNames.objectPath, interface: TimerNames.propertiesInterface,
                    member: "GetAll", arguments: [.string(interface)])
            else {
                set(.offline, first: first)
                return
            }
            message.autoStart = autoStart
            bus.send(message, timeout: .seconds(10)) { [self] result in
                guard let complete = replies.add(interface, result.map { $0.first?.vardict ?? [:] }) else { return }
                switch complete {
                case .success(let properties): set(WidgetState(properties: properties), first: first)
                case .failure: set(.offline, first: first)
                }
            }
        }
    }

    private func set(_ new: WidgetState, first: Bool = false) {
        update {
            $0 = new
            if first { awaitingFirstRead = false }
        }
    }

    private func update(_ body: (inout WidgetState) -> Void) {
        condition.lock()
        body(&state)
        generation += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Prints the line now and at every instant the displayed text may change. Returns when
    /// the bus connection is lost, or after `timeout` seconds when there is none.
    private func drawLoop(timeout seconds: Int64?) {
        let end = seconds.map { clock.now() + $0 * 1_000_000 }
        var last: String?
        condition.lock()
        defer { condition.unlock() }
        while true {
            if awaitingFirstRead && connected {
                let seen = generation
                while generation == seen { condition.wait() }
                continue
            }
            let now = clock.now()
            let line = renderer.render(state, now: now)
            if line != last {
                output(line)
                last = line
            }
            if end == nil && !connected { return }
            if let end, clock.now() >= end { return }
            let seen = generation
            let next = nextRedraw(after: now, state: state, showing: renderer.displayedTimes)
            var deadline = next
            if let end { deadline = deadline.map { min($0, end) } ?? end }
            while generation == seen {
                if let deadline {
                    if !condition.wait(untilMicros: deadline) { break }
                } else {
                    condition.wait()
                }
            }
        }
    }

    /// i3blocks ≥ 1.5 writes a persistent block's clicks to its stdin, one JSON object a line.
    private func startClickReader(address: BusAddress) {
        detachThread {
            while let line = readLine(strippingNewline: true) {
                guard let action = BarClick(i3blocksLine: line)?.action else { continue }
                guard let client = try? TimerClient(address: address) else { continue }
                switch action {
                case .toggle: _ = try? client.call("Toggle")
                case .toggleFocus: _ = try? client.call("TogglePause", interface: TimerNames.focusInterface)
                case .nextProject, .previousProject:
                    if let step = action.cycleStep { _ = try? client.call("CycleProject", [.int32(step)]) }
                }
            }
        }
    }
}

/// The `GetAll` answers of one refresh, collected until every interface has answered.
private final class RefreshReplies: @unchecked Sendable {
    private let count: Int
    private var properties: [String: [String: DBusValue]] = [:]
    private var failed = false
    private var answered = 0

    init(count: Int) { self.count = count }

    /// Records one answer (on the bus's loop thread); the outcome once all have answered.
    func add(_ interface: String, _ result: Result<[String: DBusValue], BusError>) -> Result<[String: [String: DBusValue]], BusError>? {
        answered += 1
        switch result {
        case .success(let values): properties[interface] = values
        case .failure: failed = true
        }
        guard answered == count else { return nil }
        return failed ? .failure(.disconnected("no answer")) : .success(properties)
    }
}
