//! The step-driven harness: a virtual clock advanced 10 ms per tick; each tick the harness plays
//! the output callback's part (pulls 10 ms from the playback ring) and the microphone's (pushes
//! 10 ms of user audio plus, optionally, the echo of what was just played), waiting for every
//! actor to go idle between steps. Events of one step are put in pipeline-stage order.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::mocks::{ChatLog, MockChat, MockSpeaker, MockTranscriber, noise};
use crate::TurnMetrics;
use crate::clock::Clock;
use crate::config::PipelineConfig;
use crate::engines::energy::EnergyDetector;
use crate::engines::tts::ReplySegmenter;
use crate::engines::{ChatEngine, Engines, SpeechDetector, TurnClassifier};
use crate::handle::{ErrorReporter, MicSender, Pipeline, PipelineHandle};
use crate::ring::PlaybackReader;
use crate::sim::{Activity, Sim};
use crate::types::{Event, Stamped};

pub(crate) const TICK: Duration = Duration::from_millis(10);
const FRAME: usize = 160;

/// Loudspeaker-to-microphone coupling: delay and gain.
#[derive(Clone, Copy)]
pub(crate) struct EchoPath {
    pub(crate) delay: Duration,
    pub(crate) gain: f32,
}

pub(crate) struct Setup {
    pub(crate) finals: Vec<&'static str>,
    pub(crate) replies: Vec<Vec<&'static str>>,
    pub(crate) piece_delay: Duration,
    pub(crate) config: PipelineConfig,
    pub(crate) echo: Option<EchoPath>,
    pub(crate) detector: Box<dyn SpeechDetector>,
    /// The mock recognizer offers each final early after this much utterance audio.
    pub(crate) early_final_after_ms: Option<usize>,
    /// Early finals other than the coming final (one per utterance, in order).
    pub(crate) early_finals: Vec<&'static str>,
    /// What the mock recognizer decodes at each pause the capture actor reports.
    pub(crate) pause_texts: Vec<&'static str>,
    /// The mock voice fails on segments containing this.
    pub(crate) tts_fails_on: Option<&'static str>,
    /// A chat engine instead of the scripted one (`replies` are then unused).
    pub(crate) chat: Option<Box<dyn ChatEngine>>,
    /// An end-of-turn classifier (smart endpointing when the config asks for it).
    pub(crate) turn: Option<Box<dyn TurnClassifier>>,
    /// A model of its own that judges the words at pauses (semantic endpointing).
    pub(crate) words_judge: Option<Box<dyn ChatEngine>>,
    /// How long the mock recognizer takes over each final.
    pub(crate) final_delay: Option<Duration>,
    /// The mock recognizer can start an utterance with the last one's audio.
    pub(crate) can_continue: bool,
}

impl Default for Setup {
    fn default() -> Self {
        let mut config = PipelineConfig {
            output_rate: 16_000,
            echo_cancel: false,
            first_audio_gate: None,
            // The scenarios' segments are the phrase rules'; the due cut has its own test.
            first_piece_due: None,
            later_piece_due_below: None,
            monitor_period: TICK,
            partial_interval: Some(Duration::from_millis(500)),
            // The scenarios list the chat's calls; the partials' prefill has its own test.
            prefill_partials: false,
            ..PipelineConfig::default()
        };
        config.endpoint.min_speech = Duration::from_millis(200);
        config.endpoint.end_silence = Duration::from_millis(300);
        config.endpoint.preroll = Duration::from_millis(200);
        // The scenarios' timings are the fixed rule's; semantic endpointing has its own.
        config.endpoint.mode = crate::config::EndpointMode::Fixed;
        Self {
            finals: vec![],
            replies: vec![],
            piece_delay: Duration::from_millis(20),
            config,
            echo: None,
            detector: Box::new(EnergyDetector::new(-40.0)),
            early_final_after_ms: None,
            early_finals: vec![],
            pause_texts: vec![],
            tts_fails_on: None,
            chat: None,
            turn: None,
            words_judge: None,
            final_delay: None,
            can_continue: false,
        }
    }
}

pub(crate) struct Harness {
    sim: Arc<Sim>,
    pipeline: Option<Pipeline>,
    pub(crate) handle: PipelineHandle,
    mic: Option<MicSender>,
    speaker: PlaybackReader,
    events: crossbeam_channel::Receiver<Stamped>,
    pub(crate) now: Duration,
    /// Every event with the tick (ms) it happened at.
    pub(crate) log: Vec<(u64, Event)>,
    /// Everything the output played.
    pub(crate) output: Vec<f32>,
    echo: Option<EchoPath>,
    echo_line: VecDeque<f32>,
    pub(crate) chat_log: ChatLog,
    /// Samples the recognizer got per utterance.
    pub(crate) asr_log: Arc<Mutex<Vec<usize>>>,
    pub(crate) over_reply_log: Arc<Mutex<Vec<bool>>>,
    pub(crate) continued_log: Arc<Mutex<Vec<bool>>>,
    /// Whether the output callback runs (`false`: the device stopped consuming).
    pub(crate) output_live: bool,
    /// Whether the microphone delivers frames (`false`: the input device is gone).
    pub(crate) input_live: bool,
    /// What an audio backend reports lost devices through.
    pub(crate) errors: ErrorReporter,
}

impl Harness {
    pub(crate) fn new(setup: Setup) -> Self {
        let sim = Sim::new();
        let clock = Clock::virtual_(sim.clone());
        let activity = Activity::of(Some(&sim));
        let chat_log: ChatLog = Arc::new(Mutex::new(Vec::new()));
        let asr_log = Arc::new(Mutex::new(Vec::new()));
        let over_reply_log = Arc::new(Mutex::new(Vec::new()));
        let continued_log = Arc::new(Mutex::new(Vec::new()));
        let engines = Engines {
            detector: setup.detector,
            transcriber: Box::new(MockTranscriber {
                heard_samples: asr_log.clone(),
                over_reply_log: over_reply_log.clone(),
                early_final_after: setup.early_final_after_ms.map(|ms| ms * 16),
                early_texts: setup.early_finals.iter().map(|s| s.to_string()).collect(),
                pause_texts: setup.pause_texts.iter().map(|s| s.to_string()).collect(),
                final_delay: setup.final_delay.map(|d| (clock.clone(), d)),
                can_continue: setup.can_continue,
                continued_log: continued_log.clone(),
                ..MockTranscriber::scripted(&setup.finals)
            }),
            chat: setup.chat.unwrap_or_else(|| {
                Box::new(MockChat {
                    replies: setup.replies.into_iter().collect(),
                    piece_delay: setup.piece_delay,
                    clock: clock.clone(),
                    log: chat_log.clone(),
                    last: None,
                })
            }),
            segmenter: Box::new(ReplySegmenter::default()),
            speaker: Box::new(MockSpeaker {
                seed: 7,
                fail_on: setup.tts_fails_on,
            }),
            turn: setup.turn,
            words_judge: setup.words_judge,
        };
        let (pipeline, ports) =
            Pipeline::start_with(engines, setup.config, clock, activity).expect("pipeline starts");
        let handle = pipeline.handle();
        let events = handle.subscribe();
        let delay = setup
            .echo
            .map(|e| (e.delay.as_millis() as usize) * 16)
            .unwrap_or(0);
        let mut h = Self {
            sim,
            pipeline: Some(pipeline),
            handle,
            mic: Some(ports.mic),
            speaker: ports.speaker,
            events,
            now: Duration::ZERO,
            log: Vec::new(),
            output: Vec::new(),
            echo: setup.echo,
            echo_line: std::iter::repeat_n(0.0, delay).collect(),
            chat_log,
            asr_log,
            over_reply_log,
            continued_log,
            output_live: true,
            input_live: true,
            errors: ports.errors,
        };
        h.sim.settle();
        h.collect();
        h
    }

    /// Events so far, put in stage order within one step.
    fn collect(&mut self) {
        let mut batch: Vec<Stamped> = self.events.try_iter().collect();
        batch.sort_by_key(|s| s.source);
        let t = self.now.as_millis() as u64;
        self.log.extend(batch.into_iter().map(|s| (t, s.event)));
    }

    /// One 10 ms step with `user` (160 samples at 16 kHz) at the microphone.
    pub(crate) fn tick(&mut self, user: &[f32]) {
        self.now += TICK;
        self.sim.advance_to(self.now);
        self.sim.settle();
        self.collect();
        let mut out = [0.0f32; FRAME];
        if self.output_live {
            self.speaker.fill(&mut out);
            self.output.extend_from_slice(&out);
        }
        let mut mic = [0.0f32; FRAME];
        for (i, m) in mic.iter_mut().enumerate() {
            *m = user.get(i).copied().unwrap_or(0.0);
        }
        if let Some(e) = self.echo {
            for (i, m) in mic.iter_mut().enumerate() {
                self.echo_line.push_back(out[i]);
                let played = self.echo_line.pop_front().unwrap_or(0.0);
                *m += e.gain * played;
            }
        }
        if let Some(m) = self.mic.as_mut().filter(|_| self.input_live) {
            m.push(&mic);
        }
        self.sim.settle();
        self.collect();
    }

    /// A loop that has just been asked something: 100 ms of quiet, then 700 ms of voice
    /// (speech 100..800 ms), the opening of most scenarios.
    pub(crate) fn asked(setup: Setup) -> Self {
        let mut h = Self::new(setup);
        h.silence(100);
        h.speak(&voice(700, 1));
        h
    }

    /// Plays `audio` at the microphone, tick by tick.
    pub(crate) fn speak(&mut self, audio: &[f32]) {
        for chunk in audio.chunks(FRAME) {
            self.tick(chunk);
        }
    }

    /// `ms` of silence at the microphone.
    pub(crate) fn silence(&mut self, ms: u64) {
        for _ in 0..ms / 10 {
            self.tick(&[]);
        }
    }

    /// Runs silent ticks until `pred` holds for the log (at most `max_ms`).
    pub(crate) fn until(&mut self, max_ms: u64, pred: impl Fn(&[(u64, Event)]) -> bool) {
        for _ in 0..max_ms / 10 {
            if pred(&self.log) {
                return;
            }
            self.tick(&[]);
        }
        panic!(
            "condition not reached in {max_ms} ms; events: {:#?}",
            self.short()
        );
    }

    /// The event log in short form, for exact comparisons.
    pub(crate) fn short(&self) -> Vec<String> {
        self.log.iter().map(|(_, e)| short(e)).collect()
    }

    /// Time (ms) of the first event whose short form starts with `prefix`.
    pub(crate) fn time_of(&self, prefix: &str) -> Option<u64> {
        self.log
            .iter()
            .find(|(_, e)| short(e).starts_with(prefix))
            .map(|(t, _)| *t)
    }

    /// The events (short form) that start with `prefix`.
    pub(crate) fn events_starting(&self, prefix: &str) -> Vec<String> {
        self.short()
            .into_iter()
            .filter(|e| e.starts_with(prefix))
            .collect()
    }

    /// How many events start with `prefix`.
    pub(crate) fn count(&self, prefix: &str) -> usize {
        self.events_starting(prefix).len()
    }

    /// Asserts that some event starts with `prefix`.
    pub(crate) fn assert_has(&self, prefix: &str) {
        assert!(self.time_of(prefix).is_some(), "{:#?}", self.short());
    }

    /// Asserts that some event is, in short form, exactly `event`.
    pub(crate) fn assert_has_exactly(&self, event: &str) {
        assert!(
            self.short().iter().any(|e| e == event),
            "{:#?}",
            self.short()
        );
    }

    /// The metrics of the latest turn in the report.
    pub(crate) fn last_metrics(&self) -> TurnMetrics {
        self.handle
            .report()
            .turns
            .last()
            .expect("a turn")
            .metrics
            .clone()
    }

    /// The chat engine's call log.
    pub(crate) fn chat_calls(&self) -> Vec<String> {
        self.chat_log.lock().expect("log").clone()
    }

    /// Samples the recognizer got, per utterance.
    pub(crate) fn asr_samples(&self) -> Vec<usize> {
        self.asr_log.lock().expect("log").clone()
    }

    /// Per utterance the capture actor said goes on from the last: whether the mock
    /// recognizer did.
    pub(crate) fn asr_continued(&self) -> Vec<bool> {
        self.continued_log.lock().expect("log").clone()
    }

    /// Per recognized utterance: whether the recognizer was told it was spoken over a reply.
    pub(crate) fn asr_over_reply(&self) -> Vec<bool> {
        self.over_reply_log.lock().expect("log").clone()
    }

    /// Stops the loop and joins every thread.
    pub(crate) fn finish(mut self) -> Self {
        self.handle.shutdown();
        self.mic = None;
        for _ in 0..5 {
            self.now += TICK;
            self.sim.advance_to(self.now);
            self.sim.settle();
        }
        if let Some(p) = self.pipeline.take() {
            p.shutdown();
        }
        self
    }
}

/// A one-line form of an event: kind and the fields that matter.
pub(crate) fn short(e: &Event) -> String {
    match e {
        Event::State { state } => format!("state {state:?}"),
        Event::SpeechStarted => "speech started".into(),
        Event::SpeechStopped => "speech stopped".into(),
        Event::StillListening { p_complete } => format!("still listening {p_complete:.2}"),
        Event::PartialTranscript { text } => format!("partial {text:?}"),
        Event::FinalTranscript { text, turn } => {
            format!("final {text:?} -> {}", turn.map(|t| t.0).unwrap_or(0))
        }
        Event::AssistantText { turn, text } => format!("text {} {text:?}", turn.0),
        Event::AudioStarted { turn } => format!("audio started {}", turn.0),
        Event::AudioFinished { turn } => format!("audio finished {}", turn.0),
        Event::Interrupted {
            turn,
            heard,
            during,
            cause,
        } => format!(
            "interrupted {} {during:?} {cause:?} heard {heard:?}",
            turn.0
        ),
        Event::Latency { turn, metrics } => {
            format!("latency {} complete={}", turn.0, metrics.is_complete())
        }
        Event::DeviceLost { device, .. } => format!("device lost {device}"),
        Event::DeviceRestored { device, name } => format!("device restored {device} {name}"),
        Event::Error { message } => format!("error {message}"),
        Event::ReplyPaused { turn } => format!("paused {}", turn.0),
        Event::ReplyResumed { turn, said } => format!("resumed {} after {said:?}", turn.0),
    }
}

/// `ms` of speech-like noise at the microphone (loud enough for the energy detector).
pub(crate) fn voice(ms: u64, seed: u32) -> Vec<f32> {
    let mut s = seed;
    noise(&mut s, ms as usize * 16, 0.3)
}

/// Whether some event of the log starts with `prefix` (for [`Harness::until`]).
pub(crate) fn has(prefix: &'static str) -> impl Fn(&[(u64, Event)]) -> bool {
    move |log| log.iter().any(|(_, e)| short(e).starts_with(prefix))
}

/// Asserts the exact event sequence (short forms), given as its parts in order; shows the log
/// with its times if it differs.
pub(crate) fn assert_events(h: &Harness, parts: &[&[&str]]) {
    let expected = parts.concat();
    let got = h.short();
    let timed: Vec<String> = h
        .log
        .iter()
        .map(|(t, e)| format!("{t:>6} {}", short(e)))
        .collect();
    assert_eq!(got, expected, "event log:\n{}", timed.join("\n"));
}
