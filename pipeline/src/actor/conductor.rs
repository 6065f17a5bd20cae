//! The conductor: the one place that owns the conversation state. It turns actor reports into
//! UI events, starts turns, decides barge-in (pause the reply at the onset, then cut it off —
//! bump the epoch, cancel the turn — or resume it when the user only said "mm-hm"), joins an
//! utterance that goes on right after a turn to that turn (taken back, answered as one), maps the
//! playback position back to the words heard, and keeps the latency records. When the output is lost
//! or stalls it settles every cut itself (heard = what the output had played), since no
//! callback will confirm them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::words::WordsAsk;
use super::{BrainCtl, COMMAND_SOURCE, Cause, Command, EarsCtl, Report, Think, Turn};
use crate::backchannel::is_backchannel;
use crate::chan::{Lanes, Mail, Mailbox, Tx};
use crate::clock::{Clock, ms};
use crate::heard::Timeline;
use crate::metrics::{TurnMetrics, TurnRecord};
use crate::ring::PlaybackState;
use crate::types::{Event, InterruptedWhile, Stamped, State, TurnId};

/// Fan-out of events to subscribers, plus the run's records (shared with the handle).
pub(crate) struct Outbox {
    pub(crate) subscribers: Vec<crossbeam_channel::Sender<Stamped>>,
    /// The newest `keep` turn records; the oldest goes when a new one would exceed it.
    pub(crate) records: VecDeque<TurnRecord>,
    /// Turns recorded since the start (the kept ones are the last `records.len()` of them).
    pub(crate) recorded: u64,
    /// Barge-in stop times (ms) of the newest `keep` barge-ins.
    pub(crate) barge_in_stops: VecDeque<f64>,
    pub(crate) keep: usize,
    pub(crate) state: Option<State>,
    /// The output's underrun count when the last record was pushed.
    pub(crate) underruns_recorded: u64,
    /// The newest microphone mark heard: every event the audio before it made is sent.
    pub(crate) heard_mark: u64,
}

impl Outbox {
    /// An outbox that keeps the newest `keep` records (at least one).
    pub(crate) fn new(keep: usize) -> Self {
        Self {
            subscribers: Vec::new(),
            records: VecDeque::new(),
            recorded: 0,
            barge_in_stops: VecDeque::new(),
            keep: keep.max(1),
            state: None,
            underruns_recorded: 0,
            heard_mark: 0,
        }
    }

    /// Adds the next turn's record (numbered from 1 over the whole run).
    pub(crate) fn push_record(&mut self, rec: TurnRecord) {
        self.recorded += 1;
        if self.records.len() == self.keep {
            self.records.pop_front();
        }
        self.records.push_back(TurnRecord {
            turn: self.recorded,
            ..rec
        });
    }

    pub(crate) fn push_barge_in_stop(&mut self, ms: f64) {
        if self.barge_in_stops.len() == self.keep {
            self.barge_in_stops.pop_front();
        }
        self.barge_in_stops.push_back(ms);
    }

    /// The kept records of turns `from + 1` on (`from` counts turns since the start).
    pub(crate) fn records_since(&self, from: usize) -> Vec<TurnRecord> {
        let first_kept = self.recorded - self.records.len() as u64;
        let skip = (from as u64).saturating_sub(first_kept);
        self.records
            .iter()
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .cloned()
            .collect()
    }
}

/// The reply in progress.
struct Active {
    turn: Turn,
    user_text: String,
    reply: String,
    metrics: TurnMetrics,
    audio_started: bool,
    /// The model finished the reply (with something to say).
    reply_done: bool,
    /// Synthesis skipped the reply: the output was down (text only).
    muted: bool,
    /// Made ahead of time from the recognizer's early final: unconfirmed (the user may go on
    /// speaking), held silent, and shown nowhere until the final transcript says the same.
    speculative: bool,
    /// The model had nothing to say (known before the turn was confirmed).
    nothing_to_say: bool,
    /// The utterance whose final this turn answers (0: typed, or made ahead and not yet
    /// confirmed).
    utt: u64,
}

/// A reply cut off, waiting for the output to confirm it went silent.
struct Cut {
    turn: Turn,
    epoch: u64,
    user_text: String,
    reply: String,
    metrics: TurnMetrics,
    cause: Cause,
    /// When the user's onset was detected (for the stop-time measurement).
    detected_at: Duration,
    /// A reply paused at the onset and cut later: what had been heard when it paused (taken
    /// at the cut, before the next turn's synthesis replaces the timeline).
    heard_at_hold: Option<String>,
}

/// The latest utterance's endpoint times.
#[derive(Default, Clone, Copy)]
struct Utterance {
    /// Its number (0: a typed turn).
    utt: u64,
    speech_end: Option<Duration>,
    eou: Option<Duration>,
    turn_p: Option<f32>,
    turn_took: Option<Duration>,
    /// It went on from the utterance before, whose turn was taken back.
    continued: bool,
}

impl Utterance {
    /// Records the endpoint's times (and the final's, `asr_final`) in a turn's metrics.
    fn stamp(&self, m: &mut TurnMetrics, asr_final: Duration) {
        m.speech_end = self.speech_end.map(ms);
        m.eou = self.eou.map(ms);
        m.asr_final = Some(ms(asr_final));
        m.turn_classifier_ms = self.turn_took.map(ms);
        m.turn_complete_p = self.turn_p.map(f64::from);
        m.continued = self.continued;
    }
}

pub(crate) struct Conductor {
    pub(crate) clock: Clock,
    pub(crate) epoch: Arc<AtomicU64>,
    pub(crate) brain: Lanes<BrainCtl, Think>,
    pub(crate) ears: Tx<EarsCtl>,
    pub(crate) timeline: Arc<Mutex<Timeline>>,
    pub(crate) outbox: Arc<Mutex<Outbox>>,
    pub(crate) running: Arc<AtomicBool>,
    pub(crate) playback: Arc<PlaybackState>,
    /// See `PipelineConfig::backchannel_hold`.
    pub(crate) backchannel_hold: Option<Duration>,
    /// See `PipelineConfig::speculative_reply`.
    pub(crate) speculate: bool,
    /// See `PipelineConfig::prefill_partials`.
    pub(crate) prefill_partials: bool,
    /// Semantic endpointing: the model judges the words of each pause for the capture actor.
    pub(crate) judge_words: bool,
    /// The words judge's asks, when a model of its own judges them (else the chat model does).
    pub(crate) words: Option<Tx<WordsAsk>>,
    /// The utterance whose turn the user may still go on from (0: none): the recognizer sets
    /// it at each final with words, the conductor clears it when that turn ends otherwise
    /// (its reply played out, nothing to say, cut off).
    pub(crate) open_utt: Arc<AtomicU64>,
}

/// A reply paused at the user's onset, waiting for the recognizer to tell a backchannel from
/// an interruption.
struct Hold {
    /// When the onset was detected.
    since: Duration,
}

struct Run {
    state: State,
    active: Option<Active>,
    cuts: Vec<Cut>,
    /// Endpoint times of utterances whose final transcript is pending.
    utts: Vec<(u64, Utterance)>,
    /// Stage whose report is being handled (tags the events it causes).
    source: u8,
    /// The output is lost or stalled (replies are text only until it plays again).
    output_down: bool,
    /// The active reply is paused over the user's speech.
    hold: Option<Hold>,
    /// An utterance is under way (its onset confirmed, its end not yet reported).
    speaking: bool,
    /// The capture actor's pause whose words the model judges, with what goes back with the
    /// judgement.
    judging: Option<Judging>,
    /// The utterance under way goes on from an earlier one (`Report::Continues`: this one,
    /// that one), not yet acted on: that waits for the onset to be confirmed.
    continuing: Option<(u64, u64)>,
    /// Its onset confirmed, the reply to the earlier one paused: waiting for new words.
    going_on: Option<GoingOn>,
    /// The utterance that went on from a turn taken back: its final is the turn of both.
    joined: Option<u64>,
    /// The newest turn made of an utterance's final: that utterance, the turn, and how many
    /// words the user said in it.
    last_spoken: Option<(u64, TurnId, usize)>,
}

/// An utterance that goes on from the turn of the one before, whose reply is paused until
/// the recognizer hears words beyond that turn's (then it is taken back) or none (a cough, a
/// breath, the reply's own echo: it plays on).
#[derive(Clone, Copy)]
struct GoingOn {
    utt: u64,
    turn: TurnId,
    words: usize,
}

/// Words in a transcript.
fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// What the recognizer said of the words being judged at a pause.
#[derive(Clone, Copy)]
struct Judging {
    pause: u64,
    /// Its probability of the last word.
    last_word_p: f32,
    /// Whether it wrote them as a question.
    asks: bool,
}

/// Whether the recognizer wrote `text` as a question ("In which month is Christmas?").
fn asks_a_question(text: &str) -> bool {
    text.trim_end().ends_with('?')
}

impl Conductor {
    pub(crate) fn run(self, inbox: Mailbox<Command, Report>) {
        let mut run = Run {
            state: State::Listening,
            active: None,
            cuts: Vec::new(),
            utts: Vec::new(),
            source: COMMAND_SOURCE,
            output_down: false,
            speaking: false,
            hold: None,
            judging: None,
            continuing: None,
            going_on: None,
            joined: None,
            last_spoken: None,
        };
        while let Some(mail) = inbox.recv() {
            match mail {
                Mail::Control(Command::Shutdown) => break,
                Mail::Control(cmd) => {
                    run.source = COMMAND_SOURCE;
                    self.command(&mut run, cmd)
                }
                Mail::Data(report) => {
                    run.source = report.source();
                    self.report(&mut run, report)
                }
            }
        }
        self.running.store(false, Ordering::Release);
        // Close every subscription: readers see the end of the event stream.
        self.lock_outbox().subscribers.clear();
        // Cancel whatever is in flight so every actor winds down.
        if let Some(a) = run.active.take() {
            a.turn.cancel.store(true, Ordering::Release);
        }
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }

    fn command(&self, run: &mut Run, cmd: Command) {
        match cmd {
            Command::StopSpeaking => self.interrupt(run, Cause::StopRequested),
            Command::PushToTalk(down) => {
                if down {
                    self.interrupt(run, Cause::UserSpeech);
                }
                self.ears.send(EarsCtl::PushToTalk(down));
            }
            Command::Listen(on) => {
                self.ears.send(EarsCtl::Listen(on));
            }
            Command::Say(text) => {
                self.user_turn(run, text, Utterance::default(), self.clock.now());
            }
            Command::Reset => {
                self.interrupt(run, Cause::StopRequested);
                self.brain.control.send(BrainCtl::Reset);
            }
            Command::Shutdown => {}
        }
    }

    fn report(&self, run: &mut Run, report: Report) {
        match report {
            Report::Heard { mark } => self.lock_outbox().heard_mark = mark,
            Report::SpeechStarted => {
                run.speaking = true;
                self.emit(run, Event::SpeechStarted);
                if run.continuing.is_some() {
                    self.go_on(run);
                } else {
                    self.onset(run);
                }
            }
            Report::SpeechDiscarded => {
                run.speaking = false;
                run.continuing = None;
                run.going_on = None;
                self.resume(run, String::new());
            }
            Report::Continues { utt, after } => {
                run.continuing = Some((utt, after));
                if run.speaking {
                    self.go_on(run);
                }
            }
            // The user went on after a pause: a reply made for the words so far is void.
            Report::SpeechResumed => {
                if is_speculative(run) {
                    self.interrupt(run, Cause::UserSpeech);
                }
            }
            Report::SpeechStopped {
                utt,
                speech_end,
                eou,
                turn_p,
                turn_took,
            } => {
                run.utts.push((
                    utt,
                    Utterance {
                        utt,
                        speech_end: Some(speech_end),
                        eou: Some(eou),
                        turn_p,
                        turn_took,
                        continued: false,
                    },
                ));
                run.speaking = false;
                self.emit(run, Event::SpeechStopped);
            }
            Report::TurnPending { p_complete } => {
                self.emit(run, Event::StillListening { p_complete });
            }
            Report::Partial { text } => {
                self.emit(run, Event::PartialTranscript { text: text.clone() });
                self.join_if_new_words(run, &text);
                // The words decide at the final: a partial of a short sound is often a
                // hallucination ("you", "bye"), and the reply is silent meanwhile anyway. Only
                // speech going on past the hold limit cuts the reply off here.
                if let Some(h) = &run.hold
                    && self
                        .backchannel_hold
                        .is_some_and(|limit| self.clock.now().saturating_sub(h.since) >= limit)
                {
                    self.interrupt(run, Cause::UserSpeech);
                } else if self.prefill_partials && run.active.is_none() && run.hold.is_none() {
                    // The model runs the words so far while the user goes on speaking.
                    self.brain
                        .control
                        .try_send(BrainCtl::Prefill { text, judge: None });
                }
            }
            // Not an event: the user may still go on. The model starts on the words meanwhile:
            // the whole reply, held silent (speculative), or just their prefill (not on a
            // backchannel over a paused reply, which will not become a turn).
            Report::EarlyFinal {
                text,
                pause,
                last_word_p,
            } => {
                self.join_if_new_words(run, &text);
                let mut pause = pause.filter(|_| self.judge_words);
                if let Some(id) = pause {
                    run.judging = Some(Judging {
                        pause: id,
                        last_word_p,
                        asks: asks_a_question(&text),
                    });
                    if let Some(words) = &self.words {
                        // Judged beside the model, which then only starts on the reply.
                        words.try_send(WordsAsk {
                            pause: id,
                            text: text.clone(),
                        });
                        pause = None;
                    }
                }
                if self.may_speculate(run) {
                    if run.active.as_ref().is_none_or(|a| a.user_text != text) {
                        self.speculative_turn(run, text, pause);
                    }
                } else if run.hold.is_none() || !is_backchannel(&text) {
                    self.brain
                        .control
                        .try_send(BrainCtl::Prefill { text, judge: pause });
                }
            }
            // Semantic endpointing: the capture actor decides the pause with it.
            Report::TurnJudged { pause, p } => {
                let (last_word_p, asks) = run
                    .judging
                    .filter(|j| j.pause == pause)
                    .map_or((1.0, false), |j| (j.last_word_p, j.asks));
                self.ears.send(EarsCtl::TextVerdict {
                    pause,
                    p,
                    last_word_p,
                    asks,
                });
            }
            Report::Final { utt, text, at } => {
                let mut times = match run.utts.iter().position(|(u, _)| *u == utt) {
                    Some(i) => run.utts.remove(i).1,
                    None => Utterance::default(),
                };
                times.utt = utt;
                if run.going_on.is_some_and(|g| g.utt == utt) && !self.join_if_new_words(run, &text)
                {
                    // No words beyond the turn it went on from: that reply plays on.
                    run.going_on = None;
                    self.resume(run, String::new());
                    self.emit(run, Event::FinalTranscript { text, turn: None });
                    return;
                }
                times.continued = run.joined.take_if(|u| *u == utt).is_some();
                run.utts.retain(|(u, _)| *u > utt);
                if run.hold.is_some() {
                    if is_backchannel(&text) {
                        self.resume(run, text);
                        return;
                    }
                    self.interrupt(run, Cause::UserSpeech);
                }
                let made_ahead = run
                    .active
                    .as_ref()
                    .is_some_and(|a| a.speculative && a.user_text == text);
                if made_ahead {
                    self.confirm(run, times, at);
                } else if text.is_empty() {
                    self.interrupt(run, Cause::UserSpeech); // only a reply made ahead is active
                    self.emit(run, Event::FinalTranscript { text, turn: None });
                } else {
                    self.user_turn(run, text, times, at);
                }
            }
            Report::FirstToken { turn, at } => {
                if let Some(a) = current(run, turn) {
                    a.metrics.llm_first_token = Some(ms(at));
                }
            }
            Report::Piece { turn, text } => {
                if let Some(a) = current(run, turn) {
                    a.reply.push_str(&text);
                    // A reply made ahead is shown (all so far) once its turn is confirmed.
                    if !a.speculative {
                        self.emit(run, Event::AssistantText { turn, text });
                    }
                }
            }
            Report::FirstSegment { turn, at } => {
                if let Some(a) = current(run, turn) {
                    a.metrics.first_segment = Some(ms(at));
                }
            }
            Report::TtsFirstChunk { turn, at } => {
                if let Some(a) = current(run, turn) {
                    a.metrics.tts_first_chunk = Some(ms(at));
                }
            }
            Report::ReplyDone { turn, segments } => {
                if segments == 0
                    && let Some(a) = current(run, turn).filter(|a| a.speculative)
                {
                    a.nothing_to_say = true;
                } else if segments == 0 && current(run, turn).is_some() {
                    // Nothing to say: the turn ends here.
                    if let Some(a) = run.active.take() {
                        self.close(a.utt);
                        self.record(a.user_text, a.reply, None, a.metrics);
                    }
                    self.set_state(run, State::Listening);
                } else if let Some(a) = current(run, turn) {
                    a.reply_done = true;
                    self.end_if_text_only(run);
                }
            }
            Report::Muted { turn } => {
                if let Some(a) = current(run, turn) {
                    a.muted = true;
                    self.end_if_text_only(run);
                }
            }
            Report::AudioStarted { turn, at } => {
                if let Some(a) = current(run, turn) {
                    a.audio_started = true;
                    a.metrics.first_audio = Some(ms(at));
                    let metrics = a.metrics.clone();
                    self.emit(run, Event::AudioStarted { turn });
                    self.emit(run, Event::Latency { turn, metrics });
                    self.set_state(run, State::Speaking);
                }
            }
            Report::AudioFinished { turn } => {
                if current(run, turn).is_some() {
                    if let Some(a) = run.active.take() {
                        self.close(a.utt);
                        self.emit(run, Event::AudioFinished { turn });
                        self.record(a.user_text, a.reply, None, a.metrics);
                    }
                    self.set_state(run, State::Listening);
                }
            }
            Report::PlaybackStopped { epoch, cut } => self.playback_stopped(run, epoch, cut),
            Report::OutputStalled => {
                if !run.output_down {
                    self.emit(
                        run,
                        Event::DeviceLost {
                            device: "speaker".into(),
                            message: "the output stopped playing".into(),
                        },
                    );
                    self.output_lost(run);
                }
            }
            Report::OutputResumed => run.output_down = false,
            Report::Error { message } => self.emit(run, Event::Error { message }),
            Report::DeviceLost { device, message } => {
                let speaker = device == "speaker";
                let microphone = device == "microphone";
                self.emit(run, Event::DeviceLost { device, message });
                if speaker {
                    self.output_lost(run);
                } else if microphone {
                    self.ears.send(EarsCtl::InputLost);
                }
            }
            // The output's return is seen by the monitor (it consumes again); the input's by
            // the ears (frames arrive again).
            Report::DeviceRestored { device, name } => {
                self.emit(run, Event::DeviceRestored { device, name })
            }
        }
    }

    /// The output is gone: no callback will confirm a cut or play a reply. The reply in
    /// progress ends here and every cut settles with what the output had played; replies are
    /// text only until the output plays again (the monitor reports it).
    fn output_lost(&self, run: &mut Run) {
        if run.output_down {
            return;
        }
        run.output_down = true;
        self.playback.output_down.store(true, Ordering::Release);
        self.interrupt(run, Cause::OutputLost);
        let st = &*self.playback;
        for c in std::mem::take(&mut run.cuts) {
            let played = if st.cur_turn.load(Ordering::Acquire) == c.turn.id.0 {
                st.cur_samples.load(Ordering::Acquire)
            } else {
                0
            };
            self.settle(run, c, played);
        }
    }

    /// Ends the active turn if its reply is complete and was not spoken (output down).
    fn end_if_text_only(&self, run: &mut Run) {
        if run
            .active
            .as_ref()
            .is_some_and(|a| a.reply_done && a.muted && !a.audio_started && !a.speculative)
            && let Some(a) = run.active.take()
        {
            self.close(a.utt);
            self.record(a.user_text, a.reply, None, a.metrics);
            self.set_state(run, State::Listening);
        }
    }

    /// Starts the reply to `text` (cutting off any reply still in progress).
    fn user_turn(&self, run: &mut Run, text: String, utt: Utterance, asr_final: Duration) {
        self.interrupt(run, Cause::Superseded);
        let mut metrics = TurnMetrics::default();
        utt.stamp(&mut metrics, asr_final);
        let id = self.start_turn(run, text.clone(), metrics, false, None);
        if let Some(a) = run.active.as_mut() {
            a.utt = utt.utt;
        }
        if utt.utt != 0 {
            run.last_spoken = Some((utt.utt, id, word_count(&text)));
        }
        self.emit(
            run,
            Event::FinalTranscript {
                text,
                turn: Some(id),
            },
        );
        self.set_state(run, State::Thinking);
        // The user went on speaking before these words' final came (a pause the endpointer
        // took for the end, a recognizer slower than the user): the reply waits as it would
        // had they spoken over it, and the words being spoken decide.
        if run.speaking {
            self.onset(run);
        }
    }

    /// Makes `text` the active turn (a new epoch and cancel flag) and hands it to the model.
    /// A reply cut off and not yet settled (at once for a typed turn over a reply): the model
    /// holds this turn until that reply is truncated to what was heard.
    fn start_turn(
        &self,
        run: &mut Run,
        text: String,
        metrics: TurnMetrics,
        speculative: bool,
        judge: Option<u64>,
    ) -> TurnId {
        let id = TurnId(self.epoch.fetch_add(1, Ordering::AcqRel) + 1);
        if speculative {
            // Before the model hears of it: no sample of this turn reaches an output not holding.
            self.playback.hold.store(true, Ordering::Release);
        }
        let turn = Turn {
            id,
            cancel: Arc::new(AtomicBool::new(false)),
        };
        run.active = Some(Active {
            turn: turn.clone(),
            user_text: text.clone(),
            reply: String::new(),
            metrics,
            audio_started: false,
            reply_done: false,
            muted: false,
            speculative,
            nothing_to_say: false,
            utt: 0,
        });
        let after_cut = run.cuts.iter().map(|c| c.turn.id).max();
        self.brain.data.send(Think {
            turn,
            text,
            after_cut,
            judge,
        });
        id
    }

    /// The user started speaking: with a reply in progress (and backchannels allowed) pause
    /// it at once and let the recognizer decide; otherwise cut it off now.
    fn onset(&self, run: &mut Run) {
        if run.hold.is_some() {
            return;
        }
        if is_speculative(run) {
            return self.interrupt(run, Cause::UserSpeech);
        }
        let turn = match &run.active {
            Some(a) if self.backchannel_hold.is_some() && !run.output_down => a.turn.id,
            _ => return self.interrupt(run, Cause::UserSpeech),
        };
        self.playback.hold.store(true, Ordering::Release);
        run.hold = Some(Hold {
            since: self.clock.now(),
        });
        self.emit(run, Event::ReplyPaused { turn });
    }

    /// The user went on right after the turn of an earlier utterance ended (`run.continuing`,
    /// acted on once the onset is confirmed): that turn may have ended at a pause they meant
    /// as one. Its reply pauses as at any onset (cut off where nothing may pause it), and the
    /// recognizer, which hears this utterance as the earlier one's continuation, decides: see
    /// [`join_if_new_words`](Self::join_if_new_words).
    fn go_on(&self, run: &mut Run) {
        let Some((utt, after)) = run.continuing.take() else {
            return;
        };
        self.onset(run);
        // A turn of a later final (a race): the speech is an onset like any other.
        if let Some((_, turn, words)) = run.last_spoken.filter(|(u, ..)| *u == after) {
            run.going_on = Some(GoingOn { utt, turn, words });
        }
    }

    /// Words of the utterance going on from a turn (`run.going_on`) beyond that turn's: the
    /// turn ended at a pause the user meant as one. Its reply stops (also when it played out
    /// meanwhile), its exchange leaves the conversation, and this utterance's final, which
    /// holds the words of both, is the next turn. Returns whether it joined them.
    fn join_if_new_words(&self, run: &mut Run, text: &str) -> bool {
        let Some(g) = run.going_on.filter(|g| word_count(text) > g.words) else {
            return false;
        };
        run.going_on = None;
        if run.active.as_ref().is_some_and(|a| a.turn.id == g.turn) {
            self.interrupt(run, Cause::Continued);
        }
        self.brain.control.send(BrainCtl::Forget { turn: g.turn });
        run.joined = Some(g.utt);
        true
    }

    /// The turn of utterance `utt` is over: later speech is a turn of its own.
    fn close(&self, utt: u64) {
        if utt != 0 {
            let _ = self
                .open_utt
                .compare_exchange(utt, 0, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    /// The speech over a paused reply was no words or only a backchannel (`said`): play on.
    fn resume(&self, run: &mut Run, said: String) {
        if run.hold.take().is_none() {
            return;
        }
        self.playback.hold.store(false, Ordering::Release);
        if let Some(a) = &run.active {
            let turn = a.turn.id;
            self.emit(run, Event::ReplyResumed { turn, said });
        }
    }

    /// Cuts the active reply off: bump the epoch (the output drops its audio at its next
    /// callback), cancel the turn (generation and synthesis stop at their next check). A
    /// reply paused at the user's onset counts as stopped from that onset.
    fn interrupt(&self, run: &mut Run, cause: Cause) {
        if is_speculative(run)
            && let Some(a) = run.active.take()
        {
            return self.forget(a);
        }
        let held = run.hold.take();
        let Some(a) = run.active.take() else {
            if held.is_some() {
                self.playback.hold.store(false, Ordering::Release);
            }
            return;
        };
        if cause != Cause::Continued {
            self.close(a.utt);
        }
        let epoch = self.epoch.fetch_add(1, Ordering::AcqRel) + 1;
        // After the epoch: an output that sees the hold gone also sees the cut.
        if held.is_some() {
            self.playback.hold.store(false, Ordering::Release);
        }
        a.turn.cancel.store(true, Ordering::Release);
        // Paused: the output is silent and its position frozen, so what was heard is known now.
        let heard_at_hold = held.as_ref().map(|_| {
            let st = &*self.playback;
            let played = if st.cur_turn.load(Ordering::Acquire) == a.turn.id.0 {
                st.cur_samples.load(Ordering::Acquire)
            } else {
                0
            };
            lock(&self.timeline).heard(a.turn.id.0, played)
        });
        run.cuts.push(Cut {
            turn: a.turn,
            epoch,
            user_text: a.user_text,
            reply: a.reply,
            metrics: a.metrics,
            cause,
            detected_at: held.map_or_else(|| self.clock.now(), |h| h.since),
            heard_at_hold,
        });
        self.set_state(run, State::Listening);
    }

    /// A reply can be made ahead of time now: nothing else is in progress or unsettled (no
    /// reply playing or paused, no cut awaiting its confirmation) and the output plays.
    fn may_speculate(&self, run: &Run) -> bool {
        self.speculate
            && run.hold.is_none()
            && run.cuts.is_empty()
            && !run.output_down
            && run.active.as_ref().is_none_or(|a| a.speculative)
    }

    /// Starts a reply to the early final `text` while the end of the turn is still being
    /// waited for: the output holds (its audio queues up silent), nothing is shown, the state
    /// stays `Listening`. A reply made ahead to other words goes first.
    fn speculative_turn(&self, run: &mut Run, text: String, judge: Option<u64>) {
        self.interrupt(run, Cause::Superseded);
        let metrics = TurnMetrics {
            speculative: true,
            early_final: Some(ms(self.clock.now())),
            ..TurnMetrics::default()
        };
        self.start_turn(run, text, metrics, true, judge);
    }

    /// The final transcript is the early one: the reply made ahead becomes the turn. Its text
    /// so far is shown, and the output plays its queued audio at the next callback.
    fn confirm(&self, run: &mut Run, utt: Utterance, asr_final: Duration) {
        let Some(a) = run.active.as_mut() else {
            return;
        };
        a.speculative = false;
        a.utt = utt.utt;
        utt.stamp(&mut a.metrics, asr_final);
        run.last_spoken = Some((utt.utt, a.turn.id, word_count(&a.user_text)));
        let (id, text, reply, nothing) = (
            a.turn.id,
            a.user_text.clone(),
            a.reply.clone(),
            a.nothing_to_say,
        );
        self.emit(
            run,
            Event::FinalTranscript {
                text,
                turn: Some(id),
            },
        );
        self.set_state(run, State::Thinking);
        if !reply.is_empty() {
            self.emit(
                run,
                Event::AssistantText {
                    turn: id,
                    text: reply,
                },
            );
        }
        self.playback.hold.store(false, Ordering::Release);
        if nothing {
            if let Some(a) = run.active.take() {
                self.close(a.utt);
                self.record(a.user_text, a.reply, None, a.metrics);
            }
            self.set_state(run, State::Listening);
        } else {
            self.end_if_text_only(run);
        }
    }

    /// Throws a reply made ahead away unheard: its audio is dropped (the epoch), generation
    /// and synthesis stop (the cancel flag), the model takes the exchange back. No event: to
    /// the user it never happened.
    fn forget(&self, a: Active) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
        // After the epoch: an output that sees the hold gone also sees the drop.
        self.playback.hold.store(false, Ordering::Release);
        a.turn.cancel.store(true, Ordering::Release);
        self.brain
            .control
            .send(BrainCtl::Forget { turn: a.turn.id });
    }

    /// The output applied `epoch`: settle every cut it covers with what was heard.
    fn playback_stopped(&self, run: &mut Run, epoch: u64, cut: Option<(TurnId, u64, Duration)>) {
        let (done, waiting): (Vec<Cut>, Vec<Cut>) =
            run.cuts.drain(..).partition(|c| c.epoch <= epoch);
        run.cuts = waiting;
        for c in done {
            let played = match cut {
                Some((t, samples, at)) if t == c.turn.id => {
                    self.lock_outbox()
                        .push_barge_in_stop(ms(at.saturating_sub(c.detected_at)));
                    samples
                }
                _ => 0,
            };
            self.settle(run, c, played);
        }
    }

    /// Settles a cut after `played` samples of its reply: the event, the history, the record.
    fn settle(&self, run: &Run, c: Cut, played: u64) {
        let heard = match c.heard_at_hold {
            Some(h) => h,
            None => lock(&self.timeline).heard(c.turn.id.0, played),
        };
        let during = if played > 0 {
            InterruptedWhile::Speaking
        } else {
            InterruptedWhile::Thinking
        };
        self.emit(
            run,
            Event::Interrupted {
                turn: c.turn.id,
                heard: heard.clone(),
                during,
                cause: c.cause,
            },
        );
        self.brain.control.send(BrainCtl::Truncate {
            turn: c.turn.id,
            heard: heard.clone(),
        });
        self.record(c.user_text, c.reply, Some(heard), c.metrics);
    }

    fn record(&self, user_text: String, reply_text: String, heard: Option<String>, m: TurnMetrics) {
        let total = self.playback.paced_underruns();
        let mut out = self.lock_outbox();
        let rec = TurnRecord {
            turn: 0,
            user_text,
            reply_text,
            heard,
            first_audio_latency_ms: m.first_audio_latency(),
            response_latency_ms: m.response_latency(),
            true_first_audio_latency_ms: m.true_first_audio_latency(),
            underruns: total.map(|n| n.saturating_sub(out.underruns_recorded)),
            metrics: m,
        };
        out.underruns_recorded = total.unwrap_or(out.underruns_recorded);
        out.push_record(rec);
    }

    fn set_state(&self, run: &mut Run, state: State) {
        // A reply that ended some other way while paused (nothing to say, text only) leaves
        // no hold behind for the next one.
        if state == State::Listening && run.active.is_none() && run.hold.take().is_some() {
            self.playback.hold.store(false, Ordering::Release);
        }
        if run.state != state {
            run.state = state;
            self.emit(run, Event::State { state });
        }
    }

    fn emit(&self, run: &Run, event: Event) {
        let stamped = Stamped {
            at_ms: ms(self.clock.now()),
            event,
            source: run.source,
        };
        let mut out = self.lock_outbox();
        if let Event::State { state } = &stamped.event {
            out.state = Some(*state);
        }
        // A subscriber that stopped reading loses events rather than stalling the loop.
        out.subscribers.retain(|s| {
            !matches!(
                s.try_send(stamped.clone()),
                Err(crossbeam_channel::TrySendError::Disconnected(_))
            )
        });
    }

    fn lock_outbox(&self) -> std::sync::MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The active reply is one made ahead of time, not yet confirmed.
fn is_speculative(run: &Run) -> bool {
    run.active.as_ref().is_some_and(|a| a.speculative)
}

fn current(run: &mut Run, turn: TurnId) -> Option<&mut Active> {
    run.active.as_mut().filter(|a| a.turn.id == turn)
}

fn lock(t: &Mutex<Timeline>) -> std::sync::MutexGuard<'_, Timeline> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(text: &str) -> TurnRecord {
        TurnRecord::of_words(text)
    }

    #[test]
    fn the_outbox_keeps_the_newest_records_numbered_over_the_whole_run() {
        let mut out = Outbox::new(3);
        for i in 1..=5 {
            out.push_record(rec(&format!("q{i}")));
            out.push_barge_in_stop(f64::from(i));
        }
        let turns = |v: Vec<TurnRecord>| v.iter().map(|r| r.turn).collect::<Vec<_>>();
        assert_eq!(out.recorded, 5);
        assert_eq!(turns(out.records.iter().cloned().collect()), [3, 4, 5]);
        assert_eq!(out.records[0].user_text, "q3");
        assert_eq!(out.barge_in_stops, [3.0, 4.0, 5.0]);
        // Positions count from the start: a poller's `from` stays valid as old ones go.
        assert_eq!(turns(out.records_since(0)), [3, 4, 5]);
        assert_eq!(turns(out.records_since(3)), [4, 5]);
        assert_eq!(turns(out.records_since(4)), [5]);
        assert!(out.records_since(5).is_empty());
        assert!(out.records_since(9).is_empty());
    }
}
