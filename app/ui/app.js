// Pocket Voice UI: wires the buttons to the app's commands and renders the voice loop's events,
// which arrive over a Tauri channel as they happen (no polling).

import { Conversation } from "./conversation.js";
import { LatencyPanel } from "./latency.js";
import { SettingsDialog } from "./settings.js";

const { invoke, Channel } = window.__TAURI__.core;
const $ = (id) => document.getElementById(id);

const ui = {
  status: null,
  running: false,
  starting: false,
  pipelineState: "listening",
  interruptedUntil: 0,
  talkHeld: false,
  /** Devices reported lost and not back yet ("speaker", "microphone"). */
  lostDevices: new Set(),
};

const convo = new Conversation($("conversation"), $("empty-hint"));
const latency = new LatencyPanel({});
const settingsDialog = new SettingsDialog(saveSettings, () => call("pick_model_file"));

/** Calls a command; errors come back as `{ kind, message, missing }`. */
async function call(cmd, args) {
  try {
    return await invoke(cmd, args);
  } catch (e) {
    throw e && typeof e === "object" && e.message ? e : { kind: "internal", message: String(e) };
  }
}

function toast(message) {
  const t = document.createElement("div");
  t.className = "toast";
  t.textContent = message;
  $("toasts").append(t);
  setTimeout(() => t.remove(), 6000);
}

function showError(err) {
  if (err.kind === "models_missing") showMissing(err.missing);
  else toast(err.message);
}

/** The banner that says which model files are missing and how to fetch them. */
function showMissing(missing) {
  const banner = $("banner");
  if (!missing || !missing.length) {
    banner.hidden = true;
    return;
  }
  banner.className = "banner";
  const list = document.createElement("ul");
  for (const m of missing) {
    const li = document.createElement("li");
    li.textContent = `${m.id}: ${m.detail}`;
    list.append(li);
  }
  const how = document.createElement("div");
  const code = document.createElement("code");
  code.textContent = ui.status ? ui.status.fetchHint : "pocket assets fetch --set default";
  how.append("Fetch them with ", code, ui.status ? ` (they go to ${ui.status.modelHome}), then press Start.` : ", then press Start.");
  const title = document.createElement("b");
  title.textContent = "Model files are missing, so the assistant cannot start yet:";
  banner.replaceChildren(title, list, how);
  banner.hidden = false;
}

// ---- conversation state ------------------------------------------------------------------

const LABELS = {
  stopped: "Stopped",
  loading: "Loading models…",
  listening: "Listening",
  ready: "Hold to talk",
  hearing: "Hearing you",
  pending: "Still listening…",
  thinking: "Thinking",
  speaking: "Speaking",
  interrupted: "Interrupted",
};

function showState(name) {
  const s = $("state");
  s.className = `state state-${name === "ready" ? "listening" : name}`;
  $("state-label").textContent = LABELS[name] || name;
  document.body.dataset.state = name;
}

function refreshState() {
  if (ui.starting) return showState("loading");
  if (!ui.running) return showState("stopped");
  if (Date.now() < ui.interruptedUntil) return showState("interrupted");
  const st = ui.pipelineState;
  const ptt = ui.status && ui.status.settings.mode === "push_to_talk";
  if (st === "listening" && ptt && !ui.talkHeld) return showState("ready");
  showState(st);
}

function onPipeline(ev) {
  switch (ev.type) {
    case "state":
      ui.pipelineState = ev.state;
      refreshState();
      $("stop-btn").disabled = ev.state === "listening";
      break;
    case "speech_started":
      convo.speechStarted();
      if (ui.pipelineState === "listening") showState("hearing");
      break;
    case "still_listening":
      // The user paused mid-thought (the end-of-turn classifier said "not done").
      if (ui.pipelineState === "listening") showState("pending");
      break;
    case "partial_transcript":
      convo.partialTranscript(ev.text);
      break;
    case "final_transcript":
      convo.finalTranscript(ev.text, ev.turn);
      break;
    case "assistant_text":
      convo.assistantText(ev.turn, ev.text);
      break;
    case "audio_started":
      convo.audioStarted(ev.turn);
      break;
    case "audio_finished":
      convo.audioFinished(ev.turn);
      break;
    case "reply_resumed":
      // Only "mm-hm" (or a cough) over the reply: it goes on, nothing joins the conversation.
      convo.finalTranscript("", null);
      break;
    case "interrupted":
      convo.interrupted(ev.turn, ev.heard, ev.cause);
      ui.interruptedUntil = Date.now() + 1500;
      refreshState();
      setTimeout(refreshState, 1600);
      break;
    case "device_lost":
      ui.lostDevices.add(ev.device);
      $("banner").className = "banner error";
      $("banner").textContent = `The ${ev.device} stopped: ${ev.message}. It is opened again as soon as one is there; replies show as text meanwhile.`;
      $("banner").hidden = false;
      break;
    case "device_restored":
      ui.lostDevices.delete(ev.device);
      if (ui.lostDevices.size === 0 && $("banner").classList.contains("error")) {
        $("banner").hidden = true;
      }
      toast(`The ${ev.device} is back: ${ev.name}.`);
      break;
    case "error":
      toast(ev.message);
      break;
  }
}

function onEvent(ev) {
  switch (ev.kind) {
    case "pipeline":
      onPipeline(ev);
      break;
    case "spoken":
      convo.spoken(ev.turn, ev.text);
      break;
    case "latency":
      latency.update(ev);
      convo.latency(ev.turn, ev.first_audio_ms);
      break;
    case "input_clip":
      $("input-note").textContent = `Microphone: playing ${ev.name} (file input)`;
      $("input-note").hidden = false;
      break;
    case "session_ended":
      if (ui.running) sessionStopped(ev.reason);
      break;
  }
}

// ---- session -------------------------------------------------------------------------------

function setRunning(running) {
  ui.running = running;
  const b = $("session-btn");
  b.textContent = running ? "Stop" : "Start";
  b.classList.toggle("stop", running);
  for (const id of ["talk-btn", "say-input", "say-btn"]) $(id).disabled = !running;
  $("stop-btn").disabled = true;
  refreshState();
}

function showSessionInfo(info) {
  const box = $("session-info");
  if (!info) {
    box.replaceChildren();
    return;
  }
  const rows = [
    ["Model", info.model],
    ["Voice", info.voice],
    ["Microphone", info.input],
    ["Output", info.output],
    ["Echo cancelling", info.echoCancelling],
    ["Loaded in", `${info.loadMs} ms`],
  ];
  box.replaceChildren(
    ...rows.map(([k, v]) => {
      const d = document.createElement("div");
      const b = document.createElement("b");
      b.textContent = `${k}: `;
      d.append(b, v);
      return d;
    }),
  );
  for (const w of info.warnings) toast(w);
}

async function startSession() {
  if (ui.starting || ui.running) return;
  ui.starting = true;
  $("session-btn").disabled = true;
  $("banner").hidden = true;
  refreshState();
  const channel = new Channel();
  channel.onmessage = onEvent;
  try {
    const info = await call("start_session", { onEvent: channel });
    ui.starting = false;
    convo.system(`Session started: ${ui.status.settings.mode === "push_to_talk" ? "hold the talk button (or Space) to speak" : "just speak"}.`);
    setRunning(true);
    showSessionInfo(info);
  } catch (err) {
    ui.starting = false;
    setRunning(false);
    showError(err);
  } finally {
    $("session-btn").disabled = false;
  }
}

function sessionStopped(reason) {
  setRunning(false);
  if (reason) convo.system(reason);
}

async function stopSession() {
  try {
    await call("stop_session");
  } catch (err) {
    showError(err);
  }
  sessionStopped("Session stopped.");
}

// ---- controls ------------------------------------------------------------------------------

async function talk(pressed) {
  if (!ui.running || ui.talkHeld === pressed) return;
  ui.talkHeld = pressed;
  $("talk-btn").classList.toggle("held", pressed);
  refreshState();
  try {
    await call("push_to_talk", { pressed });
  } catch (err) {
    showError(err);
  }
}

async function setMode(mode) {
  try {
    await call("set_mode", { mode });
    await refresh();
  } catch (err) {
    showError(err);
  }
}

function showMode(mode) {
  $("mode-hands-free").setAttribute("aria-checked", String(mode === "hands_free"));
  $("mode-push-to-talk").setAttribute("aria-checked", String(mode === "push_to_talk"));
  $("talk-label").textContent = mode === "push_to_talk" ? "Hold to talk" : "Hold to force a turn";
}

async function saveSettings(values) {
  const saved = await call("save_settings", { settings: values });
  await refresh();
  showMissing(saved.missing);
  if (saved.restartNeeded) {
    convo.system("Settings saved; restarting the session to apply them.");
    await call("stop_session");
    setRunning(false);
    await startSession();
  }
}

async function refresh() {
  ui.status = await call("status");
  showMode(ui.status.settings.mode);
  refreshState();
  return ui.status;
}

function wire() {
  $("session-btn").addEventListener("click", () => (ui.running ? stopSession() : startSession()));
  $("stop-btn").addEventListener("click", () => call("stop_speaking").catch(showError));
  const tb = $("talk-btn");
  tb.addEventListener("pointerdown", (e) => {
    tb.setPointerCapture(e.pointerId);
    talk(true);
  });
  for (const ev of ["pointerup", "pointercancel"]) tb.addEventListener(ev, () => talk(false));
  const typing = () => document.activeElement && ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
  window.addEventListener("keydown", (e) => {
    if (e.code === "Space" && !e.repeat && !typing() && !$("settings").open) {
      e.preventDefault();
      talk(true);
    }
  });
  window.addEventListener("keyup", (e) => {
    if (e.code === "Space" && !typing()) talk(false);
  });
  $("say-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = $("say-input");
    const text = input.value.trim();
    if (!text) return;
    try {
      await call("say", { text });
      input.value = "";
    } catch (err) {
      showError(err);
    }
  });
  $("mode-hands-free").addEventListener("click", () => setMode("hands_free"));
  $("mode-push-to-talk").addEventListener("click", () => setMode("push_to_talk"));
  $("open-settings").addEventListener("click", async () => settingsDialog.open(await refresh()));
}

async function main() {
  wire();
  latency.reset();
  try {
    const status = await refresh();
    if (status.warning) toast(status.warning);
    showMissing(status.missing);
    if (status.fileInput.length) {
      $("input-note").textContent = `Microphone: file input (${status.fileInput.join(", ")})`;
      $("input-note").hidden = false;
    }
    if (status.running) {
      setRunning(true);
      showSessionInfo(status.session);
    } else if (status.autostart && !status.missing.length) {
      await startSession();
    }
  } catch (err) {
    showError(err);
  }
}

main();
