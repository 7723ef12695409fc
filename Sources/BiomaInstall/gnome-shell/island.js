// The island line, `● 0:05:30 (2:45:15) · Client A`, computed in the shell from the
// daemon's properties: the same line as `biomatimer status --format island` (the Swift
// renderer in Widgets/island; a test runs both on the same states and compares them).
// Pure: no imports, no shell, so gjs runs it alone. Part of extension.js (see README.md).

const BiomaIsland = (() => {
    const SECOND = 1000000;
    const GLYPHS = {
        runningProject: '●', running: '▶', paused: '‖', idle: '○', offline: '⊘',
        separator: ' · ', ellipsis: '…', tasksDue: '⚑',
    };
    const FOCUS_GLYPHS = {running: '◷', paused: '‖', waiting: '◌', done: '✓', separator: ' │ '};
    const PHASE_NAMES = {
        'work': 'Work', 'short-break': 'Short break', 'long-break': 'Long break',
        'countdown': 'Countdown', 'active': 'Active', 'rest': 'Rest',
    };
    const KIND_NAMES = {pomodoro: 'Pomodoro', countdown: 'Countdown', intervals: 'Intervals'};
    const FOCUS_STATES = ['off', 'running', 'paused', 'waiting', 'done'];
    /// Columns a project name or label gets before it is cut with `…`.
    const MAX_NAME_WIDTH = 24;

    const two = value => (value < 10 ? `0${value}` : `${value}`);
    const wholeSeconds = micros => (micros <= 0 ? 0 : Math.floor(micros / SECOND));
    /// `H:MM:SS`, hours unbounded.
    const hms = micros => {
        const s = wholeSeconds(micros);
        return `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
    };
    /// `12:34` under an hour, `1:02:03` from an hour.
    const clock = seconds => {
        seconds = Math.max(0, seconds);
        return seconds >= 3600 ? hms(seconds * SECOND) : `${Math.floor(seconds / 60)}:${two(seconds % 60)}`;
    };
    /// `8:00`: hours and minutes, rounded down.
    const hoursMinutes = micros => {
        const minutes = Math.floor(Math.abs(micros) / (60 * SECOND));
        return `${Math.floor(minutes / 60)}:${two(minutes % 60)}`;
    };

    /// Line breaks and other control characters show as spaces: a line stays one line.
    const singleLine = text => {
        let out = '';
        for (const ch of String(text)) {
            const v = ch.codePointAt(0);
            out += v < 0x20 || (v >= 0x7f && v <= 0x9f) || v === 0x2028 || v === 0x2029 ? ' ' : ch;
        }
        return out;
    };

    // Widths in terminal columns, per grapheme cluster, as Sources/BiomaText/DisplayWidth.swift
    // counts them. gjs has no Intl.Segmenter: a cluster here is a scalar with the marks,
    // joiners, variation selectors and emoji modifiers that follow it, and flags in pairs.
    const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
    const EXTENDS = /^[\p{M}\u200d\u{1F3FB}-\u{1F3FF}\u{E0020}-\u{E007F}]$/u;
    const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;
    const REGIONAL = /^[\u{1F1E6}-\u{1F1FF}]$/u;
    const WIDE = [
        [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff],
        [0xa000, 0xa4cf], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60],
        [0xffe0, 0xffe6], [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x2fffd], [0x30000, 0x3fffd],
    ];

    const clusters = text => {
        const result = [];
        let joined = false;
        for (const ch of text) {
            const last = result.length - 1;
            const pairsFlag = REGIONAL.test(ch) && last >= 0 && result[last].length === 2 &&
                REGIONAL.test(result[last]);
            if (last >= 0 && (joined || EXTENDS.test(ch) || pairsFlag))
                result[last] += ch;
            else
                result.push(ch);
            joined = ch === '\u200d';
        }
        return result;
    };

    const clusterWidth = cluster => {
        const scalars = Array.from(cluster);
        if (scalars.length === 0 || scalars.every(s => ZERO_WIDTH.test(s)))
            return 0;
        const first = scalars[0].codePointAt(0);
        if (WIDE.some(([low, high]) => first >= low && first <= high) || EMOJI_PRESENTATION.test(scalars[0]))
            return 2;
        return 1;
    };

    const displayWidth = text => clusters(text).reduce((sum, c) => sum + clusterWidth(c), 0);

    /// `text` if it fits in `maxWidth` columns, else its longest prefix that fits with `…`,
    /// trailing white space dropped.
    const truncate = (text, maxWidth, ellipsis = GLYPHS.ellipsis) => {
        if (displayWidth(text) <= maxWidth)
            return text;
        const room = maxWidth - displayWidth(ellipsis);
        if (room <= 0)
            return Array.from(ellipsis).slice(0, Math.max(0, maxWidth)).join('');
        let kept = '';
        let used = 0;
        for (const cluster of clusters(text)) {
            const width = clusterWidth(cluster);
            if (used + width > room)
                break;
            kept += cluster;
            used += width;
        }
        return kept.replace(/\s+$/u, '') + ellipsis;
    };

    /// Right-to-left letters (Hebrew, Arabic and their neighbours), as the tray finds them.
    const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
    /// A name isolated (FSI … PDI) when it holds right-to-left letters, so the times beside it
    /// stay in place.
    const isolated = text => (RIGHT_TO_LEFT.test(text) ? `\u2068${text}\u2069` : text);

    /// `#rrggbb` lower-cased, or null when `text` is not `#RRGGBB`.
    const color = text => (/^#[0-9A-Fa-f]{6}$/.test(text) ? text.toLowerCase() : null);

    const num = v => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    const str = v => (typeof v === 'string' ? v : '');

    /// What the panel and the menu show at `now` (µs): the daemon's three property sets
    /// (`timer`, `focus`, `tasks`, as unpacked from D-Bus) or offline.
    const display = (state, now) => {
        const t = state.timer || {};
        const online = Boolean(state.online);
        const running = online && Boolean(t.Running);
        const hasProject = online && str(t.ActiveProject) !== '';
        const elapsed = Math.max(0, now - num(t.UpdatedAt));
        const up = (value, moving) => num(value) + (moving ? elapsed : 0);
        const session = up(t.SessionTime, running);
        const daily = up(t.DailyTotal, running);
        const projectDaily = up(t.ProjectDailyTotal, hasProject);
        const projectSession = up(t.ProjectSessionTime, hasProject);
        let phase = 'offline';
        if (online)
            phase = running ? 'running' : num(t.SessionTime) >= SECOND ? 'paused' : 'idle';
        const mark = {
            running: hasProject ? GLYPHS.runningProject : GLYPHS.running,
            paused: GLYPHS.paused, idle: GLYPHS.idle, offline: GLYPHS.offline,
        }[phase];
        const fullName = hasProject ? singleLine(str(t.ActiveProjectName) || str(t.ActiveProject)) : '';
        const target = online ? num(t.DailyTarget) : 0;
        const due = online ? num((state.tasks || {}).DueTasks) : 0;
        return {
            online, running, hasProject, phase, mark,
            session: hms(session), daily: hms(daily),
            projectSession: hms(projectSession), projectDaily: hms(projectDaily),
            projectFullName: fullName,
            projectName: truncate(fullName, MAX_NAME_WIDTH),
            projectId: hasProject ? str(t.ActiveProject) : '',
            color: hasProject ? color(str(t.ActiveProjectColor)) : null,
            target: target > 0 ? hoursMinutes(target) : '',
            targetWorked: target > 0 ? hoursMinutes(daily) : '',
            dueTasks: due,
            dueMark: due > 0 ? `${GLYPHS.tasksDue}${due}` : '',
            focus: focusDisplay(state, now, running),
        };
    };

    /// The focus timer as the bars show it; `active` false when there is none.
    const focusDisplay = (state, now, workRuns) => {
        const f = state.focus || {};
        const published = FOCUS_STATES.includes(f.State) ? f.State : 'off';
        const runState = state.online ? published : 'off';
        if (runState === 'off')
            return {active: false, state: 'off', leads: false, segment: '', sentence: ''};
        const kind = singleLine(str(f.Kind));
        const phase = singleLine(str(f.Phase));
        const phaseName = PHASE_NAMES[phase] ?? phase;
        const kindName = KIND_NAMES[kind] ?? kind;
        const fullLabel = singleLine(str(f.Label));
        const label = truncate(fullLabel, MAX_NAME_WIDTH);
        let left;
        if (runState === 'running') {
            const ends = num(f.PhaseEndsAt);
            const atUpdate = ends > 0 ? Math.max(0, ends - num(f.UpdatedAt)) : Math.max(0, num(f.Remaining));
            left = Math.max(0, atUpdate - Math.max(0, now - num(f.UpdatedAt)));
        } else {
            left = Math.max(0, num(f.Remaining));
        }
        const seconds = left <= 0 ? 0 : Math.floor((left - 1) / SECOND) + 1;
        const round = kind !== 'countdown' && num(f.Round) > 0
            ? (num(f.Rounds) > 0 ? `${f.Round}/${f.Rounds}` : `${f.Round}`) : '';
        const phaseAndRound = round === '' ? phaseName : `${phaseName} ${round}`;
        const mark = FOCUS_GLYPHS[runState];
        const labelPart = label === '' ? '' : GLYPHS.separator + label;
        const fullLabelPart = fullLabel === '' ? '' : GLYPHS.separator + fullLabel;
        const remaining = clock(seconds);
        const title = label === '' ? kindName : label;
        const segment = {
            running: `${mark} ${remaining} ${phaseAndRound}${labelPart}`,
            paused: `${mark} ${remaining} ${phaseAndRound}${labelPart}`,
            waiting: `${mark} Next: ${phaseAndRound}, waiting${labelPart}`,
            done: `${mark} ${title} done`,
        }[runState];
        const sentence = {
            running: `Focus: ${phaseAndRound}, ${remaining} left${fullLabelPart}`,
            paused: `Focus paused: ${phaseAndRound}, ${remaining} left${fullLabelPart}`,
            waiting: `Focus: next ${phaseAndRound}, waiting to start${fullLabelPart}`,
            done: `Focus: ${fullLabel === '' ? kindName : fullLabel} done`,
        }[runState];
        return {
            active: true, state: runState, leads: !(runState === 'paused' && workRuns),
            segment, sentence, remaining, seconds,
        };
    };

    /// The work part: its mark, `times` and the running project's name.
    const work = (d, times, name) => {
        let line = `${d.mark} ${times}`;
        if (d.hasProject)
            line += GLYPHS.separator + name(d.projectName);
        return line;
    };

    /// The island line; `name` may isolate a right-to-left name for the panel.
    const line = (d, name = text => text) => {
        if (d.phase === 'offline')
            return `${d.mark} offline`;
        const workTimes = d.target === '' ? `${d.session} (${d.daily})` : `${d.session} (${d.targetWorked}/${d.target})`;
        let text;
        if (!d.focus.active) {
            text = work(d, workTimes, name);
        } else if (d.focus.leads) {
            text = d.focus.segment;
            if (d.phase !== 'idle' || d.hasProject)
                text += FOCUS_GLYPHS.separator + work(d, d.session, name);
        } else {
            text = work(d, workTimes, name) + FOCUS_GLYPHS.separator + d.focus.segment;
        }
        if (d.dueMark !== '')
            text += ` ${d.dueMark}`;
        return text;
    };

    /// The first instant after `now` (µs) at which a shown second changes — the line's work
    /// and focus times, and with `projectTimes` the menu's project times too — or null when
    /// nothing moves: then only a PropertiesChanged changes them. Widgets/Common/Redraw.swift's
    /// `nextRedraw` showing `.line`, or `.all`.
    const nextChange = (state, now, projectTimes = false) => {
        if (!state.online)
            return null;
        const t = state.timer || {};
        const f = state.focus || {};
        const elapsed = Math.max(0, now - num(t.UpdatedAt));
        const instants = [];
        // A value reaches `target` at its instant plus the distance from its published value.
        const countingUp = value => {
            const current = num(value) + elapsed;
            const target = current < 0 ? SECOND : (Math.floor(current / SECOND) + 1) * SECOND;
            instants.push(num(t.UpdatedAt) + (target - num(value)));
        };
        if (t.Running) {
            countingUp(t.SessionTime);
            countingUp(t.DailyTotal);
        }
        if (projectTimes && str(t.ActiveProject) !== '') {
            countingUp(t.ProjectSessionTime);
            countingUp(t.ProjectDailyTotal);
        }
        if (f.State === 'running') {
            const at = num(f.UpdatedAt);
            const ends = num(f.PhaseEndsAt);
            const value = ends > 0 ? Math.max(0, ends - at) : Math.max(0, num(f.Remaining));
            const current = Math.max(0, value - Math.max(0, now - at));
            // The seconds begun change when the time left reaches the whole second below.
            if (current > 0)
                instants.push(at + (value - Math.floor((current - 1) / SECOND) * SECOND));
        }
        return instants.length === 0 ? null : Math.max(now + 1, Math.min(...instants));
    };

    return {display, line, nextChange, singleLine, truncate, isolated, color, hms, clock, hoursMinutes, MAX_NAME_WIDTH};
})();
