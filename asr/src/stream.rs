//! Per-utterance streaming recognition, shaped like sherpa-onnx's online stream: `accept`
//! audio, poll `is_endpoint`, read `partial` results while the user speaks, `finish` for
//! the final transcript, `reset` for the next utterance.
//!
//! A stream from [`Recognizer::stream`] finds the utterances itself: audio goes through its
//! VAD and endpointer as it arrives, only audio from shortly before speech start is kept, and
//! an utterance is cut at `max_utterance_ms`, so memory stays bounded on endless input. While
//! speech goes on, the utterance is re-decoded every `partial_interval_ms` of new audio.
//!
//! A stream from [`Recognizer::driven_stream`] has no detector of its own: its caller (the
//! voice loop, whose endpointer decides every turn) gives it one utterance's audio, asks for
//! partials and early finals when it wants them, and says where the speech ended. So a turn
//! has one voice detector and one endpointer, never a second one to keep in step.
//!
//! Either way the last partial's tokens are verified as a draft by the final decode in one
//! batched decoder pass.

use std::sync::Arc;
use std::time::Instant;

use crate::context::Context;
use crate::endpoint::{EndpointEvent, Endpointer};
use crate::error::AsrError;
use crate::hearing::HearingScorer;
use crate::mel::SAMPLE_RATE;
use crate::recognizer::{Recognizer, SPLIT_DEPTH, Transcript};
use crate::resample::Resampler;
use crate::vad::Vad;
use crate::whisper::Session;
use crate::whisper::decode::Search;

/// Speech boundaries of the current utterance, in samples since the stream (or the last
/// `reset`) started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UtteranceSpan {
    pub start: u64,
    /// One past the last voiced sample (`speech_end`), once the endpoint fired.
    pub speech_end: Option<u64>,
    /// Sample at which the endpoint was decided (`eou`).
    pub endpoint_at: Option<u64>,
    /// True when the maximum utterance length forced the end.
    pub forced: bool,
}

/// One utterance at a time of streaming recognition; see the module doc.
#[derive(Debug)]
pub struct AsrStream {
    rec: Arc<Recognizer>,
    session: Option<Session>,
    /// This stream's own voice detector and endpointer; `None` for a driven stream.
    detection: Option<Detection>,
    /// Audio of the current utterance (pre-roll included), 16 kHz mono, repaired.
    audio: Vec<f32>,
    /// Stream sample index of `audio[0]`.
    audio_base: u64,
    /// Total samples accepted since the last reset.
    total: u64,
    span: Option<UtteranceSpan>,
    endpoint: bool,
    partial: Option<String>,
    partial_tokens: Vec<u32>,
    last_partial_len: usize,
    last_partial_ms: f64,
    resampler: Option<Resampler>,
    resampled: Vec<f32>,
    clean: Vec<f32>,
    repaired: usize,
    /// Accepted after the endpoint: kept (bounded) for the next utterance.
    overflow: Vec<f32>,
    /// Final result computed during the end-silence wait.
    speculative: Option<Speculative>,
    /// The prompt this utterance is decoded with (plain again after each reset).
    context: Context,
    /// Picks among a final's hearings (see [`crate::hearing`]); `None`: the recognizer's best.
    scorer: Option<Scorer>,
    /// A driven stream's last finished utterance (up to its speech end and a short tail),
    /// while it is short enough to go on: see [`AsrStream::continue_previous`].
    previous: Vec<f32>,
    /// The current utterance's final was taken ([`AsrStream::finish`]): at the next reset it
    /// becomes `previous` (an utterance dropped unfinished leaves `previous` as it was).
    finished: bool,
}

/// The stream's [`HearingScorer`].
struct Scorer(Box<dyn HearingScorer>);

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HearingScorer")
    }
}

/// The voice detector and endpointer of a stream that finds its utterances itself.
#[derive(Debug)]
struct Detection {
    vad: Vad,
    ep: Endpointer,
}

/// A final decoded before the endpoint, on the assumption that the speech had ended.
#[derive(Debug)]
struct Speculative {
    /// The speech end it was decoded for (by this stream's detector), or for a decode the
    /// caller asked for ([`AsrStream::speculate_now`]), the audio it covered: new text has a
    /// new key.
    key: u64,
    /// Samples of the utterance it decoded (absolute): it is the final as long as the speech
    /// ended within them.
    covered: u64,
    /// Asked for by the caller, whose endpointer is then the judge of whether the speech
    /// resumed ([`AsrStream::speech_resumed`]): this stream's detector trails the end of speech
    /// by up to ~150 ms and would call the decode stale.
    by_caller: bool,
    t: Transcript,
}

/// Audio decoded after the last voiced sample; the final decode is started speculatively once
/// this much silence followed the speech, so its input is already complete.
const TAIL_SAMPLES: u64 = 1600;

/// The longest utterance another may go on from ([`AsrStream::continue_previous`]): 8 s, so
/// with the capture actor's longest utterance (20 s) both fit one decoder window (30 s).
const MAX_PREVIOUS_SAMPLES: usize = 8 * SAMPLE_RATE;

/// Silence put between an utterance and the one that goes on from it (besides the tail kept
/// after the first's speech and the pre-roll before the second's): the pause stays a pause
/// to the recognizer.
const CONTINUE_GAP_SAMPLES: usize = 3200;

impl AsrStream {
    /// A stream with its own voice detector and endpointer (`driven`: without them).
    pub(crate) fn new(rec: Arc<Recognizer>, driven: bool) -> Self {
        let detection = (!driven).then(|| Detection {
            vad: rec.new_vad(),
            // The config was validated when the recognizer loaded.
            ep: Endpointer::new(rec.cfg.endpoint.clone()).unwrap_or_else(|_| unreachable_config()),
        });
        let session = Some(rec.take_session());
        let cap = rec.cfg.endpoint.max_utterance_ms as usize * 16 + SAMPLE_RATE;
        Self {
            rec,
            session,
            detection,
            audio: Vec::with_capacity(cap),
            audio_base: 0,
            total: 0,
            span: None,
            endpoint: false,
            partial: None,
            partial_tokens: Vec::new(),
            last_partial_len: 0,
            last_partial_ms: 0.0,
            resampler: None,
            resampled: Vec::new(),
            clean: Vec::new(),
            repaired: 0,
            overflow: Vec::new(),
            speculative: None,
            context: Context::Plain,
            scorer: None,
            previous: Vec::new(),
            finished: false,
        }
    }

    /// From now on a final decoded with the beam (greedy was unsure) becomes the hearing
    /// that `scorer` and the recognizer together find likeliest ([`crate::hearing::choose`]);
    /// turns spoken over the assistant (`Context::OverReply`) keep the recognizer's best.
    pub fn set_hearing_scorer(&mut self, scorer: Box<dyn HearingScorer>) {
        self.scorer = Some(Scorer(scorer));
    }

    /// Whether the caller decides where utterances start and end ([`Recognizer::driven_stream`]).
    pub fn is_driven(&self) -> bool {
        self.detection.is_none()
    }

    fn pre_roll(&self) -> usize {
        self.rec.cfg.endpoint.pre_roll_ms as usize * 16
    }

    fn max_samples(&self) -> usize {
        if self.is_driven() {
            // The caller cuts its utterances; past one decoder window nothing more is heard.
            self.rec.max_window_samples()
        } else {
            self.rec.cfg.endpoint.max_utterance_ms as usize * 16
        }
    }

    /// Feeds 16 kHz mono samples. NaN/infinite samples become silence and values are clamped
    /// to [-1, 1]. May run a partial decode (every `partial_interval_ms` of speech).
    pub fn accept(&mut self, samples: &[f32]) {
        let mut clean = std::mem::take(&mut self.clean);
        clean.clear();
        self.repaired += crate::audio::sanitize_into(samples, &mut clean);
        for chunk in clean.chunks(4096) {
            self.accept_clean(chunk);
        }
        self.clean = clean;
    }

    /// Feeds interleaved samples at any rate and channel count (converted to 16 kHz mono).
    /// The rate and channel count must stay the same until `reset`.
    pub fn accept_any(
        &mut self,
        samples: &[f32],
        rate: u32,
        channels: u16,
    ) -> Result<(), AsrError> {
        if rate as usize == SAMPLE_RATE && channels == 1 {
            self.accept(samples);
            return Ok(());
        }
        let rs = match &mut self.resampler {
            Some(r) if r.in_rate() == rate && r.channels() == channels => r,
            Some(r) => {
                return Err(AsrError::BadAudio(format!(
                    "stream started at {} Hz x{}, got {rate} Hz x{channels}; call reset() first",
                    r.in_rate(),
                    r.channels()
                )));
            }
            None => self.resampler.insert(Resampler::new(rate, channels)?),
        };
        let mut out = std::mem::take(&mut self.resampled);
        out.clear();
        rs.process(samples, &mut out)?;
        self.accept(&out);
        self.resampled = out;
        Ok(())
    }

    fn accept_clean(&mut self, chunk: &[f32]) {
        if self.is_driven() {
            self.accept_driven(chunk);
            return;
        }
        if self.endpoint {
            // Keep what follows the endpoint for the next utterance, bounded.
            self.overflow.extend_from_slice(chunk);
            let max = self.max_samples();
            if self.overflow.len() > max {
                let drop = self.overflow.len() - max;
                self.overflow.drain(..drop);
            }
            return;
        }
        self.audio.extend_from_slice(chunk);
        self.total += chunk.len() as u64;
        let mut events = [None, None];
        let mut n = 0;
        if let Some(det) = &mut self.detection {
            let ep = &mut det.ep;
            det.vad.accept(chunk, |i, p| {
                if let Some(e) = ep.push(i, p)
                    && n < 2
                {
                    events[n] = Some(e);
                    n += 1;
                }
            });
        }
        for e in events.into_iter().flatten() {
            self.on_event(e);
        }
        if self.span.is_none() {
            // No speech yet: keep only the pre-roll.
            let keep = self.pre_roll() + crate::vad::FRAME;
            if self.audio.len() > 2 * keep {
                let drop = self.audio.len() - keep;
                self.audio.drain(..drop);
                self.audio_base += drop as u64;
            }
        } else if !self.endpoint {
            self.maybe_speculate();
            self.maybe_partial();
        }
    }

    /// A driven stream: all audio is the utterance (up to one decoder window); partials and
    /// early finals are decoded when the caller asks.
    fn accept_driven(&mut self, chunk: &[f32]) {
        if self.span.is_none() {
            self.span = Some(UtteranceSpan::default());
        }
        let room = self.max_samples().saturating_sub(self.audio.len());
        let take = chunk.len().min(room);
        self.audio.extend_from_slice(&chunk[..take]);
        self.total += chunk.len() as u64;
    }

    /// A driven stream's caller says the speech ended `trailing` samples before the end of the
    /// audio given so far (the silence its endpointer waited): the final decodes up to there
    /// plus a short tail, not the whole wait. Ignored by a stream with its own endpointer.
    pub fn speech_ended(&mut self, trailing: u64) {
        if !self.is_driven() {
            return;
        }
        if let Some(s) = &mut self.span {
            let end = self.total.saturating_sub(trailing).max(s.start);
            s.speech_end = Some(end);
            s.endpoint_at = Some(self.total);
            self.endpoint = true;
        }
    }

    fn on_event(&mut self, e: EndpointEvent) {
        match e {
            EndpointEvent::SpeechStart { start, .. } => {
                if self.span.is_none() {
                    let from = start
                        .saturating_sub(self.pre_roll() as u64)
                        .max(self.audio_base);
                    let drop = (from - self.audio_base) as usize;
                    self.audio.drain(..drop.min(self.audio.len()));
                    self.audio_base = from;
                    self.span = Some(UtteranceSpan {
                        start,
                        ..Default::default()
                    });
                }
            }
            EndpointEvent::SpeechEnd {
                speech_end,
                at,
                forced,
            } => {
                if let Some(s) = &mut self.span {
                    s.speech_end = Some(speech_end);
                    s.endpoint_at = Some(at);
                    s.forced = forced;
                    self.endpoint = true;
                    // Audio past the decision point belongs to the next utterance.
                    let keep = (at.saturating_sub(self.audio_base) as usize).min(self.audio.len());
                    let rest = self.audio.split_off(keep);
                    self.overflow.extend_from_slice(&rest);
                }
            }
        }
    }

    /// During the end-silence wait, decode the utterance as it will be if the speech does not
    /// resume, so `finish` after the endpoint has its result at once.
    fn maybe_speculate(&mut self) {
        let Some((end, silent_ms)) = self
            .detection
            .as_ref()
            .and_then(|d| d.ep.trailing_silence())
        else {
            return;
        };
        if !self.rec.cfg.speculative_final {
            return;
        }
        let have = (self.audio_base + self.audio.len() as u64).saturating_sub(end);
        if silent_ms == 0
            || have < TAIL_SAMPLES
            || self
                .speculative
                .as_ref()
                .is_some_and(|s| s.by_caller || s.covered >= end)
        {
            return;
        }
        let n = ((end + TAIL_SAMPLES - self.audio_base) as usize).min(self.audio.len());
        self.speculate(end, n, false);
    }

    /// Decodes the first `n` samples of the utterance as its final, keyed `key`.
    fn speculate(&mut self, key: u64, n: usize, by_caller: bool) {
        if let Ok(t) = self.decode_prefix(n, true) {
            self.partial = Some(t.text.clone());
            self.partial_tokens = t.tokens.clone();
            self.speculative = Some(Speculative {
                key,
                covered: self.audio_base + n as u64,
                by_caller,
                t,
            });
        }
    }

    /// Decodes the utterance so far now, as its final if the speech does not resume: for a
    /// caller whose own endpointer saw the pause before this stream's detector (which trails
    /// the end of speech by ~100-150 ms) would. It stays the final until the caller reports
    /// [`speech_resumed`](AsrStream::speech_resumed). Returns the text (see [`early_final`]);
    /// `None` before speech or after the endpoint.
    ///
    /// [`early_final`]: AsrStream::early_final
    pub fn speculate_now(&mut self) -> Option<(u64, &str)> {
        if self.span.is_none() || self.endpoint || !self.rec.cfg.speculative_final {
            return None;
        }
        let covered = self.audio_base + self.audio.len() as u64;
        if self
            .speculative
            .as_ref()
            .is_none_or(|s| s.covered < covered)
        {
            self.speculate(covered, self.audio.len(), true);
        }
        self.early_final()
    }

    /// The caller's endpointer heard speech again after the pause of
    /// [`speculate_now`](AsrStream::speculate_now): that decode is no longer the final.
    pub fn speech_resumed(&mut self) {
        if self.speculative.as_ref().is_some_and(|s| s.by_caller) {
            self.speculative = None;
        }
    }

    fn maybe_partial(&mut self) {
        self.partial_after(self.rec.cfg.partial_interval_ms as usize * 16);
    }

    /// A driven stream's partial, decoded now on the audio given so far when there is new
    /// audio (and its last decode does not say the device is too slow: see below); the latest
    /// partial otherwise. `None` before any audio or when nothing was heard.
    pub fn partial_now(&mut self) -> Option<String> {
        if self.span.is_some() && !self.endpoint {
            self.partial_after(1);
        }
        self.partial()
    }

    /// Decodes a partial once `interval` samples of new audio came in since the last one.
    fn partial_after(&mut self, interval: usize) {
        // Never spend more than about a third of real time on partials: on a slow device the
        // interval stretches to three times the last partial's compute time.
        let busy = (self.last_partial_ms * 3.0 * 16.0) as usize;
        if self.audio.len() < self.last_partial_len + interval.max(busy) {
            return;
        }
        self.last_partial_len = self.audio.len();
        let t0 = Instant::now();
        let r = self.decode_current(false);
        self.last_partial_ms = t0.elapsed().as_secs_f64() * 1e3;
        if let Ok(t) = r {
            self.partial = Some(t.text);
            self.partial_tokens = t.tokens;
        }
    }

    /// Audio of the utterance to decode: up to the speech end plus a short tail.
    fn utterance_audio_len(&self) -> usize {
        match self.span.and_then(|s| s.speech_end) {
            Some(end) => ((end + TAIL_SAMPLES).saturating_sub(self.audio_base) as usize)
                .min(self.audio.len()),
            None => self.audio.len(),
        }
    }

    fn decode_current(&mut self, is_final: bool) -> Result<Transcript, AsrError> {
        self.decode_prefix(self.utterance_audio_len(), is_final)
    }

    /// Decodes the first `n` samples: as a final (`is_final`: greedy verifying the last
    /// partial as a draft, then beam search when configured and greedy was not sure) or as a
    /// greedy partial.
    fn decode_prefix(&mut self, n: usize, is_final: bool) -> Result<Transcript, AsrError> {
        let n = n.min(self.rec.max_window_samples());
        let mut session = self
            .session
            .take()
            .unwrap_or_else(|| self.rec.take_session());
        let draft = if is_final {
            std::mem::take(&mut self.partial_tokens)
        } else {
            Vec::new()
        };
        let audio = &self.audio[..n];
        let r = if is_final {
            self.rec
                .decode_final(&mut session, audio, &draft, self.context, SPLIT_DEPTH)
        } else {
            self.rec
                .decode_window(&mut session, audio, &draft, Search::GREEDY, self.context)
        };
        self.session = Some(session);
        if !draft.is_empty() {
            self.partial_tokens = draft;
        }
        let mut t = r?.0;
        if let Some(Scorer(scorer)) = self.scorer.as_mut().filter(|_| is_final)
            && self.context == Context::Plain
            && !t.others.is_empty()
        {
            let t0 = Instant::now();
            crate::hearing::choose(&mut t, scorer.as_mut());
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            t.timings.hearing_ms = ms;
            t.timings.total_ms += ms;
        }
        Ok(t)
    }

    /// Samples held by the stream (utterance audio plus audio kept for the next one); bounded
    /// by the maximum utterance length whatever the caller feeds.
    pub fn buffered_samples(&self) -> usize {
        self.audio.len() + self.overflow.len()
    }

    /// True once the endpointer decided the utterance ended (silence or maximum length).
    pub fn is_endpoint(&self) -> bool {
        self.endpoint
    }

    /// True while speech has started and not yet ended.
    pub fn in_speech(&self) -> bool {
        self.span.is_some() && !self.endpoint
    }

    /// Speech boundaries of the current utterance, once speech started.
    pub fn span(&self) -> Option<UtteranceSpan> {
        self.span
    }

    /// The latest partial text of the current utterance.
    pub fn partial(&self) -> Option<String> {
        self.partial.clone()
    }

    /// Final transcript of the current utterance (the audio so far if no endpoint fired).
    /// Without detected speech it returns an empty transcript marked as silence. Call
    /// `reset` before the next utterance.
    pub fn finish(&mut self) -> Result<Transcript, AsrError> {
        let t0 = Instant::now();
        self.finished = true;
        if self.span.is_none() {
            return Ok(Transcript {
                is_silence: true,
                no_speech_prob: 1.0,
                ..Default::default()
            });
        }
        // Without an endpoint (the caller's own endpointer decided), the speech still ended at
        // the last voiced sample if silence followed it.
        let end = self.span.and_then(|s| s.speech_end).or_else(|| {
            self.detection
                .as_ref()
                .and_then(|d| d.ep.trailing_silence())
                .filter(|&(_, ms)| ms > 0)
                .map(|(e, _)| e)
        });
        let mut t = match self.speculative.take() {
            // Decoded during the end-silence wait on all of this speech.
            Some(s) if s.by_caller || end.is_some_and(|e| e <= s.covered) => Transcript {
                timings: crate::recognizer::Timings {
                    speculative: true,
                    ..s.t.timings
                },
                ..s.t
            },
            _ => self.decode_current(true)?,
        };
        t.timings.total_ms = t0.elapsed().as_secs_f64() * 1e3;
        t.timings.repaired_samples = self.repaired;
        Ok(t)
    }

    /// The final transcript decoded early, during the end-silence wait (see
    /// `RecognizerConfig::speculative_final`): `finish` returns it if the speech does not
    /// resume. The number identifies the speech end it was decoded for (a new one means new
    /// text); `None` while there is none, or when it heard no speech.
    pub fn early_final(&self) -> Option<(u64, &str)> {
        self.speculative
            .as_ref()
            .filter(|s| !s.t.is_silence)
            .map(|s| (s.key, s.t.text.as_str()))
    }

    /// The probability of the last word of [`early_final`](AsrStream::early_final)'s text
    /// (see [`Transcript::last_word_prob`]); 1.0 without an early final.
    pub fn early_final_last_word_p(&self) -> f32 {
        self.speculative
            .as_ref()
            .filter(|s| !s.t.is_silence)
            .map_or(1.0, |s| s.t.last_word_prob)
    }

    /// Decodes the current utterance with the prompt of `context` from now on (until the next
    /// [`reset`](Self::reset)): [`Context::OverReply`] when it began over the assistant's
    /// speech. A result already decoded early in another context is decoded again.
    pub fn set_context(&mut self, context: Context) {
        if context != self.context {
            self.context = context;
            self.speculative = None;
            self.partial_tokens.clear();
        }
    }

    /// Starts the next utterance. Audio accepted after the endpoint is replayed into it.
    pub fn reset(&mut self) {
        if std::mem::take(&mut self.finished) && self.is_driven() {
            self.previous.clear();
            let n = self.utterance_audio_len();
            if self.span.is_some() && n <= MAX_PREVIOUS_SAMPLES {
                self.previous.extend_from_slice(&self.audio[..n]);
            }
        }
        self.context = Context::Plain;
        let overflow = std::mem::take(&mut self.overflow);
        self.audio.clear();
        self.audio_base = 0;
        self.total = 0;
        self.span = None;
        self.endpoint = false;
        self.partial = None;
        self.partial_tokens.clear();
        self.speculative = None;
        self.last_partial_len = 0;
        self.last_partial_ms = 0.0;
        self.repaired = 0;
        if let Some(d) = &mut self.detection {
            d.vad.reset();
            d.ep.reset();
        }
        self.resampler = None;
        if !overflow.is_empty() {
            self.accept(&overflow);
        }
        self.overflow = overflow;
        self.overflow.clear();
    }
}

impl AsrStream {
    /// A driven stream's caller heard the user go on right after the last finished utterance
    /// (its turn ended at a pause the user meant as one): call just after [`reset`]; that
    /// utterance's audio, then a short silence, starts this one, so its partials, early
    /// finals and final are the words of both. `false` (and nothing changes) when there is no
    /// such utterance (none finished since the last one went on, or it was longer than 8 s),
    /// audio was already given, or the stream finds its own utterances.
    ///
    /// [`reset`]: AsrStream::reset
    pub fn continue_previous(&mut self) -> bool {
        if !self.is_driven() || self.previous.is_empty() || !self.audio.is_empty() {
            return false;
        }
        self.audio.extend_from_slice(&self.previous);
        self.audio
            .resize(self.audio.len() + CONTINUE_GAP_SAMPLES, 0.0);
        self.previous.clear();
        self.total = self.audio.len() as u64;
        self.span = Some(UtteranceSpan::default());
        true
    }
}

impl Drop for AsrStream {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            self.rec.put_session(s);
        }
    }
}

fn unreachable_config() -> Endpointer {
    Endpointer::new(Default::default())
        .unwrap_or_else(|_| panic!("default endpoint config is valid"))
}
