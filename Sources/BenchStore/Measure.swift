import BiomaCore
import Foundation

// Timing helpers of the benchmark.

func nowMicros() -> Micros { Micros(Date().timeIntervalSince1970 * 1_000_000) }

func measure(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try clock.measure(body)
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}
func ms(_ value: Double) -> String { String(format: "%9.3f ms", value) }

/// The CPU time (user and system) this process has used, in ms: beside the wall time, the
/// measure a shared, busy machine disturbs least.
func cpuMillis() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
    return ms(usage.ru_utime) + ms(usage.ru_stime)
}
