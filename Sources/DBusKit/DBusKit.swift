// DBusKit: a Swift layer over libdbus-1.
