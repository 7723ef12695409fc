// biomatimer's GNOME Shell extension, GNOME 43–44 (legacy imports). extension.js is
// this head, island.js, client.js, indicator.js and legacy-tail.js, joined by
// `biomatimer install`.
/* exported init */

const {Clutter, Gio, GLib, GObject, St} = imports.gi;
const Main = imports.ui.main;
const PanelMenu = imports.ui.panelMenu;
const PopupMenu = imports.ui.popupMenu;

