// The panel indicator: the island line with a dot in the running project's colour, and a
// menu with seed 000's main screen (work, projects, the focus timer, due tasks), on the
// daemon's state as BiomaClient (client.js) keeps it.
// Uses Clutter, GLib, GObject, St, Main, PanelMenu and PopupMenu, which the head of
// extension.js brings in (legacy imports for GNOME 43–44, ES modules from 45).

/// A round mark: filled in `color`, or hollow.
function biomaDot(styleClass = 'biomatimer-dot') {
    return new St.Widget({style_class: styleClass, y_align: Clutter.ActorAlign.CENTER});
}

function biomaPaintDot(dot, color, hollow) {
    dot.set_style(hollow ? null : `background-color: ${color}; border-color: ${color};`);
    if (hollow)
        dot.add_style_class_name('biomatimer-hollow');
    else
        dot.remove_style_class_name('biomatimer-hollow');
}

const BiomaIndicator = GObject.registerClass({GTypeName: 'BiomatimerIndicator'},
class BiomaIndicator extends PanelMenu.Button {
    _init() {
        super._init(0.0, 'biomatimer', false);
        const box = new St.BoxLayout({style_class: 'panel-status-menu-box biomatimer-panel'});
        this._dot = biomaDot();
        this._label = new St.Label({y_align: Clutter.ActorAlign.CENTER, style_class: 'biomatimer-line'});
        box.add_child(this._dot);
        box.add_child(this._label);
        this.add_child(box);
        this._tickId = 0;
        this._scrolled = 0;
        this._projects = [];
        this._presets = [];
        this._dueTasks = [];
        this._client = new BiomaClient(() => this._changed());
        this.menu.connect('open-state-changed', (_menu, open) => {
            if (open)
                this._fetchLists();
            this._render();
            return Clutter.EVENT_PROPAGATE;
        });
        this._changed();
    }

    // Left and right clicks open the menu (the button's own handling); the middle button
    // pauses or resumes the focus timer; scrolling moves through the projects.
    vfunc_event(event) {
        const type = event.type();
        if (type === Clutter.EventType.BUTTON_PRESS && event.get_button() === Clutter.BUTTON_MIDDLE) {
            this._run(BIOMA_FOCUS, 'TogglePause');
            return Clutter.EVENT_STOP;
        }
        if (type === Clutter.EventType.SCROLL) {
            this._scroll(event);
            return Clutter.EVENT_STOP;
        }
        return super.vfunc_event(event);
    }

    _scroll(event) {
        let step = 0;
        switch (event.get_scroll_direction()) {
        case Clutter.ScrollDirection.UP:
            step = -1;
            break;
        case Clutter.ScrollDirection.DOWN:
            step = 1;
            break;
        case Clutter.ScrollDirection.SMOOTH: {
            // A touchpad: one project per whole step scrolled.
            const [, dy] = event.get_scroll_delta();
            this._scrolled += dy;
            if (Math.abs(this._scrolled) >= 1) {
                step = Math.sign(this._scrolled);
                this._scrolled = 0;
            }
            break;
        }
        }
        if (step !== 0)
            this._run(BIOMA_TIMER, 'CycleProject', new GLib.Variant('(i)', [step]));
    }

    /// One call for one click; a refusal shows the daemon's message.
    _run(iface, method, params = null, activate = false) {
        this._client.call(iface, method, params, () => {}, message => this._refused(message), activate);
    }

    _refused(message) {
        Main.notify('biomatimer', message);
    }

    /// The lists the menu shows that are not properties: each project's time today, the
    /// focus presets and the due tasks. Asked for when the menu opens and after a change
    /// while it is open.
    _fetchLists() {
        if (!this._client.online)
            return;
        const ignore = () => {};
        this._client.call(BIOMA_TIMER, 'ListProjects', null, ([rows]) => {
            this._projects = rows;
            this._rebuildMenu();
        }, ignore);
        this._client.call(BIOMA_FOCUS, 'ListPresets', null, ([rows]) => {
            this._presets = rows;
            this._rebuildMenu();
        }, ignore);
        this._client.call(BIOMA_TASKS, 'ListTasks', new GLib.Variant('(b)', [false]), ([rows]) => {
            const now = GLib.get_real_time();
            this._dueTasks = rows.filter(task => task.Due > 0 && task.Due <= now && !task.Done);
            this._rebuildMenu();
        }, ignore);
    }

    // The menu is kept built (an empty menu does not open); its lists are asked for again
    // while it is open.
    _changed() {
        this._render();
        this._rebuildMenu();
        if (this.menu.isOpen)
            this._fetchLists();
    }

    /// The panel at this instant, then a wake-up when its next shown second begins (none
    /// while nothing moves).
    _render() {
        const now = GLib.get_real_time();
        const state = this._client.state;
        const display = BiomaIsland.display(state, now);
        let line = BiomaIsland.line(display, BiomaIsland.isolated);
        // The dot stands for the work mark that leads the line.
        if (line.startsWith(`${display.mark} `))
            line = line.slice(display.mark.length + 1);
        else if (display.phase === 'offline')
            line = 'offline';
        this._label.set_text(line);
        if (display.phase === 'running')
            biomaPaintDot(this._dot, display.color ?? '#ffffff', false);
        else
            biomaPaintDot(this._dot, null, true);
        if (display.phase === 'offline')
            this.add_style_class_name('biomatimer-offline');
        else
            this.remove_style_class_name('biomatimer-offline');
        if (this.menu.isOpen)
            this._updateMenuTimes(display);
        this._schedule(now);
    }

    _schedule(now) {
        if (this._tickId) {
            GLib.source_remove(this._tickId);
            this._tickId = 0;
        }
        // The project times tick only in the open menu.
        const next = BiomaIsland.nextChange(this._client.state, now, this.menu.isOpen);
        if (next === null)
            return;
        const delay = Math.max(1, Math.ceil((next - now) / 1000));
        this._tickId = GLib.timeout_add(GLib.PRIORITY_DEFAULT, delay, () => {
            this._tickId = 0;
            this._render();
            return GLib.SOURCE_REMOVE;
        });
    }

    _item(text, action, styleClass = null) {
        const item = new PopupMenu.PopupMenuItem(text);
        if (styleClass)
            item.add_style_class_name(styleClass);
        if (action)
            item.connect('activate', action);
        else
            item.setSensitive(false);
        this.menu.addMenuItem(item);
        return item;
    }

    _rebuildMenu() {
        this.menu.removeAll();
        this._timeLabels = [];
        const state = this._client.state;
        const now = GLib.get_real_time();
        const display = BiomaIsland.display(state, now);
        if (!display.online) {
            this._item('biomatimer is not running');
            this._item('Start work', () => this._run(BIOMA_TIMER, 'Start', null, true));
            return;
        }

        // Work: Start/Stop with the session and today's total.
        const work = new PopupMenu.PopupMenuItem(display.running ? 'Stop work' : 'Start work');
        work.add_style_class_name('biomatimer-work');
        const workTimes = new St.Label({x_expand: true, x_align: Clutter.ActorAlign.END, style_class: 'biomatimer-times'});
        work.add_child(workTimes);
        work.connect('activate', () => this._run(BIOMA_TIMER, 'Toggle'));
        this.menu.addMenuItem(work);
        this._timeLabels.push(d => workTimes.set_text(`${d.session} · today ${d.daily}`));

        // Projects: a dot in the project's colour, the name, its time today, a toggle.
        const projects = Array.isArray(state.timer.Projects) ? state.timer.Projects : [];
        if (projects.length > 0)
            this.menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem('Projects'));
        for (const [id, name, color] of projects) {
            const running = id === state.timer.ActiveProject;
            const item = new PopupMenu.PopupBaseMenuItem({style_class: 'biomatimer-project'});
            const dot = biomaDot();
            biomaPaintDot(dot, BiomaIsland.color(color) ?? '#007aff', false);
            item.add_child(dot);
            const shown = BiomaIsland.isolated(BiomaIsland.truncate(BiomaIsland.singleLine(name || id), 40));
            item.add_child(new St.Label({text: shown, x_expand: true, y_align: Clutter.ActorAlign.CENTER}));
            const time = new St.Label({style_class: 'biomatimer-times', y_align: Clutter.ActorAlign.CENTER});
            item.add_child(time);
            const listed = this._projects.find(p => p.Id === id);
            if (running)
                this._timeLabels.push(d => time.set_text(d.projectDaily));
            else
                time.set_text(BiomaIsland.hms(listed ? listed.DailyTotal : 0));
            const toggle = new PopupMenu.Switch(running);
            item.add_child(toggle);
            item.connect('activate', () => this._run(BIOMA_TIMER, 'ToggleProject', new GLib.Variant('(s)', [id])));
            this.menu.addMenuItem(item);
        }

        // The focus timer: what it is doing and what can be done to it.
        this.menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem('Focus'));
        const focus = display.focus;
        if (focus.active) {
            const sentence = this._item(focus.sentence, null, 'biomatimer-focus');
            this._timeLabels.push(d => sentence.label.set_text(d.focus.sentence));
        }
        const act = (text, method, params = null) => this._item(text, () => this._run(BIOMA_FOCUS, method, params));
        const oneMinute = new GLib.Variant('(x)', [60000000]);
        switch (focus.state) {
        case 'off':
            act('Start a pomodoro', 'StartPomodoro', new GLib.Variant('(a{sv})', [{}]));
            for (const preset of this._presets) {
                const name = BiomaIsland.truncate(BiomaIsland.singleLine(preset.Name ?? preset.Id), 40);
                act(`Start ${BiomaIsland.isolated(name)}`, 'StartPreset', new GLib.Variant('(s)', [preset.Id]));
            }
            break;
        case 'running':
            act('Pause', 'Pause');
            act('Skip', 'Skip');
            act('+1 min', 'Extend', oneMinute);
            act('Stop', 'StopFocus');
            break;
        case 'paused':
            act('Resume', 'Resume');
            act('Skip', 'Skip');
            act('Stop', 'StopFocus');
            break;
        case 'waiting':
            act('Start the next phase', 'Confirm');
            act('Skip', 'Skip');
            act('Stop', 'StopFocus');
            break;
        case 'done':
            act('+1 min', 'Extend', oneMinute);
            act('Stop', 'StopFocus');
            break;
        }

        // Due tasks, each with Done and Snooze.
        if (this._dueTasks.length > 0)
            this.menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem('Due'));
        for (const task of this._dueTasks) {
            const item = new PopupMenu.PopupBaseMenuItem({activate: false, can_focus: false});
            const title = BiomaIsland.isolated(BiomaIsland.truncate(BiomaIsland.singleLine(task.Title), 40));
            item.add_child(new St.Label({text: title, x_expand: true, y_align: Clutter.ActorAlign.CENTER}));
            const button = (text, method, params) => {
                const b = new St.Button({label: text, style_class: 'button biomatimer-task-button', can_focus: true});
                b.connect('clicked', () => {
                    this.menu.close();
                    this._run(BIOMA_TASKS, method, params);
                });
                item.add_child(b);
            };
            button('Done', 'CompleteTask', new GLib.Variant('(s)', [task.Id]));
            button('Snooze', 'SnoozeTask', new GLib.Variant('(sx)', [task.Id, 0]));
            this.menu.addMenuItem(item);
        }
        this._updateMenuTimes(display);
    }

    _updateMenuTimes(display) {
        for (const update of this._timeLabels ?? [])
            update(display);
    }

    destroy() {
        if (this._tickId) {
            GLib.source_remove(this._tickId);
            this._tickId = 0;
        }
        this._client.destroy();
        super.destroy();
    }
});

/// The indicator put in the top bar: what both forms' extension classes do on enable().
function biomaAddIndicator() {
    const indicator = new BiomaIndicator();
    Main.panel.addToStatusArea('biomatimer', indicator);
    return indicator;
}
