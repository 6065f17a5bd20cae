//! The capture actor: echo cancellation, speech detection and endpointing with debounce and a
//! pre-roll, push-to-talk, and utterance audio streamed to the recognizer. A turn ends after a
//! fixed silence, or (smart endpointing) when the end-of-turn classifier says it is complete
//! (see `turn_end`), or (semantic endpointing) when the language model judges the words a
//! whole turn (see `text_end`), with a longer silence as the fallback. At every pause of
//! `EndpointConfig::early_final_after` the recognizer is asked to decode the final at once (the
//! reply made ahead starts from it). This is the loop's only voice detector and endpointer: the
//! recognizer has none of its own, and is told where each utterance's speech stopped.

use std::collections::VecDeque;
use std::time::Duration;

use super::judge::TurnVerdict;
use super::text_end::TextEnd;
use super::turn_end::{Decision, SmartEnd};
use super::{AsrMsg, EarsCtl, MicFrame, MicInput, Report};
use crate::chan::{Mail, Mailbox, Tx};
use crate::clock::Clock;
use crate::config::EndpointConfig;
use crate::echo::{EchoCanceller, EchoSetup};
use crate::engines::SpeechDetector;

const TICK: Duration = Duration::from_millis(10);

/// During an utterance, a 10 ms frame this far below the utterance's loudest frame (35 dB, in
/// energy) counts as silence even while the detector still calls it voiced. Speech detectors
/// trail the end of speech (Silero by ~100 ms: its probability decays over a few windows), so
/// without this the end-of-speech wait starts late and the user waits `end_silence` plus the
/// detector's lag. Where the background is within 35 dB of the voice (a noisy room), no frame
/// is this quiet and the detector alone decides, as before.
const QUIET_BELOW_PEAK: f32 = 3.162e-4;

/// Mean square of a frame (its energy per sample).
fn energy(samples: &[f32]) -> f32 {
    samples.iter().map(|s| s * s).sum::<f32>() / samples.len().max(1) as f32
}

enum Phase {
    /// No speech.
    Quiet,
    /// Voice seen, not yet long enough to count.
    Onset { voiced: Duration, silence: Duration },
    /// An utterance in progress.
    Speech {
        silence: Duration,
        last_voiced: Duration,
        length: Duration,
    },
}

pub(crate) struct Ears {
    pub(crate) detector: Box<dyn SpeechDetector>,
    pub(crate) echo: Option<EchoSetup>,
    pub(crate) cfg: EndpointConfig,
    pub(crate) asr: Tx<AsrMsg>,
    pub(crate) report: Tx<Report>,
    pub(crate) clock: Clock,
    /// Smart endpointing (`None`: the fixed `end_silence` rule).
    pub(crate) smart: Option<SmartEnd>,
    /// Semantic endpointing (`None`: not this mode).
    pub(crate) text: Option<TextEnd>,
}

struct State {
    phase: Phase,
    utt: u64,
    preroll: VecDeque<MicFrame>,
    preroll_frames: usize,
    /// The loudest frame energy of the current utterance (from its onset).
    peak: f32,
    /// Detector input not yet a whole detector frame.
    det_buf: Vec<f32>,
    /// The detector's latest decision.
    voiced: bool,
    ptt: bool,
    listening: bool,
    /// Pauses the recognizer was asked to decode at (numbers them).
    pauses: u64,
    /// Audio since the last utterance's speech ended (`None`: none ended, or it was ended by
    /// push-to-talk): speech within `continue_within` of it goes on from it.
    since_speech: Option<Duration>,
}

impl Ears {
    pub(crate) fn run(mut self, inbox: Mailbox<EarsCtl, MicInput>) {
        let mut echo = match self.echo.take().map(EchoCanceller::new) {
            Some(Ok(e)) => Some(e),
            Some(Err(message)) => {
                self.report.send(Report::Error { message });
                None
            }
            None => None,
        };
        let mut st = State {
            phase: Phase::Quiet,
            utt: 0,
            preroll: VecDeque::new(),
            preroll_frames: (self.cfg.preroll.as_millis() / 10) as usize,
            peak: 0.0,
            det_buf: Vec::with_capacity(4096),
            voiced: false,
            ptt: false,
            listening: true,
            pauses: 0,
            since_speech: None,
        };
        while let Some(mail) = inbox.recv() {
            match mail {
                Mail::Control(EarsCtl::PushToTalk(down)) => self.push_to_talk(&mut st, down),
                Mail::Control(EarsCtl::InputLost) => {
                    self.drop_utterance(&mut st);
                    st.det_buf.clear();
                    st.voiced = false;
                }
                Mail::Control(EarsCtl::TextVerdict {
                    pause,
                    p,
                    last_word_p,
                    asks,
                }) => {
                    if let Some(text) = &mut self.text {
                        text.judged(pause, p, last_word_p, asks, self.clock.now());
                    }
                }
                Mail::Control(EarsCtl::Listen(on)) => {
                    st.listening = on;
                    if !on {
                        self.drop_utterance(&mut st);
                    }
                }
                Mail::Data(MicInput::Frame(mut frame)) => {
                    if let Some(echo) = &mut echo {
                        echo.process(&mut frame.samples);
                    }
                    if st.listening {
                        self.on_frame(&mut st, frame);
                    }
                }
                // After every report the frames before it made.
                Mail::Data(MicInput::Mark(mark)) => {
                    self.report.send(Report::Heard { mark });
                }
            }
        }
    }

    fn detect(&mut self, st: &mut State, samples: &[f32]) -> bool {
        let n = self.detector.frame_len().max(1);
        st.det_buf.extend_from_slice(samples);
        let mut used = 0;
        while st.det_buf.len() - used >= n {
            let p = self
                .detector
                .speech_probability(&st.det_buf[used..used + n]);
            st.voiced = p >= self.cfg.threshold;
            used += n;
        }
        st.det_buf.drain(..used);
        st.voiced
    }

    fn on_frame(&mut self, st: &mut State, frame: MicFrame) {
        let voiced = self.detect(st, &frame.samples) || st.ptt;
        let level = energy(&frame.samples);
        if !matches!(st.phase, Phase::Speech { .. })
            && let Some(t) = &mut st.since_speech
        {
            *t += TICK;
        }
        match &mut st.phase {
            Phase::Quiet => {
                if voiced {
                    st.peak = level;
                    self.begin_utterance(st);
                    self.hear(st.utt, frame, true);
                    st.phase = Phase::Onset {
                        voiced: TICK,
                        silence: Duration::ZERO,
                    };
                    self.maybe_confirm(st, frame.at);
                } else {
                    st.preroll.push_back(frame);
                    while st.preroll.len() > st.preroll_frames {
                        st.preroll.pop_front();
                    }
                }
            }
            Phase::Onset { voiced: v, silence } => {
                self.hear(st.utt, frame, voiced);
                st.peak = st.peak.max(level);
                if voiced {
                    *v += TICK;
                    *silence = Duration::ZERO;
                    self.maybe_confirm(st, frame.at);
                } else {
                    *silence += TICK;
                    // A burst shorter than min_speech followed by silence: a cough, a click.
                    if *silence >= self.cfg.min_speech.max(TICK * 10) {
                        self.drop_utterance(st);
                    }
                }
            }
            Phase::Speech {
                silence,
                last_voiced,
                length,
            } => {
                *length += TICK;
                st.peak = st.peak.max(level);
                let quiet = level < st.peak * QUIET_BELOW_PEAK;
                let speaking = voiced && (st.ptt || !quiet);
                let at = frame.at;
                self.hear(st.utt, frame, speaking);
                let pause_at = self.cfg.early_final_after;
                if speaking {
                    // A shorter gap voids nothing.
                    if *silence >= pause_at {
                        self.report.send(Report::SpeechResumed);
                        self.asr.send(AsrMsg::Resumed { utt: st.utt });
                    }
                    if let Some(text) = &mut self.text {
                        text.speech();
                    }
                    *silence = Duration::ZERO;
                    *last_voiced = at;
                } else {
                    *silence += TICK;
                    // The frame the pause reaches `early_final_after`: decode what was said.
                    if *silence >= pause_at && *silence < pause_at + TICK && !st.ptt {
                        st.pauses += 1;
                        let pause = st.pauses;
                        self.asr.send(AsrMsg::Pause { utt: st.utt, pause });
                        if let Some(text) = &mut self.text {
                            text.asked(pause, at);
                        }
                    }
                }
                let decision = match (&mut self.smart, &self.text) {
                    // Push-to-talk: the release ends the turn, never a pause.
                    _ if st.ptt => Decision::Wait,
                    (Some(smart), _) if speaking => {
                        smart.speech();
                        Decision::Wait
                    }
                    (Some(smart), _) => smart.silence(*silence),
                    (None, Some(_)) if speaking => Decision::Wait,
                    (None, Some(text)) => text.silence(*silence),
                    (None, None) if *silence >= self.cfg.end_silence => Decision::End(None),
                    (None, None) => Decision::Wait,
                };
                let forced = *length >= self.cfg.max_utterance;
                let (speech_end, trailing) = (*last_voiced, *silence);
                if let Decision::End(verdict) = decision {
                    self.end_utterance(st, speech_end, trailing, at, verdict);
                } else if forced {
                    self.end_utterance(st, speech_end, trailing, at, None);
                }
            }
        }
    }

    fn maybe_confirm(&mut self, st: &mut State, at: Duration) {
        if let Phase::Onset { voiced, .. } = st.phase
            && (voiced >= self.cfg.min_speech || st.ptt)
        {
            st.phase = Phase::Speech {
                silence: Duration::ZERO,
                last_voiced: at,
                length: voiced,
            };
            self.report.send(Report::SpeechStarted);
        }
    }

    /// Starts utterance `st.utt + 1` with the pre-roll.
    fn begin_utterance(&mut self, st: &mut State) {
        st.utt += 1;
        if let Some(text) = &mut self.text {
            text.speech();
        }
        let utt = st.utt;
        let continues = !st.ptt
            && st
                .since_speech
                .zip(self.cfg.continue_within)
                .is_some_and(|(since, within)| since <= within);
        self.asr.send(AsrMsg::Begin { utt, continues });
        if let Some(smart) = &mut self.smart {
            smart.begin();
        }
        let preroll: Vec<MicFrame> = st.preroll.drain(..).collect();
        for frame in preroll {
            self.hear(utt, frame, false);
        }
    }

    /// Utterance audio: to the recognizer (with whether the user is `speaking` in it), and
    /// kept for the end-of-turn classifier.
    fn hear(&mut self, utt: u64, frame: MicFrame, speaking: bool) {
        if let Some(smart) = &mut self.smart {
            smart.hear(&frame.samples);
        }
        self.asr.send(AsrMsg::Audio {
            utt,
            frame,
            speaking,
        });
    }

    /// Ends the utterance: its speech stopped at `speech_end`, `trailing` of its audio ago.
    fn end_utterance(
        &mut self,
        st: &mut State,
        speech_end: Duration,
        trailing: Duration,
        eou: Duration,
        verdict: Option<TurnVerdict>,
    ) {
        let utt = st.utt;
        self.report.send(Report::SpeechStopped {
            utt,
            speech_end,
            eou,
            turn_p: verdict.and_then(|v| v.p),
            turn_took: verdict.map(|v| v.took),
        });
        self.asr.send(AsrMsg::End {
            utt,
            silence: trailing,
        });
        st.since_speech = Some(trailing);
        st.phase = Phase::Quiet;
        st.preroll.clear();
    }

    fn drop_utterance(&mut self, st: &mut State) {
        if !matches!(st.phase, Phase::Quiet) {
            self.asr.send(AsrMsg::Drop { utt: st.utt });
            self.report.send(Report::SpeechDiscarded);
        }
        st.phase = Phase::Quiet;
        st.preroll.clear();
    }

    fn push_to_talk(&mut self, st: &mut State, down: bool) {
        st.ptt = down;
        let now = self.clock.now();
        match (&st.phase, down) {
            (Phase::Quiet, true) => {
                st.peak = 0.0;
                self.begin_utterance(st);
                st.phase = Phase::Onset {
                    voiced: Duration::ZERO,
                    silence: Duration::ZERO,
                };
                self.maybe_confirm(st, now);
            }
            (Phase::Onset { .. }, true) => self.maybe_confirm(st, now),
            (Phase::Speech { .. } | Phase::Onset { .. }, false) => {
                if matches!(st.phase, Phase::Onset { .. }) {
                    self.drop_utterance(st);
                } else {
                    self.end_utterance(st, now, Duration::ZERO, now, None);
                    // A release is meant: what follows is a turn of its own.
                    st.since_speech = None;
                }
            }
            _ => {}
        }
    }
}
