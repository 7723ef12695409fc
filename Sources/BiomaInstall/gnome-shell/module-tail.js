
export default class BiomatimerExtension extends Extension {
    enable() {
        this._indicator = biomaAddIndicator();
    }

    disable() {
        this._indicator?.destroy();
        this._indicator = null;
    }
}
