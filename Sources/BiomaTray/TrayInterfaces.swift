import CContract
import DBusKit

/// The two exported interfaces: their methods check every argument before anything changes.
extension TrayService {
    static let itemSignatures: [(String, String)] = [
        ("Category", "s"), ("Id", "s"), ("Title", "s"), ("Status", "s"), ("WindowId", "i"), ("IconThemePath", "s"),
        ("IconName", "s"), ("IconPixmap", "a(iiay)"), ("OverlayIconName", "s"), ("OverlayIconPixmap", "a(iiay)"),
        ("AttentionIconName", "s"), ("AttentionIconPixmap", "a(iiay)"), ("AttentionMovieName", "s"),
        ("ToolTip", "(sa(iiay)ss)"), ("ItemIsMenu", "b"), ("Menu", "o"),
    ]

    func itemInterface() -> DBusInterface {
        let properties = Self.itemSignatures.map { name, signature in
            DBusProperty(name, signature, changeSignal: .false) { [unowned self] in itemProperties()[name] ?? .string("") }
        }
        let xy = [DBusArgument("x", "i"), DBusArgument("y", "i")]
        return DBusInterface(
            Self.itemInterface,
            methods: [
                DBusMethod.action("ContextMenu", in: xy) { _ in },
                DBusMethod.action("Activate", in: xy) { [unowned self] _ in
                    perform(.toggleWork)
                },
                DBusMethod.action("SecondaryActivate", in: xy) { [unowned self] _ in
                    if input.state.online && input.state.focus.isActive { perform(.focus(BIOMATIMER_FOCUS1_TOGGLE_PAUSE, [])) }
                },
                DBusMethod.action("Scroll", in: [DBusArgument("delta", "i"), DBusArgument("orientation", "s")]) { [unowned self] call in
                    guard case .int32(let delta) = call.arguments[0], let orientation = call.arguments[1].string,
                        ["vertical", "horizontal"].contains(orientation.lowercased())
                    else { throw DBusMethodError.invalidArgs("orientation must be vertical or horizontal") }
                    if delta != 0 { perform(.cycle(delta > 0 ? 1 : -1)) }
                },
                DBusMethod("ProvideXdgActivationToken", in: [DBusArgument("token", "s")]) { _ in [] },
            ],
            properties: properties,
            signals: [
                DBusSignal("NewTitle"), DBusSignal("NewIcon"), DBusSignal("NewAttentionIcon"), DBusSignal("NewOverlayIcon"),
                DBusSignal("NewToolTip"), DBusSignal("NewStatus", [DBusArgument("status", "s")]),
            ],
            propertyValues: { [unowned self] in itemProperties() })
    }

    static let events: Set<String> = ["clicked", "hovered", "opened", "closed"]

    func row(_ value: DBusValue) throws -> MenuRow {
        guard case .int32(let id) = value, let row = menu.row(id) else {
            throw DBusMethodError.invalidArgs("No menu item \(value.description)")
        }
        return row
    }

    func names(_ value: DBusValue) throws -> [String] {
        let names = value.array ?? []
        guard names.count <= 64 else { throw DBusMethodError.invalidArgs("Too many property names (\(names.count))") }
        return names.compactMap(\.string)
    }

    func ids(_ value: DBusValue) throws -> [Int32] {
        let values = value.array ?? []
        guard values.count <= Self.maxArray else { throw DBusMethodError.invalidArgs("Too many ids (\(values.count))") }
        return values.compactMap { if case .int32(let id) = $0 { id } else { nil } }
    }

    /// A click, hover, open or close on a row.
    func event(_ id: Int32, _ name: String) {
        guard name == "clicked", let action = menu.row(id)?.action else { return }
        perform(action)
    }

    /// `AboutToShow`: times in labels are read fresh now; hosts learn it through
    /// `ItemsPropertiesUpdated`. Opening the root also re-reads the lists.
    func aboutToShow(_ ids: [Int32]) {
        if ids.contains(0) { refreshLists(projects: true, tasks: true, presets: true) }
        refreshMenu(now: clock.now())
    }

    func menuInterface() -> DBusInterface {
        let rowType = "(ia{sv}av)"
        return DBusInterface(
            Self.menuInterface,
            methods: [
                DBusMethod(
                    "GetLayout", in: [DBusArgument("parentId", "i"), DBusArgument("recursionDepth", "i"), DBusArgument("propertyNames", "as")],
                    out: [DBusArgument("revision", "u"), DBusArgument("layout", rowType)]
                ) { [unowned self] call in
                    let row = try row(call.arguments[0])
                    guard case .int32(let depth) = call.arguments[1], depth >= -1 else {
                        throw DBusMethodError.invalidArgs("recursionDepth must be -1 or more")
                    }
                    let names = try names(call.arguments[2])
                    guard let layout = menu.layout(row.id, depth: depth, names: names) else {
                        throw DBusMethodError.invalidArgs("No menu item \(row.id)")
                    }
                    return [.uint32(menu.revision), layout]
                },
                DBusMethod(
                    "GetGroupProperties", in: [DBusArgument("ids", "ai"), DBusArgument("propertyNames", "as")],
                    out: [DBusArgument("properties", "a(ia{sv})")]
                ) { [unowned self] call in
                    var ids = try ids(call.arguments[0])
                    let names = try names(call.arguments[1])
                    if ids.isEmpty { ids = menu.allIDs }
                    let known = ids.compactMap { menu.row($0) }
                    if known.isEmpty { throw DBusMethodError.invalidArgs("No such menu items") }
                    return [
                        .array(
                            .structure([.int32, .array(.dictEntry(.string, .variant))]),
                            known.map { .structure([.int32($0.id), .vardict(ordered: $0.filtered(names))]) })
                    ]
                },
                DBusMethod(
                    "GetProperty", in: [DBusArgument("id", "i"), DBusArgument("name", "s")], out: [DBusArgument("value", "v")]
                ) { [unowned self] call in
                    let row = try row(call.arguments[0])
                    guard let name = call.arguments[1].string, let value = row.properties[name] else {
                        throw DBusMethodError.invalidArgs("No property \(call.arguments[1].description) on item \(row.id)")
                    }
                    return [.variant(value)]
                },
                DBusMethod(
                    "Event",
                    in: [DBusArgument("id", "i"), DBusArgument("eventId", "s"), DBusArgument("data", "v"), DBusArgument("timestamp", "u")]
                ) { [unowned self] call in
                    let row = try row(call.arguments[0])
                    guard let name = call.arguments[1].string, Self.events.contains(name) else {
                        throw DBusMethodError.invalidArgs("Unknown event \(call.arguments[1].description)")
                    }
                    event(row.id, name)
                    return []
                },
                DBusMethod("EventGroup", in: [DBusArgument("events", "a(isvu)")], out: [DBusArgument("idErrors", "ai")]) {
                    [unowned self] call in
                    let events = call.arguments[0].array ?? []
                    guard events.count <= Self.maxArray else { throw DBusMethodError.invalidArgs("Too many events (\(events.count))") }
                    var valid: [(Int32, String)] = []
                    var errors: [DBusValue] = []
                    // Every event is checked before any runs: a bad name refuses the whole call.
                    for event in events {
                        guard let fields = event.fields, fields.count == 4, case .int32(let id) = fields[0], let name = fields[1].string
                        else { throw DBusMethodError.invalidArgs("Malformed event") }
                        guard Self.events.contains(name) else { throw DBusMethodError.invalidArgs("Unknown event \(fields[1].description)") }
                        if menu.row(id) == nil { errors.append(.int32(id)) } else { valid.append((id, name)) }
                    }
                    if valid.isEmpty && !events.isEmpty { throw DBusMethodError.invalidArgs("No such menu items") }
                    for (id, name) in valid { event(id, name) }
                    return [.array(.int32, errors)]
                },
                DBusMethod("AboutToShow", in: [DBusArgument("id", "i")], out: [DBusArgument("needUpdate", "b")]) { [unowned self] call in
                    let row = try row(call.arguments[0])
                    aboutToShow([row.id])
                    return [false]
                },
                DBusMethod(
                    "AboutToShowGroup", in: [DBusArgument("ids", "ai")],
                    out: [DBusArgument("updatesNeeded", "ai"), DBusArgument("idErrors", "ai")]
                ) { [unowned self] call in
                    let ids = try ids(call.arguments[0])
                    let known = ids.filter { menu.row($0) != nil }
                    let unknown = ids.filter { menu.row($0) == nil }
                    if known.isEmpty && !ids.isEmpty { throw DBusMethodError.invalidArgs("No such menu items") }
                    aboutToShow(known)
                    return [.array(.int32, []), .array(.int32, unknown.map { .int32($0) })]
                },
            ],
            properties: [
                DBusProperty("Version", "u", changeSignal: .const) { .uint32(3) },
                DBusProperty("TextDirection", "s", changeSignal: .const) { "ltr" },
                DBusProperty("Status", "s", changeSignal: .const) { "normal" },
                DBusProperty("IconThemePath", "as", changeSignal: .const) { .strings([]) },
            ],
            signals: [
                DBusSignal(
                    "ItemsPropertiesUpdated",
                    [DBusArgument("updatedProps", "a(ia{sv})"), DBusArgument("removedProps", "a(ias)")]),
                DBusSignal("LayoutUpdated", [DBusArgument("revision", "u"), DBusArgument("parent", "i")]),
                DBusSignal("ItemActivationRequested", [DBusArgument("id", "i"), DBusArgument("timestamp", "u")]),
            ])
    }
}
