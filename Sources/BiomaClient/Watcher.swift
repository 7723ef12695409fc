import BiomaWidgets
import CContract
import DBusKit
import BiomaContract

#if canImport(Glibc)
    import Glibc
#endif

/// `biomatimer watch`: follows the daemon (`DaemonFollower`: its `PropertiesChanged` and its
/// name owner), and prints one line for a bar whenever the displayed text changes. It never
/// polls the daemon: while the timer runs it wakes exactly when the displayed second changes
/// (from `UpdatedAt`), and while stopped or offline it sleeps until a signal arrives.
///
/// Everything runs on one `EventLoop`: the bus connection, the redraws (one deadline, at the
/// next instant the displayed text may change), the reconnection after a lost bus and, under
/// i3blocks, the clicks read from stdin. The main thread only waits: two threads in all.
public final class Watcher: @unchecked Sendable {
    private let renderer: any WidgetRenderer
    private let output: @Sendable (String) -> Void
    private let clock: any TimeSource
    // Loop thread only.
    private var state = WidgetState.offline
    private var connected = false
    /// Connected, and the first read of the daemon's state has not answered yet: nothing is
    /// drawn meanwhile, so a bar starting next to a running daemon never flashes `offline`.
    private var awaitingFirstRead = false
    private var bus: Bus?
    private var follower: DaemonFollower?
    private var address = BusAddress.session
    private var loop: EventLoop?
    private var deadlines: Deadlines?
    private var redraw: Deadlines.Handle?
    /// While there is no bus: when to try again.
    private var retryAt: Int64?
    private var last: String?
    private var clickBuffer: [UInt8] = []
    private var clickWatch: EventLoop.WatchHandle?

    /// Told once why the bus cannot be reached (no session bus, a bus that refuses), and again
    /// only when the reason changes: the bar shows `offline`, its log says why.
    public var problem: (@Sendable (String) -> Void)?
    private var lastProblem: String?

    public init(renderer: any WidgetRenderer, clock: any TimeSource = SystemClock(), output: @escaping @Sendable (String) -> Void) {
        (self.renderer, self.clock, self.output) = (renderer, clock, output)
    }

    /// Connects and follows the daemon until the process ends. When the bus itself is gone it
    /// prints the offline line and tries again every few seconds.
    public func run(address: BusAddress, handleClicks: Bool = false) -> Never {
        do {
            let loop = try EventLoop()
            loop.perform { [self] in start(loop, address: address, handleClicks: handleClicks) }
            loop.wait()
        } catch {
            output(renderer.render(.offline, now: clock.now()))
        }
        // The loop stops only when it cannot go on.
        exit(1)
    }

    /// On the loop thread.
    private func start(_ loop: EventLoop, address: BusAddress, handleClicks: Bool) {
        self.loop = loop
        self.address = address
        do {
            let deadlines = try Deadlines(loop: loop)
            self.deadlines = deadlines
            redraw = deadlines.add { [self] _ in tick() }
        } catch {
            output(renderer.render(.offline, now: clock.now()))
            exit(1)
        }
        if handleClicks { startClickReader(loop) }
        connect()
    }

    /// A redraw instant, or the time to try the bus again.
    private func tick() {
        if let retryAt, clock.now() >= retryAt {
            self.retryAt = nil
            connect()
        } else {
            draw()
        }
    }

    private func connect() {
        guard let loop else { return }
        do {
            let bus = try Bus(address, loop: loop)
            self.bus = bus
            connected = true
            awaitingFirstRead = true
            bus.onDisconnect { [self, weak bus] _ in
                guard let bus, self.bus === bus else { return }
                self.bus = nil
                follower = nil
                state = .offline
                connected = false
                awaitingFirstRead = false
                // Try again at once, from the deadline rather than inside the bus's end.
                retryAt = clock.now()
                draw()
            }
            do {
                try follow(bus)
            } catch {
                self.bus = nil
                follower = nil
                bus.close()
                throw error
            }
            lastProblem = nil
            draw()
        } catch {
            state = .offline
            connected = false
            awaitingFirstRead = false
            retryAt = clock.now() + 5 * 1_000_000
            let reason = "\(error)"
            if reason != lastProblem {
                lastProblem = reason
                problem?("\(reason); showing offline and trying again every 5 s")
            }
            draw()
        }
    }

    /// The daemon's state from `DaemonFollower`: redrawn at each change; the first read's
    /// answer ends the wait for it.
    private func follow(_ bus: Bus) throws(BusError) {
        let follower = DaemonFollower(bus: bus) { [self] state, cause in
            self.state = state
            if cause == .read(first: true) { awaitingFirstRead = false }
            draw()
        }
        self.follower = follower
        // The first read may start the daemon by bus activation.
        try follower.start(activating: true)
    }

    /// Prints the line if it changed, and schedules the next instant the displayed text may
    /// change (or the next try of the bus).
    private func draw() {
        guard let deadlines, let redraw else { return }
        var next: Int64?
        if !(awaitingFirstRead && connected) {
            let now = clock.now()
            let line = renderer.render(state, now: now)
            if line != last {
                output(line)
                last = line
            }
            next = nextRedraw(after: now, state: state, showing: renderer.displayedTimes)
        }
        if let retryAt { next = next.map { min($0, retryAt) } ?? retryAt }
        deadlines.schedule(redraw, at: next)
    }

    /// i3blocks ≥ 1.5 writes a persistent block's clicks to its stdin, one JSON object a line:
    /// read on the loop, each sent as a call on the watch's own connection.
    private func startClickReader(_ loop: EventLoop) {
        clickWatch = loop.watch(fd: 0) { [self] _ in
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(0, &chunk, chunk.count)
            guard n > 0 else {
                // The end of stdin (or an error): no more clicks.
                if n == 0 || (errno != EINTR && errno != EAGAIN), let clickWatch { loop.unwatch(clickWatch) }
                return
            }
            clickBuffer.append(contentsOf: chunk[0..<n])
            while let newline = clickBuffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: clickBuffer[..<newline], as: UTF8.self)
                clickBuffer.removeSubrange(...newline)
                click(line)
            }
        }
    }

    private func click(_ line: String) {
        guard let action = BarClick(i3blocksLine: line)?.action, let bus else { return }
        let call: (member: String, arguments: [DBusValue], interface: String)
        switch action {
        case .toggle: call = (BIOMATIMER_TIMER1_TOGGLE, [], ContractNames.interface)
        case .toggleFocus: call = (BIOMATIMER_FOCUS1_TOGGLE_PAUSE, [], ContractNames.focusInterface)
        case .nextProject, .previousProject:
            guard let step = action.cycleStep else { return }
            call = (BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(step)], ContractNames.interface)
        }
        guard
            let message = try? BusMessage.methodCall(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: call.interface,
                member: call.member, arguments: call.arguments)
        else { return }
        // The answer changes the daemon's properties, which come back as signals.
        bus.send(message, timeout: .seconds(10)) { _ in }
    }
}
