// Sync, part 3: the merge. Every rule here is a function of the set of operations, not of the
// order they arrive in, so every device ends with the same history.

/// Which operation set a field: its clock, then its id (two operations never share a clock,
/// but a damaged peer could write two with one; the id still decides the same way everywhere).
public struct FieldStamp: Comparable, Hashable, Sendable {
    public var clock: HybridTime
    public var operation: String

    public init(clock: HybridTime, operation: String) {
        self.clock = clock
        self.operation = operation
    }

    public static func < (a: FieldStamp, b: FieldStamp) -> Bool { (a.clock, a.operation) < (b.clock, b.operation) }
}

public enum SyncMerge {
    /// The fields of `operation` that win against the stamps the entity's fields hold now
    /// (`current`, by field name; a missing name has never been set): a field takes the value
    /// with the greatest stamp. Applying the same operation again wins nothing.
    public static func winners(of operation: SyncOperation, over current: [String: FieldStamp]) -> [String: SyncValue] {
        let stamp = FieldStamp(clock: operation.clock, operation: operation.id)
        return operation.fields.filter { name, _ in current[name].map { stamp > $0 } ?? true }
    }

    /// A stretch of timed work as the merge sees it: the interval's UUID, its start, and its
    /// end (nil while it runs).
    public struct Stretch: Equatable, Hashable, Sendable {
        public var id: String
        public var start: Micros
        public var end: Micros?

        public init(id: String, start: Micros, end: Micros?) {
            (self.id, self.start, self.end) = (id, start, end)
        }
    }

    /// Where two stretches overlapped: `kept` started later and keeps the time; `cut` now
    /// ends where `kept` starts (at its own start when both started together: it is gone).
    /// `from`–`to` is the time both had (`to` nil while both run).
    public struct Overlap: Equatable, Hashable, Sendable {
        public var cut: String
        public var kept: String
        public var from: Micros
        public var to: Micros?

        public init(cut: String, kept: String, from: Micros, to: Micros?) {
            (self.cut, self.kept, self.from, self.to) = (cut, kept, from, to)
        }
    }

    /// Intervals never overlap, and one timer runs for a person: of two stretches that
    /// overlap, the one that started later keeps the overlap and the earlier one is cut at
    /// its start (a running stretch is stopped there; of two that started together, the one
    /// with the greater id keeps). The result is each stretch's end after the rule (absent
    /// ends stay nil), and the overlaps it resolved. A function of the set: the order of
    /// `stretches` does not matter.
    public static func withoutOverlaps(_ stretches: [Stretch]) -> (ends: [String: Micros?], overlaps: [Overlap]) {
        let (cut, overlaps) = cuts(stretches)
        var ends: [String: Micros?] = [:]
        for stretch in stretches { ends[stretch.id] = stretch.end }
        for stretch in cut { ends[stretch.id] = stretch.end }
        return (ends, overlaps)
    }

    /// `withoutOverlaps` as the stretches it cuts, each with its new end, in start order, and
    /// the overlaps it resolved: none when nothing overlaps (a peer's history replayed in
    /// order), found without a table of every stretch's end.
    public static func cuts(_ stretches: [Stretch]) -> (cut: [Stretch], overlaps: [Overlap]) {
        let sorted = stretches.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        var cut: [Stretch] = []
        var overlaps: [Overlap] = []
        // The next stretch in start order has the earliest start at or after each one's: only
        // it can decide where that one ends.
        for (stretch, next) in zip(sorted, sorted.dropFirst()) where next.start < (stretch.end ?? .max) {
            let both: Micros? =
                switch (stretch.end, next.end) {
                case (nil, nil): nil
                case (let a?, nil): a
                case (nil, let b?): b
                case (let a?, let b?): min(a, b)
                }
            overlaps.append(Overlap(cut: stretch.id, kept: next.id, from: next.start, to: both))
            cut.append(Stretch(id: stretch.id, start: stretch.start, end: next.start))
        }
        return (cut, overlaps)
    }

    /// Whether this device's id is also used by another copy of its data folder (a restored
    /// backup, a copied home): the folder holds, under this device's id, a line this device's
    /// store does not know — a later sequence number, or another operation at its last one.
    /// Such a device takes a new id.
    public static func identityIsShared(
        localLast: (sequence: Int64, operation: String)?, folderLast: (sequence: Int64, operation: String)?
    ) -> Bool {
        guard let folderLast else { return false }
        guard let localLast else { return true }
        if folderLast.sequence > localLast.sequence { return true }
        return folderLast.sequence == localLast.sequence && folderLast.operation != localLast.operation
    }
}
