//! What the UI receives over its `tauri::ipc::Channel`: the voice loop's events as they happen,
//! plus what the app adds — how much of the reply has been spoken, the running latency summary,
//! and session and input-file notices.

use pocket_pipeline::metrics::Percentiles;
use pocket_pipeline::{Event, PipelineHandle, Stamped, State, TurnId, TurnMetrics};
use serde::Serialize;

/// One message to the UI.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UiEvent {
    /// A voice-loop event, as the pipeline emitted it (`type` says which).
    Pipeline(Stamped),
    /// The part of `turn`'s reply the user has heard so far.
    Spoken { turn: TurnId, text: String },
    /// A turn's latency with the running percentiles over the session.
    Latency(LatencySummary),
    /// A clip of the file input started playing as the microphone.
    InputClip { name: String },
    /// The session ended (stop pressed, or the loop stopped); `reason` is for the user.
    SessionEnded { reason: String },
}

/// One stage of a turn's latency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageMs {
    pub name: &'static str,
    pub ms: Option<f64>,
}

/// A turn's latency and the session so far.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencySummary {
    pub turn: TurnId,
    /// `first_audio - speech_end`: what the user felt.
    pub first_audio_ms: Option<f64>,
    /// `first_audio - eou`: what the engines cost.
    pub response_ms: Option<f64>,
    /// Stage by stage (endpoint wait, ASR, LLM first token, segmenter, TTS first chunk, output).
    pub stages: Vec<StageMs>,
    /// Running P50/P90 of first-audio latency over the session's turns.
    pub first_audio: Option<Percentiles>,
    /// Running P50/P90 of response latency.
    pub response: Option<Percentiles>,
    /// The reply was made ahead, during the end-of-speech wait: its model and voice stages
    /// came before the endpoint (negative here).
    pub made_ahead: bool,
}

/// Turns pipeline events into UI events: adds the latency summary after each latency event and
/// spoken-so-far updates while the assistant speaks.
pub struct Translator {
    speaking: bool,
    last_spoken: Option<(TurnId, String)>,
    /// First-audio and response latencies of the session's turns so far.
    first_audio: Vec<f64>,
    response: Vec<f64>,
}

impl Default for Translator {
    fn default() -> Self {
        Self::new()
    }
}

impl Translator {
    pub fn new() -> Self {
        Self {
            speaking: false,
            last_spoken: None,
            first_audio: Vec::new(),
            response: Vec::new(),
        }
    }

    /// Whether the assistant is speaking (spoken-so-far updates are due).
    pub fn speaking(&self) -> bool {
        self.speaking
    }

    /// A turn's latency summary; the running percentiles include it.
    fn summary(&mut self, turn: TurnId, metrics: &TurnMetrics) -> LatencySummary {
        let first_audio_ms = metrics.first_audio_latency();
        let response_ms = metrics.response_latency();
        self.first_audio.extend(first_audio_ms);
        self.response.extend(response_ms);
        LatencySummary {
            turn,
            first_audio_ms,
            response_ms,
            stages: metrics
                .stages()
                .into_iter()
                .map(|(name, ms)| StageMs { name, ms })
                .collect(),
            first_audio: Percentiles::of(&self.first_audio),
            response: Percentiles::of(&self.response),
            made_ahead: metrics.speculative,
        }
    }

    /// The UI events for one pipeline event.
    pub fn on_event(&mut self, ev: Stamped) -> Vec<UiEvent> {
        let mut out = Vec::with_capacity(2);
        let summary = match &ev.event {
            Event::State { state } => {
                self.speaking = *state == State::Speaking;
                None
            }
            Event::Latency { turn, metrics } => Some(self.summary(*turn, metrics)),
            _ => None,
        };
        out.push(UiEvent::Pipeline(ev));
        if let Some(s) = summary {
            out.push(UiEvent::Latency(s));
        }
        out
    }

    /// A spoken-so-far update if what was heard changed since the last one.
    pub fn on_spoken(&mut self, spoken: Option<(TurnId, String)>) -> Option<UiEvent> {
        let (turn, text) = spoken?;
        if text.is_empty() || self.last_spoken.as_ref() == Some(&(turn, text.clone())) {
            return None;
        }
        self.last_spoken = Some((turn, text.clone()));
        Some(UiEvent::Spoken { turn, text })
    }
}

/// Forwards `handle`'s events to `send` until it returns `false` (the UI is gone) or the loop
/// stops. While the assistant speaks, checks how far the reply has been heard every 60 ms.
pub fn forward(handle: &PipelineHandle, mut send: impl FnMut(UiEvent) -> bool) {
    use crossbeam_channel::RecvTimeoutError;
    use std::time::Duration;
    let events = handle.subscribe();
    let mut tr = Translator::new();
    loop {
        let wait = if tr.speaking() { 60 } else { 250 };
        match events.recv_timeout(Duration::from_millis(wait)) {
            Ok(ev) => {
                for ui in tr.on_event(ev) {
                    if !send(ui) {
                        return;
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if !handle.is_running() {
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
        if tr.speaking()
            && let Some(ui) = tr.on_spoken(handle.spoken())
            && !send(ui)
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(at_ms: f64, event: Event) -> Stamped {
        serde_json::from_value(serde_json::json!({ "at_ms": at_ms, "type": "speech_started" }))
            .map(|mut s: Stamped| {
                s.event = event;
                s
            })
            .expect("stamped")
    }

    fn metrics(speech_end: f64) -> TurnMetrics {
        TurnMetrics {
            speech_end: Some(speech_end),
            eou: Some(speech_end + 400.0),
            asr_final: Some(speech_end + 500.0),
            llm_first_token: Some(speech_end + 560.0),
            first_segment: Some(speech_end + 600.0),
            tts_first_chunk: Some(speech_end + 650.0),
            first_audio: Some(speech_end + 660.0),
            ..TurnMetrics::default()
        }
    }

    #[test]
    fn latency_events_get_a_summary_with_running_percentiles() {
        let mut tr = Translator::new();
        let ev = stamped(
            1700.0,
            Event::Latency {
                turn: TurnId(1),
                metrics: metrics(1000.0),
            },
        );
        let out = tr.on_event(ev);
        assert_eq!(out.len(), 2);
        let UiEvent::Latency(s) = &out[1] else {
            panic!("summary expected, got {out:?}");
        };
        assert_eq!(s.first_audio_ms, Some(660.0));
        assert_eq!(s.response_ms, Some(260.0));
        assert_eq!(s.stages[0].name, "endpoint_wait");
        assert_eq!(s.stages[0].ms, Some(400.0));
        let p = s.first_audio.as_ref().expect("percentiles");
        assert_eq!((p.n, p.p50, p.p90), (1, 660.0, 660.0));
        let json = serde_json::to_value(&out[0]).expect("json");
        assert_eq!(json["kind"], "pipeline");
        assert_eq!(json["type"], "latency");
        assert_eq!(json["at_ms"], 1700.0);

        // The running percentiles include every turn so far, this one too.
        let mut slow = metrics(5000.0);
        slow.first_audio = Some(5000.0 + 1660.0);
        let out = tr.on_event(stamped(
            7000.0,
            Event::Latency {
                turn: TurnId(3),
                metrics: slow,
            },
        ));
        let UiEvent::Latency(s) = &out[1] else {
            panic!("summary expected, got {out:?}");
        };
        let p = s.first_audio.as_ref().expect("percentiles");
        assert_eq!((p.n, p.p50, p.p90), (2, 660.0, 1660.0));
        let r = s.response.as_ref().expect("percentiles");
        assert_eq!((r.n, r.p50, r.p90), (2, 260.0, 1260.0));
    }

    #[test]
    fn spoken_updates_only_while_speaking_and_only_on_change() {
        let mut tr = Translator::new();
        tr.on_event(stamped(
            0.0,
            Event::State {
                state: State::Speaking,
            },
        ));
        assert!(tr.speaking());
        let heard = |t: &str| Some((TurnId(2), t.to_string()));
        assert!(tr.on_spoken(heard("")).is_none(), "nothing heard yet");
        let first = tr.on_spoken(heard("Hello")).expect("update");
        let json = serde_json::to_value(&first).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"kind": "spoken", "turn": 2, "text": "Hello"})
        );
        assert!(tr.on_spoken(heard("Hello")).is_none(), "unchanged");
        assert!(tr.on_spoken(heard("Hello there,")).is_some());
        assert!(tr.on_spoken(None).is_none());
        tr.on_event(stamped(
            10.0,
            Event::State {
                state: State::Listening,
            },
        ));
        assert!(!tr.speaking());
    }
}
