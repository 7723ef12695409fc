// The D-Bus client: the daemon's published state, kept in step with PropertiesChanged, and
// calls to the name's current owner. It talks to the daemon only through the D-Bus contract
// (dbus/README.md), asynchronously, and never starts it by being shown: the name is watched,
// calls go to its current owner with NO_AUTO_START, and only a call that asks to activate
// (a click on "Start work" while offline) may start it.
// Uses Gio and GLib, which the head of extension.js brings in.

const BIOMA_NAME = 'org.biomatimer.Timer1';
const BIOMA_PATH = '/org/biomatimer/Timer1';
const BIOMA_TIMER = 'org.biomatimer.Timer1';
const BIOMA_FOCUS = 'org.biomatimer.Focus1';
const BIOMA_TASKS = 'org.biomatimer.Tasks1';
const BIOMA_PROPERTIES = 'org.freedesktop.DBus.Properties';
/// How long a call may take before it counts as failed (the CLI's 25 s).
const BIOMA_CALL_TIMEOUT_MS = 25000;

/// The daemon's published state, kept in step with PropertiesChanged: the three interfaces'
/// properties, whether the name has an owner, and calls to that owner.
class BiomaClient {
    constructor(onChange) {
        this._onChange = onChange;
        this._bus = Gio.DBus.session;
        this._cancellable = new Gio.Cancellable();
        this._owner = null;
        this.state = {online: false, timer: {}, focus: {}, tasks: {}};
        // Any sender: the callback keeps only the current owner's signals.
        this._signalId = this._bus.signal_subscribe(null, BIOMA_PROPERTIES, 'PropertiesChanged', BIOMA_PATH,
            null, Gio.DBusSignalFlags.NONE, (_bus, sender, _path, _iface, _member, params) => {
                if (sender !== this._owner)
                    return;
                const [iface, changed] = params.recursiveUnpack();
                this._merge(iface, changed);
            });
        // Watching never starts the daemon (no AUTO_START flag).
        this._watchId = Gio.bus_watch_name_on_connection(this._bus, BIOMA_NAME, Gio.BusNameWatcherFlags.NONE,
            (_bus, _name, owner) => this._appeared(owner),
            () => this._vanished());
    }

    get online() {
        return this.state.online;
    }

    _appeared(owner) {
        this._owner = owner;
        for (const iface of [BIOMA_TIMER, BIOMA_FOCUS, BIOMA_TASKS]) {
            this.call(BIOMA_PROPERTIES, 'GetAll', new GLib.Variant('(s)', [iface]), ([all]) => {
                if (this._owner !== owner)
                    return;
                const key = this._key(iface);
                this.state[key] = {};
                this._merge(iface, all, true);
            }, () => {});
        }
    }

    _vanished() {
        this._owner = null;
        this.state = {online: false, timer: {}, focus: {}, tasks: {}};
        this._onChange();
    }

    _key(iface) {
        return {[BIOMA_TIMER]: 'timer', [BIOMA_FOCUS]: 'focus', [BIOMA_TASKS]: 'tasks'}[iface];
    }

    _merge(iface, changed, whole = false) {
        const key = this._key(iface);
        if (!key)
            return;
        Object.assign(this.state[key], changed);
        // Online once the work timer's properties are known.
        if (key === 'timer' && whole)
            this.state.online = true;
        if (this.state.online)
            this._onChange();
    }

    /// One asynchronous call to the daemon's current owner; `done(values)` with the reply's
    /// values unpacked, `failed(message)` with the daemon's message. `activate` lets the bus
    /// start the daemon (only for a click that asks for it).
    call(iface, method, params, done, failed, activate = false) {
        const destination = this._owner ?? (activate ? BIOMA_NAME : null);
        if (!destination) {
            failed('biomatimer is not running.');
            return;
        }
        this._bus.call(destination, BIOMA_PATH, iface, method, params, null,
            activate ? Gio.DBusCallFlags.NONE : Gio.DBusCallFlags.NO_AUTO_START,
            BIOMA_CALL_TIMEOUT_MS, this._cancellable, (bus, result) => {
                let reply;
                try {
                    reply = bus.call_finish(result);
                } catch (e) {
                    if (!e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED)) {
                        if (e instanceof GLib.Error && Gio.DBusError.is_remote_error(e))
                            Gio.DBusError.strip_remote_error(e);
                        failed(e.message);
                    }
                    return;
                }
                done(reply.recursiveUnpack());
            });
    }

    destroy() {
        this._cancellable.cancel();
        Gio.bus_unwatch_name(this._watchId);
        this._bus.signal_unsubscribe(this._signalId);
        this._onChange = () => {};
    }
}
