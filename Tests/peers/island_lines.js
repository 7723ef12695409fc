// Run by gjs after Sources/BiomaInstall/gnome-shell/island.js (the test joins the two): for each case in
// the JSON file ARGV[0], `{state, now}`, prints one JSON line `{"line": …, "next": …,
// "nextAll": …}`: the extension's island line and its next redraw instants (null when nothing
// moves), for the line alone and with the open menu's project times.
const [, bytes] = imports.gi.GLib.file_get_contents(ARGV[0]);
for (const c of JSON.parse(new TextDecoder().decode(bytes))) {
    const line = BiomaIsland.line(BiomaIsland.display(c.state, c.now));
    const next = BiomaIsland.nextChange(c.state, c.now);
    print(JSON.stringify({line, next, nextAll: BiomaIsland.nextChange(c.state, c.now, true)}));
}
