//! The recognizer actor: streams utterance audio into the transcriber, decodes partial
//! transcripts at an interval while the user speaks and it keeps up with real time, the final
//! early at each pause the capture actor hears, and the final one at the end (up to where that
//! actor says the speech stopped). An
//! utterance that begins while a reply plays is decoded expecting a backchannel or a command.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::{AsrMsg, Report};
use crate::chan::{Rx, Tx};
use crate::clock::Clock;
use crate::echo::FRAME;
use crate::engines::Transcriber;
use crate::ring::PlaybackState;

pub(crate) struct Asr {
    pub(crate) transcriber: Box<dyn Transcriber>,
    pub(crate) partial_interval: Option<Duration>,
    pub(crate) report: Tx<Report>,
    pub(crate) clock: Clock,
    /// Whether a reply is playing when an utterance begins.
    pub(crate) playback: Arc<PlaybackState>,
    /// The utterance whose turn the user may still go on from (see `Conductor::open_utt`):
    /// set here at each final with words.
    pub(crate) open_utt: Arc<AtomicU64>,
}

impl Asr {
    pub(crate) fn run(mut self, inbox: Rx<AsrMsg>) {
        let mut current: Option<u64> = None;
        let mut since_partial = Duration::ZERO;
        let mut failed = false;
        let frame_time = Duration::from_millis((FRAME as u64 * 1000) / 16_000);
        while let Some(msg) = inbox.recv() {
            match msg {
                AsrMsg::Begin { utt, continues } => {
                    self.transcriber.begin();
                    let after = self.open_utt.load(Ordering::Acquire);
                    match after {
                        // The user's own words going on: decoded as such, not as speech
                        // over the reply to their first half.
                        1.. if continues && self.transcriber.continue_previous() => {
                            self.report.send(Report::Continues { utt, after });
                        }
                        _ if self.playback.reply_under_way() => self.transcriber.over_reply(),
                        _ => {}
                    }
                    current = Some(utt);
                    since_partial = Duration::ZERO;
                    failed = false;
                }
                AsrMsg::Audio {
                    utt,
                    frame,
                    speaking,
                } if current == Some(utt) && !failed => {
                    if let Err(e) = self.transcriber.accept(&frame.samples) {
                        failed = true;
                        self.error(format!("speech recognition failed: {e}"));
                        continue;
                    }
                    if let Some(text) = self.transcriber.early_final() {
                        self.report.send(Report::EarlyFinal {
                            text,
                            pause: None,
                            last_word_p: self.transcriber.early_final_last_word_p(),
                        });
                    }
                    since_partial += frame_time;
                    let Some(interval) = self.partial_interval else {
                        continue;
                    };
                    // Decode a partial only when due and only on fresh audio: when frames queue
                    // up (we are behind real time), skip it so the final is not delayed. And only
                    // while the user speaks: a quiet frame may be a pause's first, whose early
                    // final would wait for the partial, and in a pause (every frame of it quiet)
                    // the early final already holds the words while the end-of-turn judge and
                    // the reply's prefill need the cores (the partial comes on the next spoken
                    // frame instead).
                    let fresh = self.clock.now().saturating_sub(frame.at) < interval / 2;
                    if since_partial >= interval && fresh && speaking {
                        since_partial = Duration::ZERO;
                        match self.transcriber.partial() {
                            Ok(Some(text)) if !text.trim().is_empty() => {
                                self.report.send(Report::Partial { text });
                            }
                            Ok(_) => {}
                            Err(e) => self.error(format!("partial transcript failed: {e}")),
                        }
                    }
                }
                AsrMsg::Audio { .. } => {}
                AsrMsg::End { utt, silence } if current == Some(utt) => {
                    current = None;
                    let text = if failed {
                        String::new()
                    } else {
                        self.transcriber.speech_ended(silence);
                        match self.transcriber.finish() {
                            Ok(t) => t.trim().to_string(),
                            Err(e) => {
                                self.error(format!("speech recognition failed: {e}"));
                                String::new()
                            }
                        }
                    };
                    // Set before the turn exists: an utterance begun meanwhile may go on from it.
                    self.open_utt
                        .store(if text.is_empty() { 0 } else { utt }, Ordering::Release);
                    let at = self.clock.now();
                    self.report.send(Report::Final { utt, text, at });
                }
                AsrMsg::End { .. } => {}
                AsrMsg::Pause { utt, pause } if current == Some(utt) && !failed => {
                    if let Some(text) = self.transcriber.early_final_now() {
                        self.report.send(Report::EarlyFinal {
                            text,
                            pause: Some(pause),
                            last_word_p: self.transcriber.early_final_last_word_p(),
                        });
                    }
                }
                AsrMsg::Resumed { utt } if current == Some(utt) => {
                    self.transcriber.speech_resumed();
                }
                AsrMsg::Pause { .. } | AsrMsg::Resumed { .. } => {}
                AsrMsg::Drop { utt } => {
                    if current == Some(utt) {
                        current = None;
                    }
                }
            }
        }
    }

    fn error(&self, message: String) {
        self.report.send(Report::Error { message });
    }
}
