/// Interfaces whose properties are described by a `PropertyTable`: the table gives the
/// introspection, `Get` and `GetAll`, and the `PropertiesChanged` entries.

extension DBusInterface {
    /// An interface whose properties are `table`'s columns, read from `state()`. `Get` and
    /// `GetAll` each call `state()` once, so every value they return holds at one instant; an
    /// error it throws is their error reply.
    public init<Root>(
        _ table: PropertyTable<Root>, state: @escaping @Sendable () throws -> Root, methods: [DBusMethod] = [],
        signals: [DBusSignal] = []
    ) {
        let properties = table.columns.map { column in
            DBusProperty(column.name, column.type.signature) { column.value(of: try state()) }
        }
        self.init(
            table.interface, methods: methods, properties: properties, signals: signals,
            propertyValues: { table.values(of: try state()) })
    }
}

extension Bus {
    /// Emits `PropertiesChanged` on `path` for the properties of `table` that differ between
    /// two states taken at the same instant (plus its always-sent columns); nothing when no
    /// property changed. Returns whether a signal was sent; one that could not be sent is told
    /// to `report` (the daemon's log), and the followers catch up with the next signal or
    /// with `GetAll`.
    @discardableResult
    public func emitChanges<Root>(_ table: PropertyTable<Root>, path: String, from before: Root, to after: Root) -> Bool {
        guard let changes = table.changes(from: before, to: after) else { return false }
        do {
            try emitPropertiesChanged(path: path, interface: table.interface, changed: changes)
            return true
        } catch {
            report("cannot send PropertiesChanged for \(table.interface) on \(path): \(error)")
            return false
        }
    }
}
