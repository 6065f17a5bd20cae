//! Starting the voice loop, the cloneable handle that drives it, and the two audio ports that
//! microphone and speaker backends (devices, files, test harness) attach to.

use ringbuf::traits::Split;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::PipelineError;
use crate::actor::asr::Asr;
use crate::actor::brain::Brain;
use crate::actor::conductor::{Conductor, Outbox};
use crate::actor::ears::Ears;
use crate::actor::judge::Judge;
use crate::actor::monitor::Monitor;
use crate::actor::mouth::Mouth;
use crate::actor::pace::SynthPace;
use crate::actor::text_end::TextEnd;
use crate::actor::turn_end::SmartEnd;
use crate::actor::words::WordsJudge;
use crate::actor::{COMMAND_SOURCE, Command, MicFrame, MicInput, Report};
use crate::chan::{self, Mailbox, Tx};
use crate::clock::Clock;
use crate::config::{EndpointMode, PipelineConfig};
use crate::echo::{EchoSetup, FRAME};
use crate::engines::Engines;
use crate::heard::Timeline;
use crate::metrics::{Report as LatencyReport, TurnRecord};
use crate::ring::{PlaybackReader, PlaybackState, playback_ring};
use crate::sim::Activity;
use crate::types::{Event, Stamped, State, TurnId};

/// Queue sizes: bounded everywhere. Mic frames: 4 s; recognizer input: 30 s of 10 ms frames
/// (an utterance's audio may queue while a decode runs); reports and events: generous.
const MIC_FRAMES: usize = 400;
const ASR_FRAMES: usize = 3000;
const SEGMENTS: usize = 64;
const REPORTS: usize = 4096;
const EVENTS: usize = 8192;

/// A running voice loop. Dropping it shuts the loop down and joins its threads.
pub struct Pipeline {
    handle: PipelineHandle,
    threads: Vec<JoinHandle<()>>,
}

/// Drives a running pipeline from any thread (UI, CLI); cheap to clone.
#[derive(Clone)]
pub struct PipelineHandle {
    commands: Tx<Command>,
    outbox: Arc<Mutex<Outbox>>,
    playback: Arc<PlaybackState>,
    timeline: Arc<Mutex<Timeline>>,
    running: Arc<AtomicBool>,
    clock: Clock,
}

/// Where audio enters and leaves: attach a microphone backend to `mic` and an output backend
/// to `speaker` (see `audio::device` and `audio::file`).
pub struct AudioPorts {
    pub mic: MicSender,
    pub speaker: PlaybackReader,
    /// Rate the speaker port expects (`PipelineConfig::output_rate`).
    pub output_rate: u32,
    /// The pipeline clock (sources stamp frames with it).
    pub clock: Clock,
    /// Cleared when the pipeline stops: backends end their loops.
    pub running: Arc<AtomicBool>,
    /// Where backends report device trouble.
    pub errors: ErrorReporter,
}

/// Lets an audio backend report a lost device or an error as an event.
#[derive(Clone)]
pub struct ErrorReporter(Tx<Report>);

impl ErrorReporter {
    /// The device ("microphone" / "speaker") stopped or disappeared.
    pub fn device_lost(&self, device: &str, message: &str) {
        self.0.try_send(Report::DeviceLost {
            device: device.to_string(),
            message: message.to_string(),
        });
    }

    /// A lost device was re-opened; `name` is the device now in use.
    pub fn device_restored(&self, device: &str, name: &str) {
        self.0.try_send(Report::DeviceRestored {
            device: device.to_string(),
            name: name.to_string(),
        });
    }

    /// Any other backend error.
    pub fn error(&self, message: &str) {
        self.0.try_send(Report::Error {
            message: message.to_string(),
        });
    }
}

/// Feeds 16 kHz mono microphone audio into the loop in 10 ms frames.
pub struct MicSender {
    tx: Tx<MicInput>,
    frame: [f32; FRAME],
    len: usize,
    clock: Clock,
    dropped: u64,
    marks: u64,
}

impl MicSender {
    /// Appends samples; whole frames are sent stamped with the current clock time. A full
    /// queue (the loop is far behind) drops the frame and counts it.
    pub fn push(&mut self, samples: &[f32]) {
        let mut dropped = 0;
        self.frames(samples, |tx, frame| {
            if !tx.try_send(frame) {
                dropped += 1;
            }
            true
        });
        self.dropped += dropped;
    }

    /// Like `push`, but waits when the queue is full (file sources at full speed). `false` if
    /// the pipeline has stopped.
    pub fn push_blocking(&mut self, samples: &[f32]) -> bool {
        self.frames(samples, |tx, frame| tx.send(frame))
    }

    /// Cuts `samples` into frames and hands each to `send` (which returns `false` to stop).
    fn frames(
        &mut self,
        samples: &[f32],
        mut send: impl FnMut(&Tx<MicInput>, MicInput) -> bool,
    ) -> bool {
        let mut rest = samples;
        while !rest.is_empty() {
            let n = (FRAME - self.len).min(rest.len());
            self.frame[self.len..self.len + n].copy_from_slice(&rest[..n]);
            self.len += n;
            rest = &rest[n..];
            if self.len == FRAME {
                self.len = 0;
                let frame = MicInput::Frame(MicFrame {
                    at: self.clock.now(),
                    samples: self.frame,
                });
                if !send(&self.tx, frame) {
                    return false;
                }
            }
        }
        true
    }

    /// The pipeline clock's time now: what a sample pushed at this moment is stamped with
    /// (a file source records when a clip's true speech end went in).
    pub fn now(&self) -> Duration {
        self.clock.now()
    }

    /// Sends a mark after the whole frames pushed so far (waiting for room) and returns its
    /// number: once [`PipelineHandle::heard_mark`] reaches it, every event that audio made
    /// has been sent to subscribers. A fast file source uses it to know the loop has heard
    /// the whole clip. `None` if the pipeline has stopped.
    pub fn mark(&mut self) -> Option<u64> {
        self.marks += 1;
        self.tx
            .send(MicInput::Mark(self.marks))
            .then_some(self.marks)
    }

    /// Frames sent but not yet taken by the capture actor (a fast source waits for 0 before
    /// a control that must not overtake its audio, e.g. releasing push-to-talk).
    pub fn queued_frames(&self) -> usize {
        self.tx.len()
    }

    /// Frames dropped because the loop was behind.
    pub fn dropped_frames(&self) -> u64 {
        self.dropped
    }
}

impl Pipeline {
    /// Starts every actor on `engines` with real-time clock.
    pub fn start(
        engines: Engines,
        config: PipelineConfig,
    ) -> Result<(Self, AudioPorts), PipelineError> {
        Self::start_with(engines, config, Clock::real(), Activity::none())
    }

    pub(crate) fn start_with(
        engines: Engines,
        config: PipelineConfig,
        clock: Clock,
        activity: Activity,
    ) -> Result<(Self, AudioPorts), PipelineError> {
        config.validate()?;
        let epoch = Arc::new(AtomicU64::new(0));
        let running = Arc::new(AtomicBool::new(true));
        let timeline = Arc::new(Mutex::new(Timeline::default()));
        let outbox = Arc::new(Mutex::new(Outbox::new(config.kept_records)));
        let spoken_timeline = timeline.clone();

        // The echo reference: what the output played, 1 s of it at most.
        let (ref_prod, ref_cons) = if config.echo_cancel {
            let (p, c) = ringbuf::HeapRb::<f32>::new(config.output_rate as usize).split();
            (Some(p), Some(c))
        } else {
            (None, None)
        };
        let (writer, reader, playback) = playback_ring(
            config.ring_frames(),
            config.output_rate,
            epoch.clone(),
            clock.clone(),
            ref_prod,
        );
        let pace = Arc::new(SynthPace::new(config.output_rate, playback.clone()));
        let echo = ref_cons.map(|reference| EchoSetup {
            reference,
            output_rate: config.output_rate,
        });

        // The conductor's mailbox: handle commands overtake actor reports.
        let (report_tx, report_rx) = chan::bounded::<Report>(REPORTS, &activity);
        let (cmd_tx, cmd_rx) = chan::bounded::<Command>(64, &activity);
        let conductor_box = Mailbox::new(cmd_rx, report_rx);
        let (mic_tx, mic_rx) = chan::mailbox(16, MIC_FRAMES, &activity);
        let (asr_tx, asr_rx) = chan::bounded(ASR_FRAMES, &activity);
        let (brain_lanes, brain_box) = chan::mailbox(16, 16, &activity);
        let (mouth_tx, mouth_rx) = chan::bounded(SEGMENTS, &activity);

        let Engines {
            detector,
            transcriber,
            chat,
            segmenter,
            speaker,
            turn,
            words_judge,
        } = engines;
        let mut threads = Vec::new();
        // Smart endpointing needs the classifier; without one, the fixed silence rule.
        let smart = match (config.endpoint.mode, turn) {
            (EndpointMode::Smart, Some(classifier)) => {
                let (ask_tx, ask_rx) = chan::bounded(4, &activity);
                // Not counted in simulations: the capture actor reads answers at its next
                // frame, never blocked on this channel, so a counted answer would hold the
                // step open until then.
                let (verdict_tx, verdict_rx) = chan::bounded(8, &Activity::none());
                let judge = Judge {
                    classifier,
                    verdicts: verdict_tx,
                    report: report_tx.clone(),
                    clock: clock.clone(),
                };
                threads.push(activity.spawn("pocket-turn", move || judge.run(ask_rx))?);
                Some(SmartEnd::new(
                    config.endpoint.smart.clone(),
                    ask_tx,
                    verdict_rx,
                    report_tx.clone(),
                ))
            }
            _ => None,
        };
        let semantic = config.endpoint.mode == EndpointMode::Semantic;
        // Semantic endpointing with a judge of its own: asked by the conductor, answered to it.
        let words = match (semantic, words_judge) {
            (true, Some(chat)) => {
                let (ask_tx, ask_rx) = chan::bounded(4, &activity);
                let judge = WordsJudge {
                    chat,
                    report: report_tx.clone(),
                };
                threads.push(activity.spawn("pocket-words", move || judge.run(ask_rx))?);
                Some(ask_tx)
            }
            _ => None,
        };
        let text = semantic.then(|| {
            TextEnd::new(
                config.endpoint.semantic.clone(),
                config.endpoint.end_silence,
                report_tx.clone(),
            )
        });
        let ears = Ears {
            detector,
            echo,
            cfg: config.endpoint.clone(),
            asr: asr_tx,
            report: report_tx.clone(),
            clock: clock.clone(),
            smart,
            text,
        };
        threads.push(activity.spawn("pocket-ears", move || ears.run(mic_rx))?);
        let open_utt = Arc::new(AtomicU64::new(0));
        let asr = Asr {
            transcriber,
            partial_interval: config.partial_interval,
            report: report_tx.clone(),
            clock: clock.clone(),
            playback: playback.clone(),
            open_utt: open_utt.clone(),
        };
        threads.push(activity.spawn("pocket-asr", move || asr.run(asr_rx))?);
        let brain = Brain {
            chat,
            segmenter,
            mouth: mouth_tx,
            report: report_tx.clone(),
            epoch: epoch.clone(),
            clock: clock.clone(),
            first_audio_gate: config.first_audio_gate,
            first_piece_due: config.first_piece_due,
            later_piece_due_below: config.later_piece_due_below,
            pace: pace.clone(),
            cut_wait: config.cut_wait(),
            prepare_failed: None,
        };
        threads.push(activity.spawn("pocket-llm", move || brain.run(brain_box))?);
        let mouth = Mouth {
            speaker,
            writer,
            report: report_tx.clone(),
            epoch: epoch.clone(),
            clock: clock.clone(),
            timeline: timeline.clone(),
            pace,
            playback: playback.clone(),
        };
        threads.push(activity.spawn("pocket-tts", move || mouth.run(mouth_rx))?);
        let errors = ErrorReporter(report_tx.clone());
        let monitor = Monitor {
            state: playback.clone(),
            report: report_tx,
            clock: clock.clone(),
            period: config.monitor_period,
            timeout: config.output_timeout,
            running: running.clone(),
        };
        threads.push(activity.spawn("pocket-playback", move || monitor.run())?);
        let conductor = Conductor {
            clock: clock.clone(),
            epoch,
            brain: brain_lanes,
            ears: mic_tx.control.clone(),
            timeline,
            outbox: outbox.clone(),
            running: running.clone(),
            playback: playback.clone(),
            backchannel_hold: config.backchannel_hold,
            speculate: config.speculative_reply,
            prefill_partials: config.prefill_partials,
            judge_words: semantic,
            words,
            open_utt,
        };
        threads.push(activity.spawn("pocket-conductor", move || conductor.run(conductor_box))?);

        let handle = PipelineHandle {
            commands: cmd_tx,
            outbox,
            playback,
            timeline: spoken_timeline,
            running: running.clone(),
            clock: clock.clone(),
        };
        let ports = AudioPorts {
            mic: MicSender {
                tx: mic_tx.data,
                frame: [0.0; FRAME],
                len: 0,
                clock: clock.clone(),
                dropped: 0,
                marks: 0,
            },
            speaker: reader,
            output_rate: config.output_rate,
            clock,
            running,
            errors,
        };
        Ok((Self { handle, threads }, ports))
    }

    /// A handle to drive the loop.
    pub fn handle(&self) -> PipelineHandle {
        self.handle.clone()
    }

    /// Stops the loop and waits for every actor to end. The audio ports must be dropped (or
    /// their backends stopped) for the capture side to end.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        self.handle.shutdown();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // Signal only: threads still attached to a live audio port end when it is dropped.
        self.handle.shutdown();
    }
}

impl PipelineHandle {
    /// Events from now on, starting with the current state (bounded: a subscriber that stops
    /// reading misses events).
    pub fn subscribe(&self) -> crossbeam_channel::Receiver<Stamped> {
        let (tx, rx) = crossbeam_channel::bounded(EVENTS);
        let mut out = self.lock();
        let _ = tx.try_send(Stamped {
            at_ms: self.now_ms(),
            event: Event::State {
                state: out.state.unwrap_or(State::Listening),
            },
            source: COMMAND_SOURCE,
        });
        out.subscribers.push(tx);
        rx
    }

    /// The current conversation state.
    pub fn state(&self) -> State {
        self.lock().state.unwrap_or(State::Listening)
    }

    /// Stops the reply now (like a barge-in without speech).
    pub fn stop_speaking(&self) {
        self.commands.send(Command::StopSpeaking);
    }

    /// Push-to-talk: `true` when pressed (interrupts, opens an utterance), `false` when released
    /// (ends it).
    pub fn push_to_talk(&self, pressed: bool) {
        self.commands.send(Command::PushToTalk(pressed));
    }

    /// Mutes (`false`) or unmutes the microphone.
    pub fn set_listening(&self, on: bool) {
        self.commands.send(Command::Listen(on));
    }

    /// A typed user turn.
    pub fn say(&self, text: &str) {
        self.commands.send(Command::Say(text.to_string()));
    }

    /// Forgets the conversation.
    pub fn reset(&self) {
        self.commands.send(Command::Reset);
    }

    /// Stops the loop (the `Pipeline` joins its threads).
    pub fn shutdown(&self) {
        if self.running.swap(false, Ordering::AcqRel) {
            self.commands.send(Command::Shutdown);
        }
    }

    /// Whether the output is down (lost or stalled; replies are text only meanwhile).
    #[cfg(test)]
    pub(crate) fn output_down(&self) -> bool {
        self.playback.output_down.load(Ordering::Acquire)
    }

    /// Whether the loop still runs.
    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    /// The newest microphone mark ([`MicSender::mark`]) the loop has heard.
    pub fn heard_mark(&self) -> u64 {
        self.lock().heard_mark
    }

    /// The latency report of the turns so far: the newest `PipelineConfig::kept_records`
    /// of them (`earlier_turns` says how many ended before those).
    pub fn report(&self) -> LatencyReport {
        let out = self.lock();
        let stops: Vec<f64> = out.barge_in_stops.iter().copied().collect();
        let mut report = LatencyReport::new(
            out.records.iter().cloned().collect(),
            &stops,
            self.playback.paced_underruns(),
        );
        report.earlier_turns = out.recorded - out.records.len() as u64;
        report
    }

    /// Turns recorded since the start (kept or not): pass it to
    /// [`records_since`](Self::records_since) to wait for the next one.
    pub fn recorded(&self) -> usize {
        usize::try_from(self.lock().recorded).unwrap_or(usize::MAX)
    }

    /// The records of the turns that ended after the first `from` (counted since the start,
    /// so a poller's position stays valid as old records go), of those still kept: a turn is
    /// recorded once, when its audio finished, it had nothing to say, or its cut was settled
    /// (`heard` set). Cheaper than [`report`](Self::report) for polling.
    pub fn records_since(&self, from: usize) -> Vec<TurnRecord> {
        self.lock().records_since(from)
    }

    /// The reply playing now and the part of its text the user has heard so far (whole words,
    /// mapped from the output position), for UIs that highlight the reply as it is spoken.
    pub fn spoken(&self) -> Option<(TurnId, String)> {
        let turn = self.playback.cur_turn.load(Ordering::Acquire);
        if turn == 0 {
            return None;
        }
        let played = self.playback.cur_samples.load(Ordering::Acquire);
        let heard = self
            .timeline
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .heard(turn, played);
        Some((TurnId(turn), heard))
    }

    /// Milliseconds on the pipeline clock.
    pub fn now_ms(&self) -> f64 {
        crate::clock::ms(self.clock.now())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|e| e.into_inner())
    }
}
