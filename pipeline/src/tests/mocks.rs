//! Mock engines for the scenario tests: scripted transcripts and replies that take virtual time,
//! and a voice that turns each character into 10 ms of noise.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::clock::Clock;
use crate::engines::energy::EnergyDetector;
use crate::engines::tts::ReplySegmenter;
use crate::engines::{
    ChatEngine, EngineError, EngineResult, Engines, ReplyEnd, Speaker, SpeechDetector, Transcriber,
};

/// What the mock chat was asked to do, in order.
pub(crate) type ChatLog = Arc<Mutex<Vec<String>>>;

/// Returns the scripted transcripts in order, one per utterance; logs how much audio each
/// utterance had (to check the pre-roll).
pub(crate) struct MockTranscriber {
    pub(crate) finals: VecDeque<String>,
    pub(crate) samples: usize,
    pub(crate) heard_samples: Arc<Mutex<Vec<usize>>>,
    /// Per finished utterance: whether it was begun as spoken over a reply.
    pub(crate) over_reply_log: Arc<Mutex<Vec<bool>>>,
    pub(crate) over_reply: bool,
    /// Offer the coming final early, once per utterance, after this many samples.
    pub(crate) early_final_after: Option<usize>,
    pub(crate) early_given: bool,
    /// Early finals that differ from the final (one per utterance, in order); when empty the
    /// early final is the coming final.
    pub(crate) early_texts: VecDeque<String>,
    /// What the recognizer decodes at each pause the capture actor reports, in order (when
    /// empty: as `early_final`). A trailing `~` marks a last word the recognizer doubts
    /// (probability [`DOUBTED_WORD_P`]).
    pub(crate) pause_texts: VecDeque<String>,
    /// The last word probability of the latest pause text.
    pub(crate) last_word_p: f32,
    /// How long each final takes to decode, on this clock (a slow recognizer).
    pub(crate) final_delay: Option<(Clock, Duration)>,
    /// It can start an utterance with the last one's audio (`continue_previous`); the coming
    /// final is then scripted as the words of both.
    pub(crate) can_continue: bool,
    /// Per utterance asked to go on from the last: whether it did.
    pub(crate) continued_log: Arc<Mutex<Vec<bool>>>,
}

impl MockTranscriber {
    /// Gives `finals` in turn, nothing early, at once.
    pub(crate) fn scripted(finals: &[&str]) -> Self {
        Self {
            finals: finals.iter().map(|s| s.to_string()).collect(),
            samples: 0,
            heard_samples: Arc::new(Mutex::new(Vec::new())),
            over_reply_log: Arc::new(Mutex::new(Vec::new())),
            over_reply: false,
            early_final_after: None,
            early_given: false,
            early_texts: VecDeque::new(),
            pause_texts: VecDeque::new(),
            last_word_p: 1.0,
            final_delay: None,
            can_continue: false,
            continued_log: Arc::new(Mutex::new(Vec::new())),
        }
    }
}

/// Mock engines on the real clock over the energy detector: `finals` for spoken turns,
/// `replies` in turn order (a piece every 5 ms).
pub(crate) fn mock_engines(finals: &[&str], replies: Vec<Vec<&'static str>>) -> Engines {
    Engines {
        detector: Box::new(EnergyDetector::new(-40.0)),
        transcriber: Box::new(MockTranscriber::scripted(finals)),
        chat: Box::new(MockChat {
            replies: replies.into(),
            piece_delay: Duration::from_millis(5),
            clock: Clock::real(),
            log: Arc::new(Mutex::new(Vec::new())),
            last: None,
        }),
        segmenter: Box::new(ReplySegmenter::default()),
        speaker: Box::new(MockSpeaker {
            seed: 5,
            fail_on: None,
        }),
        turn: None,
        words_judge: None,
    }
}

/// The last word probability of a pause text marked with `~`.
pub(crate) const DOUBTED_WORD_P: f32 = 0.1;

impl Transcriber for MockTranscriber {
    fn begin(&mut self) {
        self.over_reply = false;
        self.samples = 0;
        self.early_given = false;
    }

    fn over_reply(&mut self) {
        self.over_reply = true;
    }

    fn continue_previous(&mut self) -> bool {
        self.continued_log
            .lock()
            .expect("log")
            .push(self.can_continue);
        self.can_continue
    }

    fn accept(&mut self, samples: &[f32]) -> EngineResult<()> {
        self.samples += samples.len();
        Ok(())
    }

    fn partial(&mut self) -> EngineResult<Option<String>> {
        let first = self
            .finals
            .front()
            .and_then(|t| t.split_whitespace().next());
        Ok(first.map(|w| format!("{w}...")))
    }

    fn early_final(&mut self) -> Option<String> {
        let due = self.early_final_after.is_some_and(|n| self.samples >= n);
        if !due || self.early_given {
            return None;
        }
        self.early_given = true;
        self.early_texts
            .pop_front()
            .or_else(|| self.finals.front().cloned())
    }

    fn early_final_now(&mut self) -> Option<String> {
        self.last_word_p = 1.0;
        match self.pause_texts.pop_front() {
            // Heard nothing (as the real recognizer says nothing new).
            Some(t) if t.is_empty() => None,
            Some(t) => match t.strip_suffix('~') {
                Some(doubted) => {
                    self.last_word_p = DOUBTED_WORD_P;
                    Some(doubted.to_string())
                }
                None => Some(t),
            },
            None => self.early_final(),
        }
    }

    fn early_final_last_word_p(&self) -> f32 {
        self.last_word_p
    }

    fn finish(&mut self) -> EngineResult<String> {
        if let Some((clock, delay)) = &self.final_delay {
            clock.sleep(*delay);
        }
        self.heard_samples.lock().expect("log").push(self.samples);
        self.over_reply_log
            .lock()
            .expect("log")
            .push(self.over_reply);
        Ok(self.finals.pop_front().unwrap_or_default())
    }
}

/// Streams scripted replies, one piece every `piece_delay` of virtual time.
pub(crate) struct MockChat {
    pub(crate) replies: VecDeque<Vec<&'static str>>,
    pub(crate) piece_delay: Duration,
    pub(crate) clock: Clock,
    pub(crate) log: ChatLog,
    /// The last reply's script (put back when the reply is taken back).
    pub(crate) last: Option<Vec<&'static str>>,
}

impl ChatEngine for MockChat {
    fn reply(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> EngineResult<ReplyEnd> {
        let pieces = self.replies.pop_front().unwrap_or_default();
        self.last = Some(pieces.clone());
        let mut said = String::new();
        let mut end = ReplyEnd::Complete;
        for p in pieces {
            self.clock.sleep(self.piece_delay);
            if cancel.load(Ordering::Acquire) || on_piece(p).is_break() {
                end = ReplyEnd::Cancelled;
                break;
            }
            said.push_str(p);
        }
        self.log
            .lock()
            .expect("log")
            .push(format!("reply to {user_text:?}: {said:?} ({end:?})"));
        Ok(end)
    }

    /// Words ending in "of" or "the" are unfinished (0.0), anything else whole (0.9).
    fn turn_end_probability(&mut self, user_text: &str) -> EngineResult<Option<f32>> {
        let last = user_text.split_whitespace().last().unwrap_or_default();
        let p = if matches!(last, "of" | "the") {
            0.0
        } else {
            0.9
        };
        self.log
            .lock()
            .expect("log")
            .push(format!("judge {user_text:?}: {p}"));
        Ok(Some(p))
    }

    fn prefill_user(&mut self, user_text: &str) -> EngineResult<()> {
        self.log
            .lock()
            .expect("log")
            .push(format!("prefill {user_text:?}"));
        Ok(())
    }

    fn truncate_last_reply(&mut self, heard: &str) {
        self.log
            .lock()
            .expect("log")
            .push(format!("truncate to {heard:?}"));
    }

    fn forget_last_exchange(&mut self) {
        self.log.lock().expect("log").push("forget".into());
        // Never said: the next reply is the one this was.
        if let Some(pieces) = self.last.take() {
            self.replies.push_front(pieces);
        }
    }

    fn reset(&mut self) {
        self.log.lock().expect("log").push("reset".into());
    }
}

/// Speaks 10 ms of noise per character, one chunk per word, at 16 kHz.
pub(crate) struct MockSpeaker {
    pub(crate) seed: u32,
    /// A segment containing this text fails (a broken voice, an unspeakable input).
    pub(crate) fail_on: Option<&'static str>,
}

/// Deterministic noise in [-amp, amp] with a syllable-like 4 Hz envelope.
pub(crate) fn noise(seed: &mut u32, n: usize, amp: f32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let white = (*seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0;
            let env = 0.6 + 0.4 * (2.0 * std::f32::consts::PI * 4.0 * i as f32 / 16_000.0).sin();
            white * amp * env
        })
        .collect()
}

impl Speaker for MockSpeaker {
    fn sample_rate(&self) -> u32 {
        16_000
    }

    fn synthesize(
        &mut self,
        text: &str,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> EngineResult<()> {
        if self.fail_on.is_some_and(|f| text.contains(f)) {
            return Err(EngineError::new("the voice model failed on this text"));
        }
        for word in text.split_inclusive(' ') {
            if cancel.load(Ordering::Acquire) {
                break;
            }
            let chunk = noise(&mut self.seed, word.chars().count() * 160, 0.3);
            if on_chunk(&chunk).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// The energy detector, but still calling frames voiced for `lag` frames after the energy
/// dropped: the way a learned VAD (Silero) trails the end of speech.
pub(crate) struct LaggingDetector {
    pub(crate) inner: EnergyDetector,
    pub(crate) lag: u32,
    pub(crate) hold: u32,
}

impl SpeechDetector for LaggingDetector {
    fn frame_len(&self) -> usize {
        self.inner.frame_len()
    }

    fn speech_probability(&mut self, frame: &[f32]) -> f32 {
        if self.inner.speech_probability(frame) >= 0.5 {
            self.hold = self.lag;
            1.0
        } else if self.hold > 0 {
            self.hold -= 1;
            0.9
        } else {
            0.0
        }
    }

    fn reset(&mut self) {
        self.hold = 0;
    }
}
