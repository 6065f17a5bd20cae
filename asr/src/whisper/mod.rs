//! The Whisper model: weights, vocabulary and token rules loaded from a CTranslate2 folder,
//! and a [`Session`] (preallocated buffers) that turns 16 kHz samples into tokens.

pub mod beam;
pub mod decode;
pub mod decoder;
pub mod encoder;
mod ops;
pub mod silence;
#[cfg(test)]
mod tests;
pub mod weights;

use std::path::Path;
use std::time::Instant;

use crate::ct2::Ct2Model;
use crate::error::AsrError;
use crate::gemm::{self, Isa, WeightFormat};
use crate::mel::{HOP, MelExtractor};
use crate::vocab::Vocab;
use decode::{Decoded, Rules, Search};
use pocket_kernels::ThreadPool;
use weights::Weights;

/// `config.json` of a CTranslate2 Whisper folder (fields this crate uses).
#[derive(Debug, serde::Deserialize)]
struct Ct2Config {
    #[serde(default)]
    suppress_ids: Vec<i64>,
    #[serde(default)]
    suppress_ids_begin: Vec<i64>,
}

/// Loaded model: immutable, shared by every stream.
#[derive(Debug)]
pub struct Whisper {
    pub weights: Weights,
    pub vocab: Vocab,
    pub rules: Rules,
    pub pool: ThreadPool,
    pub isa: Isa,
    /// The silent rest of the 30 s window, when `virtual_window` is on.
    pub silence: Option<encoder::SilenceContext>,
}

/// Time spent in each stage of one window, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StageTimes {
    pub mel_ms: f64,
    pub encoder_ms: f64,
    pub decoder_ms: f64,
}

impl std::ops::AddAssign for StageTimes {
    fn add_assign(&mut self, s: StageTimes) {
        self.mel_ms += s.mel_ms;
        self.encoder_ms += s.encoder_ms;
        self.decoder_ms += s.decoder_ms;
    }
}

impl Whisper {
    /// Loads `model.bin`, `vocabulary.txt` and `config.json` from `dir`.
    pub fn load(dir: &Path, fmt: WeightFormat, threads: usize) -> Result<Self, AsrError> {
        let model = Ct2Model::open(&dir.join("model.bin"))?;
        let weights = Weights::load(&model, fmt).map_err(|e| match e {
            AsrError::BadModel { detail, .. } => AsrError::BadModel {
                path: dir.join("model.bin"),
                detail,
            },
            other => other,
        })?;
        let vocab = Vocab::load(&dir.join("vocabulary.txt"))?;
        if vocab.len() != weights.dims.vocab {
            return Err(AsrError::BadModel {
                path: dir.join("vocabulary.txt"),
                detail: format!(
                    "{} tokens, but the model has {} embeddings",
                    vocab.len(),
                    weights.dims.vocab
                ),
            });
        }
        let cfg_path = dir.join("config.json");
        let cfg: Ct2Config = match std::fs::read_to_string(&cfg_path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| AsrError::BadModel {
                path: cfg_path.clone(),
                detail: e.to_string(),
            })?,
            // Whisper's defaults live in the vocabulary; config.json only refines them.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ct2Config {
                suppress_ids: Vec::new(),
                suppress_ids_begin: Vec::new(),
            },
            Err(source) => {
                return Err(AsrError::Io {
                    path: cfg_path,
                    source,
                });
            }
        };
        let sp = &vocab.specials;
        let n = vocab.len();
        let mut suppress = vec![false; n];
        for &id in &cfg.suppress_ids {
            if let Some(s) = usize::try_from(id).ok().and_then(|i| suppress.get_mut(i)) {
                *s = true;
            }
        }
        // Text only: every special token after EOT (language, task, no-speech, timestamps).
        for s in suppress.iter_mut().skip(sp.eot as usize + 1) {
            *s = true;
        }
        let mut suppress_begin: Vec<u32> = cfg
            .suppress_ids_begin
            .iter()
            .filter_map(|&i| u32::try_from(i).ok())
            .collect();
        if suppress_begin.is_empty() {
            suppress_begin = vec![220, sp.eot];
        }
        let rules = Rules {
            suppress,
            suppress_begin,
            eot: sp.eot,
            no_speech: sp.no_speech,
        };
        Ok(Self {
            weights,
            vocab,
            rules,
            pool: ThreadPool::new(threads)
                .map_err(|e| AsrError::BadConfig(format!("threads = {threads}: {e}")))?,
            isa: gemm::detect(),
            silence: None,
        })
    }

    /// What a decode reads of this model.
    pub fn decode_model(&self) -> decode::Model<'_> {
        decode::Model {
            w: &self.weights,
            pool: &self.pool,
            isa: self.isa,
            rules: &self.rules,
        }
    }

    /// Decoder prompt for a language (`None`: English-only model, or English) and the index of
    /// the start-of-transcript token in it.
    pub fn prompt(&self, language: Option<&str>) -> Result<(Vec<u32>, usize), AsrError> {
        let sp = &self.vocab.specials;
        let mut p = vec![sp.sot];
        if self.vocab.is_multilingual() {
            let code = language.unwrap_or("en");
            let lang = self
                .vocab
                .id(&format!("<|{code}|>"))
                .filter(|&id| id > sp.sot && id < sp.translate)
                .ok_or_else(|| AsrError::BadConfig(format!("unknown language code {code:?}")))?;
            p.push(lang);
            p.push(sp.transcribe);
        } else if let Some(code) = language.filter(|c| *c != "en") {
            return Err(AsrError::BadConfig(format!(
                "language {code:?} needs a multilingual model; this one is English-only"
            )));
        }
        p.push(sp.no_timestamps);
        Ok((p, 0))
    }
}

/// Preallocated buffers for running the model on one window at a time.
#[derive(Debug)]
pub struct Session {
    mel: MelExtractor,
    mel_buf: Vec<f32>,
    padded: Vec<f32>,
    enc: encoder::EncoderState,
    dec: decoder::DecoderState,
}

/// Input padding applied before the encoder: see `RecognizerConfig`.
#[derive(Clone, Copy, Debug)]
pub struct Padding {
    pub min_samples: usize,
    pub tail_samples: usize,
}

impl Session {
    pub fn new(m: &Whisper) -> Self {
        Self {
            mel: MelExtractor::new(),
            mel_buf: Vec::new(),
            padded: Vec::new(),
            enc: encoder::EncoderState::default(),
            dec: decoder::DecoderState::new(&m.weights),
        }
    }

    /// Runs mel, encoder and decoder on `samples` (16 kHz, at most 30 s): greedy (verifying
    /// `draft`), then beam search when `search` asks for it (see [`Search`]). Fails only when a
    /// compute job failed ([`AsrError::Kernel`]).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        m: &Whisper,
        samples: &[f32],
        pad: Padding,
        prompt: &[u32],
        sot_index: usize,
        draft: &[u32],
        max_tokens: usize,
        search: Search,
    ) -> Result<(Decoded, StageTimes), AsrError> {
        let t0 = Instant::now();
        let max = m.weights.dims.audio_ctx * 2 * HOP;
        let mut n = (samples.len() + pad.tail_samples).max(pad.min_samples);
        // The encoder takes an even number of frames, at most 30 s.
        n = n.div_ceil(2 * HOP) * 2 * HOP;
        n = n.clamp(2 * HOP, max);
        let take = samples.len().min(n);
        self.padded.clear();
        self.padded.extend_from_slice(&samples[..take]);
        self.padded.resize(n, 0.0);
        let frames = self.mel.compute(&self.padded, &mut self.mel_buf);
        let t1 = Instant::now();
        let silence = m.silence.as_ref();
        encoder::encode(
            &m.weights,
            &m.pool,
            m.isa,
            &self.mel_buf,
            frames,
            silence,
            &mut self.enc,
        )?;
        let t = self.enc.positions;
        let cross = silence.map(|s| &s.cross_kv[..]);
        self.dec
            .set_audio(&m.weights, &m.pool, m.isa, &self.enc.x, t, cross)?;
        let t2 = Instant::now();
        let out = self.decode(m, prompt, sot_index, draft, max_tokens, search)?;
        let t3 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        Ok((
            out,
            StageTimes {
                mel_ms: ms(t0, t1),
                encoder_ms: ms(t1, t2),
                decoder_ms: ms(t2, t3),
            },
        ))
    }

    /// The decoder step of [`run`](Self::run) alone, over the audio the last `run` encoded
    /// (its cross-attention stays set): decoding the same audio after another prompt costs no
    /// second mel or encoder pass.
    pub fn decode(
        &mut self,
        m: &Whisper,
        prompt: &[u32],
        sot_index: usize,
        draft: &[u32],
        max_tokens: usize,
        search: Search,
    ) -> Result<Decoded, AsrError> {
        self.dec.pos = 0;
        let model = m.decode_model();
        let beam = |dec: &mut decoder::DecoderState| {
            dec.pos = 0;
            let mut d = beam::beam(&model, dec, prompt, sot_index, max_tokens, search.beam)?;
            d.beam_searched = true;
            Ok::<_, AsrError>(d)
        };
        let out = if search.beam > 1 && search.greedy_min_p >= 1.0 {
            beam(&mut self.dec)?
        } else {
            let g = decode::greedy(&model, &mut self.dec, prompt, sot_index, draft, max_tokens)?;
            if search.beam > 1 && g.min_token_prob() < search.greedy_min_p {
                // Not sure enough: search again with the beam (the audio stays encoded).
                let mut b = beam(&mut self.dec)?;
                b.passes += g.passes;
                b
            } else {
                g
            }
        };
        Ok(out)
    }
}
