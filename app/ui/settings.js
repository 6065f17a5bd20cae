// The settings dialog: model, voice, end-of-speech silence, barge-in sensitivity and talk mode.
// Saving goes through the app (validated there, stored as JSON in the app config folder).

const $ = (id) => document.getElementById(id);

export class SettingsDialog {
  /**
   * `save(settings)` returns the app's answer or throws its error; `pick()` opens the native
   * file picker and returns the chosen GGUF path (null when cancelled).
   */
  constructor(save, pick) {
    this.save = save;
    this.pick = pick;
    this.dialog = $("settings");
    $("settings-cancel").addEventListener("click", () => this.dialog.close());
    $("set-silence").addEventListener("input", () => this.showValues());
    $("set-barge").addEventListener("input", () => this.showValues());
    $("set-model-browse").addEventListener("click", () => this.browse());
    $("settings-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
  }

  open(status) {
    const s = status.settings;
    const isPath = !status.models.some((m) => m.id === s.model);
    fill($("set-model"), status.models, isPath ? status.models[0].id : s.model);
    $("set-model-path").value = isPath ? s.model : "";
    fill($("set-voice"), status.voices, s.voice);
    const silence = $("set-silence");
    [silence.min, silence.max] = status.endSilenceRange;
    silence.value = s.endSilenceMs;
    $("set-barge").value = s.bargeInSensitivity;
    for (const r of document.querySelectorAll('input[name="mode"]')) r.checked = r.value === s.mode;
    $("settings-error").hidden = true;
    this.showValues();
    this.dialog.showModal();
  }

  values() {
    const mode = document.querySelector('input[name="mode"]:checked');
    return {
      model: $("set-model-path").value.trim() || $("set-model").value,
      voice: $("set-voice").value,
      endSilenceMs: Number($("set-silence").value),
      bargeInSensitivity: Number($("set-barge").value),
      mode: mode ? mode.value : "hands_free",
    };
  }

  showValues() {
    $("set-silence-out").textContent = `${$("set-silence").value} ms`;
    const b = Number($("set-barge").value);
    const needMs = 600 - Math.round((b * 480) / 100);
    $("set-barge-out").textContent = `${b} (${needMs} ms of speech)`;
  }

  async browse() {
    try {
      const path = await this.pick();
      if (path) $("set-model-path").value = path;
    } catch (err) {
      this.showError(err);
    }
  }

  async submit() {
    try {
      await this.save(this.values());
      this.dialog.close();
    } catch (err) {
      this.showError(err);
    }
  }

  showError(err) {
    const e = $("settings-error");
    e.textContent = err && err.message ? err.message : String(err);
    e.hidden = false;
  }
}

function fill(select, choices, value) {
  select.replaceChildren(
    ...choices.map((c) => {
      const o = document.createElement("option");
      o.value = c.id;
      o.textContent = c.label;
      o.selected = c.id === value;
      return o;
    }),
  );
}
