
class BiomatimerExtension {
    enable() {
        this._indicator = biomaAddIndicator();
    }

    disable() {
        this._indicator?.destroy();
        this._indicator = null;
    }
}

function init() {
    return new BiomatimerExtension();
}
