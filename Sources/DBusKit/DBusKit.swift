// DBusKit: a Swift layer over libdbus-1. The value model, validation, messages and the
// blocking client live in DBusCore (no Foundation, so a short-lived command starts fast);
// this module adds the event-loop `Bus` and exported objects, and re-exports DBusCore.
@_exported import DBusCore
