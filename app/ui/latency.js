// The latency panel: the last turn's figures and stage breakdown, and a small SVG chart of each
// turn's first-audio latency with the running P50/P90 over the session.

const STAGES = {
  endpoint_wait: ["End-of-speech wait", "#64748b"],
  asr: ["Speech recognition", "#22c55e"],
  llm_first_token: ["Model, first token", "#f59e0b"],
  segmenter: ["First phrase ready", "#a78bfa"],
  tts_first_chunk: ["Voice, first chunk", "#60a5fa"],
  to_output: ["To the speaker", "#f472b6"],
};

const SVG = "http://www.w3.org/2000/svg";
const fmt = (ms) => (ms == null ? "–" : String(Math.round(ms)));

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A round axis maximum at or above `v`. */
export function niceMax(v) {
  if (!(v > 0)) return 1000;
  const step = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= v) return m * step;
  return 10 * step;
}

export class LatencyPanel {
  constructor(ids) {
    this.$ = (id) => document.getElementById(ids[id] || id);
    this.history = []; // { turn, value, p50, p90 }
  }

  reset() {
    this.history = [];
    for (const id of ["lat-first", "lat-response", "p50", "p90"]) this.$(id).textContent = "–";
    this.$("turns").textContent = "0";
    this.$("stage-bar").replaceChildren();
    this.$("stage-list").replaceChildren();
    this.drawChart();
  }

  /** One `latency` summary from the app. */
  update(s) {
    this.$("lat-first").textContent = fmt(s.first_audio_ms);
    this.$("lat-response").textContent = fmt(s.response_ms);
    this.drawStages(s.stages, s.made_ahead);
    if (s.first_audio) {
      this.$("p50").textContent = `${fmt(s.first_audio.p50)} ms`;
      this.$("p90").textContent = `${fmt(s.first_audio.p90)} ms`;
      this.$("turns").textContent = String(s.first_audio.n);
    }
    if (s.first_audio_ms != null && s.first_audio) {
      this.history.push({ turn: s.turn, value: s.first_audio_ms, p50: s.first_audio.p50, p90: s.first_audio.p90 });
    }
    this.drawChart();
  }

  /** Stages of one turn; `madeAhead`: its reply was made during the end-of-speech wait, so the
   * model and voice stages came before the endpoint (negative) and are listed as such. */
  drawStages(stages, madeAhead = false) {
    const known = stages.filter((st) => st.ms != null && st.ms >= 0);
    const total = known.reduce((a, st) => a + st.ms, 0) || 1;
    const bar = this.$("stage-bar");
    const list = this.$("stage-list");
    bar.replaceChildren();
    list.replaceChildren();
    for (const st of stages) {
      const [label, colour] = STAGES[st.name] || [st.name, "#94a3b8"];
      if (st.ms != null && st.ms > 0) {
        const seg = document.createElement("span");
        seg.style.width = `${(100 * st.ms) / total}%`;
        seg.style.background = colour;
        seg.title = `${label}: ${fmt(st.ms)} ms`;
        bar.append(seg);
      }
      const li = document.createElement("li");
      const sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = colour;
      const name = document.createElement("span");
      name.textContent = label;
      const ms = document.createElement("span");
      ms.className = "ms";
      ms.textContent =
        st.ms == null ? "–" : madeAhead && st.ms < 0 ? `${fmt(-st.ms)} ms ahead` : `${fmt(st.ms)} ms`;
      li.append(sw, name, ms);
      list.append(li);
    }
  }

  drawChart() {
    const chart = this.$("chart");
    const W = 300, H = 150, L = 40, R = 8, T = 8, B = 18;
    chart.replaceChildren();
    const h = this.history;
    const top = niceMax(Math.max(0, ...h.map((p) => Math.max(p.value, p.p90))));
    const x = (i) => L + (h.length <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (h.length - 1));
    const y = (v) => T + (H - T - B) * (1 - v / top);
    for (let k = 0; k <= 4; k++) {
      const v = (top * k) / 4;
      chart.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      chart.append(svg("text", { class: "axis", x: L - 4, y: y(v) + 3, "text-anchor": "end" }, fmt(v)));
    }
    chart.append(svg("text", { class: "axis", x: W - R, y: H - 4, "text-anchor": "end" }, h.length ? `turn ${h.length}` : "no turns yet"));
    if (!h.length) return;
    const line = (key) => h.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { class: "p90", points: line("p90") }));
    chart.append(svg("polyline", { class: "p50", points: line("p50") }));
    h.forEach((p, i) => chart.append(svg("circle", { class: "pt", cx: x(i), cy: y(p.value), r: 3 })));
  }
}
