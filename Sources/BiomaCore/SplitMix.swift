/// A fast generator (SplitMix64, Steele, Lea and Flood 2014): seeded from the system once, or
/// from a given seed (a test's random case repeats from its seed). For bits that make
/// identifiers unique — an operation's id, a bulk row's uuid, tens of thousands in a slice — not
/// for secrets: each draw of the system's generator is a system call.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// Seeded from the system's generator.
    public init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
