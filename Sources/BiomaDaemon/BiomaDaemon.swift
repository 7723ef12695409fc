import DBusKit
