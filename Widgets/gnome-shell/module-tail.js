
export default class BiomatimerExtension extends Extension {
    enable() {
        this._indicator = new BiomaIndicator();
        Main.panel.addToStatusArea('biomatimer', this._indicator);
    }

    disable() {
        this._indicator?.destroy();
        this._indicator = null;
    }
}
