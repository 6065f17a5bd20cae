//! The shared [`Recognizer`]: loads a Whisper folder once, transcribes whole clips, and hands
//! out per-utterance streams.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::RecognizerConfig;
use crate::context::Context;
use crate::error::AsrError;
use crate::long_pause::{self, LongPauses};
use crate::mel::SAMPLE_RATE;
use crate::stream::AsrStream;
use crate::whisper::decode::Search;
use crate::whisper::{Padding, Session, StageTimes, Whisper};

/// How many times a final that stopped at a long pause is cut again (at most 2^depth pieces).
pub(crate) const SPLIT_DEPTH: u32 = 3;

/// Result of recognizing one utterance (or one clip).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Transcript {
    /// Recognized text, trimmed; empty when no speech was found.
    pub text: String,
    /// Probability of `<|nospeech|>` at the first step (highest over windows of a long clip).
    pub no_speech_prob: f32,
    /// Average log-probability of the decoded tokens.
    pub avg_logprob: f32,
    /// True when the no-speech rule dropped the decoded text.
    pub is_silence: bool,
    /// Text token ids.
    pub tokens: Vec<u32>,
    /// Log-probability of each text token (one per entry of `tokens`).
    pub token_logprobs: Vec<f32>,
    /// Probability of the last word heard (meaningful when `text` is not empty): a low one
    /// often means a word the model invented to finish a fragment (see
    /// [`crate::confidence`]).
    pub last_word_prob: f32,
    /// Seconds of audio recognized.
    pub audio_secs: f64,
    pub timings: Timings,
    /// The beam search's other hearings of the audio, likeliest first (empty when greedy
    /// decoding was sure, or the audio took more than one window).
    pub others: Vec<OtherHearing>,
}

/// Another hearing of the same audio: the text and the recognizer's score of it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct OtherHearing {
    pub text: String,
    /// Summed log-probability of its tokens (and its end-of-text).
    pub sum_logprob: f32,
    /// Text token ids.
    pub tokens: Vec<u32>,
    /// Log-probability of each text token.
    pub token_logprobs: Vec<f32>,
    /// Probability of its last word (as [`Transcript::last_word_prob`]).
    pub last_word_prob: f32,
}

/// Where the time went, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Timings {
    pub mel_ms: f64,
    /// Encoder plus the decoder's cross-attention keys/values.
    pub encoder_ms: f64,
    pub decoder_ms: f64,
    pub total_ms: f64,
    /// Decoder passes (prompt pass + sequential steps).
    pub decoder_passes: usize,
    /// Tokens taken from the previous partial result without a sequential step.
    pub draft_accepted: usize,
    /// Samples replaced because they were NaN/infinite, or clamped to [-1, 1].
    pub repaired_samples: usize,
    /// The final result was decoded during the end-silence wait (streams only): `total_ms`
    /// is then the time `finish` took, the stage times are those of the earlier decode.
    pub speculative: bool,
    /// Beam search decoded the text (greedy was not sure enough, or the beam always runs).
    pub beam_searched: bool,
    /// A language model's time choosing among the beam's hearings (streams with a
    /// [`crate::hearing::HearingScorer`]; included in `total_ms`).
    pub hearing_ms: f64,
}

impl Timings {
    fn add(&mut self, s: StageTimes) {
        self.mel_ms += s.mel_ms;
        self.encoder_ms += s.encoder_ms;
        self.decoder_ms += s.decoder_ms;
    }
}

/// Immutable model + configuration, shared with `Arc` by every stream.
#[derive(Debug)]
pub struct Recognizer {
    pub(crate) model: Whisper,
    pub(crate) cfg: RecognizerConfig,
    /// The prompt of plain utterances (after `cfg.plain_text` when it is set), and its
    /// start-of-transcript index.
    prompt: Vec<u32>,
    sot_index: usize,
    /// The prompt with `cfg.over_reply_text` before it, and its start-of-transcript index.
    over_reply: Option<(Vec<u32>, usize)>,
    /// With `cfg.plain_text`: the prompt without it, and the texts that echo it (see
    /// [`crate::context::Echoes`]). A plain utterance decoded as an echo is decoded again
    /// with the bare prompt.
    bare: Option<(Vec<u32>, usize, crate::context::Echoes)>,
    sessions: Mutex<Vec<Session>>,
    /// Loaded Silero weights, cloned into each stream's VAD.
    silero: Option<crate::silero::Silero>,
}

impl Recognizer {
    /// Loads a CTranslate2 Whisper folder (`model.bin`, `vocabulary.txt`, `config.json`).
    pub fn load(model_dir: &Path, cfg: RecognizerConfig) -> Result<Arc<Self>, AsrError> {
        cfg.validate()?;
        let mut model = Whisper::load(model_dir, cfg.weight_format, cfg.threads)?;
        if cfg.virtual_window {
            model.silence = Some(crate::whisper::encoder::SilenceContext::build(
                &model.weights,
                &model.pool,
                model.isa,
                cfg.silence_floor,
            )?);
        }
        let (bare, bare_sot) = model.prompt(cfg.language.as_deref())?;
        // The prompt goes through the decoder in one batch, with room left for a draft.
        let most = crate::whisper::decoder::MAX_BATCH / 2;
        let after = |text: &str, name: &str| {
            let p = crate::context::with_previous_text(&model.vocab, text, &bare, bare_sot);
            match p {
                Some((p, _)) if p.len() > most => Err(AsrError::BadConfig(format!(
                    "{name} makes a prompt of {} tokens; at most {most} fit",
                    p.len()
                ))),
                p => Ok(p),
            }
        };
        let over_reply = after(&cfg.over_reply_text, "over_reply_text")?;
        let (prompt, sot_index, bare) = match after(&cfg.plain_text, "plain_text")? {
            Some((p, i)) => (
                p,
                i,
                Some((bare, bare_sot, crate::context::Echoes::of(&cfg.plain_text))),
            ),
            None => (bare, bare_sot, None),
        };
        let silero = match &cfg.vad_model {
            Some(p) => Some(crate::silero::Silero::load(p)?),
            None => None,
        };
        Ok(Arc::new(Self {
            model,
            cfg,
            prompt,
            sot_index,
            over_reply,
            bare,
            sessions: Mutex::new(Vec::new()),
            silero,
        }))
    }

    pub fn config(&self) -> &RecognizerConfig {
        &self.cfg
    }

    /// Bytes held by the weights.
    pub fn weight_bytes(&self) -> usize {
        self.model.weights.size_bytes()
    }

    /// A new streaming recognizer for one utterance at a time, finding the utterances with
    /// its own voice detector and endpointer (`RecognizerConfig::endpoint`).
    pub fn stream(self: &Arc<Self>) -> AsrStream {
        AsrStream::new(Arc::clone(self), false)
    }

    /// A new streaming recognizer driven by a caller that detects speech and decides where
    /// each utterance ends itself (the voice loop): everything it is given between `reset`s is
    /// the utterance, partials and early finals are decoded when the caller asks
    /// ([`AsrStream::partial_now`], [`AsrStream::speculate_now`]), and the caller says where
    /// the speech ended ([`AsrStream::speech_ended`]). `RecognizerConfig::endpoint` and
    /// `partial_interval_ms` do not apply to it.
    pub fn driven_stream(self: &Arc<Self>) -> AsrStream {
        AsrStream::new(Arc::clone(self), true)
    }

    /// Recognizes a whole clip of 16 kHz mono samples. Clips longer than the model's 30 s
    /// window are cut at the quietest point near each window end and decoded window by window.
    pub fn transcribe(&self, samples_16k_mono: &[f32]) -> Result<Transcript, AsrError> {
        self.transcribe_in(samples_16k_mono, Context::Plain)
    }

    /// [`transcribe`](Self::transcribe) with the prompt of `context`.
    pub fn transcribe_in(
        &self,
        samples_16k_mono: &[f32],
        context: Context,
    ) -> Result<Transcript, AsrError> {
        if samples_16k_mono.is_empty() {
            return Err(AsrError::BadAudio("no samples (empty audio)".into()));
        }
        let mut session = self.take_session();
        let t0 = Instant::now();
        let mut clean = Vec::with_capacity(samples_16k_mono.len());
        let repaired = crate::audio::sanitize_into(samples_16k_mono, &mut clean);
        let window = self.max_window_samples();
        let mut out = Transcript {
            audio_secs: clean.len() as f64 / SAMPLE_RATE as f64,
            last_word_prob: 1.0,
            ..Default::default()
        };
        let mut start = 0;
        let mut texts = Vec::new();
        let mut first = true;
        while start < clean.len() {
            let end = crate::audio::cut_point(&clean, start, window);
            let r =
                self.decode_final(&mut session, &clean[start..end], &[], context, SPLIT_DEPTH)?;
            out.timings.add(r.1);
            out.timings.decoder_passes += r.0.timings.decoder_passes;
            out.timings.beam_searched |= r.0.timings.beam_searched;
            if first || r.0.no_speech_prob > out.no_speech_prob {
                out.no_speech_prob = r.0.no_speech_prob;
            }
            if first {
                out.avg_logprob = r.0.avg_logprob;
                out.is_silence = r.0.is_silence;
            } else {
                out.is_silence &= r.0.is_silence;
            }
            first = false;
            if !r.0.text.is_empty() {
                texts.push(r.0.text);
            }
            if !r.0.tokens.is_empty() {
                out.last_word_prob = r.0.last_word_prob;
            }
            out.tokens.extend(r.0.tokens);
            out.token_logprobs.extend(r.0.token_logprobs);
            // Other hearings of one window do not make other hearings of the whole.
            out.others = if start == 0 && end == clean.len() {
                r.0.others
            } else {
                Vec::new()
            };
            start = end;
        }
        out.text = texts.join(" ");
        out.timings.total_ms = t0.elapsed().as_secs_f64() * 1e3;
        out.timings.repaired_samples = repaired;
        self.put_session(session);
        Ok(out)
    }

    /// Longest window the encoder takes, after the configured tail padding.
    pub(crate) fn max_window_samples(&self) -> usize {
        let full = self.model.weights.dims.audio_ctx * 2 * crate::mel::HOP;
        full.saturating_sub(self.cfg.tail_pad_samples())
            .max(SAMPLE_RATE)
    }

    /// How final results are searched for: `beam_size` hypotheses, when greedy decoding is
    /// less sure than `beam_below_p`.
    pub(crate) fn final_search(&self) -> Search {
        self.cfg.final_search()
    }

    /// Decodes one window (at most 30 s of clean samples), applying the no-speech rule: greedy
    /// (verifying `draft`), then beam search when `search` asks for it.
    pub(crate) fn decode_window(
        &self,
        session: &mut Session,
        samples: &[f32],
        draft: &[u32],
        search: Search,
        context: Context,
    ) -> Result<(Transcript, StageTimes), AsrError> {
        let (prompt, sot_index) = match (context, &self.over_reply) {
            (Context::OverReply, Some((p, i))) => (p.as_slice(), *i),
            _ => (self.prompt.as_slice(), self.sot_index),
        };
        let pad = Padding {
            min_samples: self.cfg.min_input_samples(),
            tail_samples: self.cfg.tail_pad_samples(),
        };
        let secs = samples.len() as f64 / SAMPLE_RATE as f64;
        let max_tokens = (self.cfg.max_tokens_per_second * secs).ceil() as usize + 8;
        let (d, mut st) = session.run(
            &self.model,
            samples,
            pad,
            prompt,
            sot_index,
            draft,
            max_tokens,
            search,
        )?;
        let mut t = self.transcript(d, secs);
        if let Some((bare, bare_sot, echoes)) = &self.bare
            && context == Context::Plain
            && echoes.echo(&t.text)
        {
            // Unclear speech after earlier text is sometimes "heard" as that text itself
            // ("What is the weather like today?" for a garbled question): decode the audio
            // the session holds encoded again without the earlier text, and keep that.
            let t0 = std::time::Instant::now();
            let d = session.decode(&self.model, bare, *bare_sot, &[], max_tokens, search)?;
            st.decoder_ms += t0.elapsed().as_secs_f64() * 1e3;
            t = self.transcript(d, secs);
        }
        Ok((with_stage_times(t, st), st))
    }

    /// The transcript of decoded tokens `d` of `secs` of audio, applying the no-speech rule
    /// (its stage times are [`with_stage_times`]'s to set).
    fn transcript(&self, d: crate::whisper::decode::Decoded, secs: f64) -> Transcript {
        let silence = (d.no_speech_prob > self.cfg.no_speech_threshold
            && d.avg_logprob < self.cfg.logprob_threshold)
            || d.no_speech_prob > self.cfg.no_speech_certain
            || d.tokens.is_empty();
        let text = if silence {
            String::new()
        } else {
            self.model.vocab.decode(&d.tokens).trim().to_string()
        };
        let last_word_prob = if silence {
            1.0
        } else {
            crate::confidence::last_word_prob(&self.model.vocab, &d.tokens, &d.token_logprobs)
        };
        let others = if silence {
            Vec::new()
        } else {
            d.others
                .into_iter()
                .map(|h| OtherHearing {
                    text: self.model.vocab.decode(&h.tokens).trim().to_string(),
                    sum_logprob: h.sum_logprob,
                    last_word_prob: crate::confidence::last_word_prob(
                        &self.model.vocab,
                        &h.tokens,
                        &h.token_logprobs,
                    ),
                    tokens: h.tokens,
                    token_logprobs: h.token_logprobs,
                })
                .collect()
        };
        Transcript {
            others,
            last_word_prob,
            text,
            no_speech_prob: d.no_speech_prob,
            avg_logprob: d.avg_logprob,
            is_silence: silence,
            tokens: if silence { Vec::new() } else { d.tokens },
            token_logprobs: if silence {
                Vec::new()
            } else {
                d.token_logprobs
            },
            audio_secs: secs,
            timings: Timings {
                decoder_passes: d.passes,
                draft_accepted: d.draft_accepted,
                beam_searched: d.beam_searched,
                ..Timings::default()
            },
        }
    }

    /// [`decode_window`](Self::decode_window) for a final result. When its text may have
    /// stopped at a long pause (see [`crate::long_pause`]: the window has one, and the text
    /// does not end with the last piece of speech decoded alone), the window is cut in the middle of its
    /// longest pause and each side decoded as a final on its own (again, up to `depth` times);
    /// the joined text is kept when it holds a few more words (a tail decoded alone is often
    /// garbled, and then the split gains nothing).
    pub(crate) fn decode_final(
        &self,
        session: &mut Session,
        samples: &[f32],
        draft: &[u32],
        context: Context,
        depth: u32,
    ) -> Result<(Transcript, StageTimes), AsrError> {
        let (t, mut st) =
            self.decode_window(session, samples, draft, self.final_search(), context)?;
        let pauses = match LongPauses::find(samples) {
            Some(p) if depth > 0 && !t.is_silence => p,
            _ => return Ok((t, st)),
        };
        let tail = &samples[pauses.last_mid..];
        let (last, s) = self.decode_window(session, tail, &[], Search::GREEDY, context)?;
        st += s;
        let out = if last.is_silence || long_pause::ends_with(&t.text, &last.text) {
            t
        } else {
            let cut = pauses.longest_mid;
            let (a, sa) = self.decode_final(session, &samples[..cut], &[], context, depth - 1)?;
            let (b, sb) = self.decode_final(session, &samples[cut..], &[], context, depth - 1)?;
            st += sa;
            st += sb;
            let words = |t: &Transcript| t.text.split_whitespace().count();
            if words(&a) + words(&b) >= words(&t) + long_pause::MIN_WORDS_GAINED {
                long_pause::joined(a, b)
            } else {
                t
            }
        };
        // Every decode above, the whole window's and the tail's included.
        Ok((with_stage_times(out, st), st))
    }

    /// A fresh VAD of the configured kind.
    pub fn new_vad(&self) -> crate::Vad {
        match &self.silero {
            Some(s) => crate::Vad::from_silero(s.clone()),
            None => crate::Vad::new(),
        }
    }

    pub(crate) fn take_session(&self) -> Session {
        let cached = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        cached.unwrap_or_else(|| Session::new(&self.model))
    }

    pub(crate) fn put_session(&self, s: Session) {
        let mut v = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() < 2 {
            v.push(s);
        }
    }
}

/// `t` with its stage times (and their total) set to `st`.
fn with_stage_times(mut t: Transcript, st: StageTimes) -> Transcript {
    t.timings.mel_ms = st.mel_ms;
    t.timings.encoder_ms = st.encoder_ms;
    t.timings.decoder_ms = st.decoder_ms;
    t.timings.total_ms = st.mel_ms + st.encoder_ms + st.decoder_ms;
    t
}
