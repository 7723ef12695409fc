// Sync, part 1: the clock that orders operations across devices and the identifiers they carry.
// Pure: the caller brings the physical time and the random bits.

/// A hybrid logical clock's reading (Kulkarni et al., 2014): wall time in µs, a counter for
/// events within one wall reading, and the device that made it. Ordered by wall, counter, then
/// device, so two readings are never equal unless they are the same event's.
public struct HybridTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var wall: Micros
    public var counter: UInt32
    public var device: String

    public init(wall: Micros, counter: UInt32, device: String) {
        (self.wall, self.counter, self.device) = (wall, counter, device)
    }

    public static func < (a: HybridTime, b: HybridTime) -> Bool {
        (a.wall, a.counter, a.device) < (b.wall, b.counter, b.device)
    }

    public var description: String { "\(wall).\(counter)@\(device)" }
}

/// A device's hybrid logical clock. `tick` stamps a local change; `observe` takes in a peer's
/// reading, so that every later tick orders after everything this device has seen, however
/// far behind its own wall clock is.
public struct HybridClock: Sendable, Equatable {
    public let device: String
    public private(set) var wall: Micros
    public private(set) var counter: UInt32

    /// A clock that has seen nothing, or one that resumes after `last` (read back from the store).
    public init(device: String, last: HybridTime? = nil) {
        self.device = device
        wall = last?.wall ?? 0
        counter = last?.counter ?? 0
    }

    /// The reading for a change made now.
    public mutating func tick(physical: Micros) -> HybridTime {
        if physical > wall {
            wall = physical
            counter = 0
        } else {
            counter = Self.next(counter)
        }
        return HybridTime(wall: wall, counter: counter, device: device)
    }

    /// Takes in a peer's reading: later ticks order after it.
    public mutating func observe(_ remote: HybridTime, physical: Micros) {
        let newWall = max(wall, remote.wall, physical)
        if newWall == wall && newWall == remote.wall {
            counter = Self.next(max(counter, remote.counter))
        } else if newWall == wall {
            counter = Self.next(counter)
        } else if newWall == remote.wall {
            counter = Self.next(remote.counter)
        } else {
            counter = 0
        }
        wall = newWall
    }

    /// A counter that would wrap moves the wall on by a microsecond instead: readings stay
    /// ordered (four billion changes within one microsecond do not happen, but a peer's
    /// reading is not trusted to be sane).
    private static func next(_ counter: UInt32) -> UInt32 { counter == .max ? .max : counter + 1 }
}

/// Identifiers in the usual text form (`8-4-4-4-12` lowercase hex).
public enum UUIDText {
    /// A UUID version 7 (RFC 9562): the Unix time in milliseconds, then random bits, so
    /// identifiers made later sort later.
    public static func version7(millis: Int64, using random: inout some RandomNumberGenerator) -> String {
        // Ten random bytes from two draws.
        let (high, low) = (random.next(), random.next())
        let time = UInt64(truncatingIfNeeded: millis) & 0xFFFF_FFFF_FFFF
        return text(
            high: time << 16 | 0x7000 | (high >> 48 & 0x0FFF),
            low: 0x8000_0000_0000_0000 | (high << 16 & 0x3FFF_FFFF_FFFF_0000) | (low & 0xFFFF))
    }

    /// A random UUID (version 4): a device's id.
    public static func version4(using random: inout some RandomNumberGenerator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = 0x40 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return text(bytes)
    }

    /// Whether `text` is a UUID in lowercase `8-4-4-4-12` form (what this program writes; a
    /// file's names and lines are checked against it before they are used).
    public static func isValid(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    static func text(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16)
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return text(high: high, low: low)
    }

    /// The 128 bits `high` then `low` (most significant first) as `8-4-4-4-12` lowercase hex,
    /// written into the string's own storage: an operation's id is made for every change, a
    /// row's uuid for every row a bulk insert adds.
    public static func text(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            var at = 0
            /// `count` hex digits of `value`'s low bits, most significant first, then a dash
            /// unless it is the last group.
            func group(_ value: UInt64, _ count: Int) {
                for index in 0..<count {
                    let digit = UInt8(truncatingIfNeeded: value >> UInt64(4 * (count - 1 - index))) & 0xF
                    out[at] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    at += 1
                }
                if at < 36 {
                    out[at] = UInt8(ascii: "-")
                    at += 1
                }
            }
            group(high >> 32, 8)
            group(high >> 16, 4)
            group(high, 4)
            group(low >> 48, 4)
            group(low, 12)
            return at
        }
    }
}
