//! Fuzz target of the recognizer's model loading, run as an ordinary test (a few seconds;
//! `scripts/fuzz ct2_whisper MINUTES` runs it longer). See `pocket-fuzz` for the runner, the
//! environment variables and the allocation cap.
//!
//! `ct2_whisper`: a CTranslate2 Whisper folder (`model.bin`, `vocabulary.txt`, `config.json`)
//! → `Recognizer::load` (CT2 reader, weight binding, vocabulary, suppress ids, the precomputed
//! silent window) → a short transcription. The seed is a tiny Whisper synthesized with the
//! variable names, ranks, dtypes and alias of the real `whisper-tiny.en` `model.bin` (width 8
//! instead of 384, 2+2 layers, a 24-token vocabulary); mutations change its header fields,
//! its dimensions (re-synthesized consistently or not), the vocabulary and the config.

use std::path::Path;

use pocket_asr::{Recognizer, RecognizerConfig};
use pocket_fuzz::{Field, Kind, Rng, mutate};

#[global_allocator]
static ALLOC: pocket_fuzz::CapAlloc = pocket_fuzz::CapAlloc;

/// Shape of a synthesized Whisper.
#[derive(Clone, Copy, Debug)]
struct Shape {
    d: u32,
    heads: u32,
    dec_heads: u32,
    ffn: u32,
    n_mels: u32,
    audio_ctx: u32,
    text_ctx: u32,
    vocab: u32,
    enc_layers: u32,
    dec_layers: u32,
}

const BASE: Shape = Shape {
    d: 8,
    heads: 2,
    dec_heads: 2,
    ffn: 16,
    n_mels: 80,
    audio_ctx: 4,
    text_ctx: 8,
    vocab: 24,
    enc_layers: 2,
    dec_layers: 2,
};

/// Writes `model.bin` in CTranslate2's layout, remembering where its numbers are.
struct Ct2Writer {
    out: Vec<u8>,
    fields: Vec<Field>,
    n_vars: u32,
    /// Where the variable count is.
    count_at: usize,
    rng: Rng,
}

impl Ct2Writer {
    fn new(seed: u64) -> Ct2Writer {
        let mut w = Ct2Writer {
            out: Vec::new(),
            fields: Vec::new(),
            n_vars: 0,
            count_at: 0,
            rng: Rng::new(seed),
        };
        w.num(6, 4, Kind::Tag);
        w.string("WhisperSpec");
        w.num(3, 4, Kind::Quantity);
        w.count_at = w.out.len();
        w.num(0, 4, Kind::Count); // variable count, patched by `finish`
        w
    }

    fn num(&mut self, v: u64, width: u8, kind: Kind) {
        self.fields.push(Field::new(self.out.len(), width, kind));
        self.out
            .extend_from_slice(&v.to_le_bytes()[..usize::from(width)]);
    }

    fn string(&mut self, s: &str) {
        self.num(s.len() as u64 + 1, 2, Kind::Len);
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(0);
    }

    /// A variable: name, rank, dims, dtype (CT2 ids), byte size, data (`fill` or random f16).
    fn var(&mut self, name: &str, dims: &[u32], dtype: u8, fill: Option<&[u8]>) {
        self.n_vars += 1;
        self.string(name);
        self.num(dims.len() as u64, 1, Kind::Dim);
        for &d in dims {
            self.num(u64::from(d), 4, Kind::Dim);
        }
        self.num(u64::from(dtype), 1, Kind::Tag);
        let size = [4usize, 1, 2, 4, 2, 2][usize::from(dtype).min(5)];
        let n = dims.iter().map(|&d| d as usize).product::<usize>() * size;
        self.num(n as u64, 4, Kind::Len);
        match fill {
            Some(b) => self.out.extend_from_slice(b),
            None => {
                for _ in 0..n / 2 {
                    let v = (self.rng.unit() as f32 - 0.5) * 0.2;
                    self.out.extend_from_slice(&half_bits(v).to_le_bytes());
                }
            }
        }
    }

    fn linear(&mut self, scope: &str, n: u32, k: u32) {
        self.var(&format!("{scope}/bias"), &[n], 4, None);
        self.var(&format!("{scope}/weight"), &[n, k], 4, None);
    }

    fn norm(&mut self, scope: &str, d: u32) {
        self.var(&format!("{scope}/beta"), &[d], 4, None);
        self.var(&format!("{scope}/gamma"), &[d], 4, None);
    }

    /// The feed-forward and self-attention blocks both encoder and decoder layers have.
    fn ffn_and_self_attention(&mut self, l: &str, d: u32, f: u32) {
        self.norm(&format!("{l}/ffn/layer_norm"), d);
        self.linear(&format!("{l}/ffn/linear_0"), f, d);
        self.linear(&format!("{l}/ffn/linear_1"), d, f);
        self.norm(&format!("{l}/self_attention/layer_norm"), d);
        self.linear(&format!("{l}/self_attention/linear_0"), 3 * d, d);
        self.linear(&format!("{l}/self_attention/linear_1"), d, d);
    }

    fn finish(mut self, aliases: &[(&str, &str)]) -> (Vec<u8>, Vec<Field>) {
        self.num(aliases.len() as u64, 4, Kind::Count);
        for (a, t) in aliases {
            self.string(a);
            self.string(t);
        }
        let at = self.count_at;
        self.out[at..at + 4].copy_from_slice(&self.n_vars.to_le_bytes());
        (self.out, self.fields)
    }
}

/// f32 → IEEE half bits (round toward zero; test data only).
fn half_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    if exp <= 0 {
        return sign;
    }
    sign | ((exp.min(30) as u16) << 10) | ((b >> 13) & 0x3ff) as u16
}

/// The model.bin of `s`, with the variables of the real whisper-tiny.en (names, order,
/// scalar flags, the projection alias).
fn model_bin(s: &Shape, seed: u64) -> (Vec<u8>, Vec<Field>) {
    let (d, f) = (s.d, s.ffn);
    let mut w = Ct2Writer::new(seed);
    for (name, dtype, v) in [
        ("decoder/activation", 1u8, 1u64),
        ("decoder/alibi", 1, 0),
        ("decoder/alignment_heads", 2, 0),
        ("decoder/alignment_layer", 2, 0),
    ] {
        let b = v.to_le_bytes();
        w.var(name, &[], dtype, Some(&b[..usize::from(dtype)]));
    }
    w.var("decoder/embeddings/weight", &[s.vocab, d], 4, None);
    for i in 0..s.dec_layers {
        let l = format!("decoder/layer_{i}");
        w.norm(&format!("{l}/attention/layer_norm"), d);
        w.linear(&format!("{l}/attention/linear_0"), d, d);
        w.linear(&format!("{l}/attention/linear_1"), 2 * d, d);
        w.linear(&format!("{l}/attention/linear_2"), d, d);
        w.ffn_and_self_attention(&l, d, f);
    }
    w.norm("decoder/layer_norm", d);
    w.var(
        "decoder/num_heads",
        &[],
        2,
        Some(&(s.dec_heads as u16).to_le_bytes()),
    );
    w.var(
        "decoder/position_encodings/encodings",
        &[s.text_ctx, d],
        4,
        None,
    );
    for name in [
        "decoder/pre_norm",
        "decoder/scale_embeddings",
        "decoder/start_from_zero_embedding",
    ] {
        w.var(name, &[], 1, Some(&[1]));
    }
    w.var("encoder/conv1/bias", &[d], 4, None);
    w.var("encoder/conv1/weight", &[d, s.n_mels, 3], 4, None);
    w.var("encoder/conv2/bias", &[d], 4, None);
    w.var("encoder/conv2/weight", &[d, d, 3], 4, None);
    for i in 0..s.enc_layers {
        w.ffn_and_self_attention(&format!("encoder/layer_{i}"), d, f);
    }
    w.norm("encoder/layer_norm", d);
    w.var(
        "encoder/num_heads",
        &[],
        2,
        Some(&(s.heads as u16).to_le_bytes()),
    );
    w.var(
        "encoder/position_encodings/encodings",
        &[s.audio_ctx, d],
        4,
        None,
    );
    w.finish(&[("decoder/projection/weight", "decoder/embeddings/weight")])
}

const SPECIALS: &[&str] = &[
    "<|endoftext|>",
    "<|startoftranscript|>",
    "<|en|>",
    "<|translate|>",
    "<|transcribe|>",
    "<|startoflm|>",
    "<|startofprev|>",
    "<|nocaptions|>",
    "<|notimestamps|>",
    "<|0.00|>",
    "<|0.02|>",
];

/// An English-only vocabulary of `n` tokens: text tokens, then Whisper's specials in order.
fn vocabulary(n: usize) -> String {
    let text = [
        "!", "a", "b", "Ġthe", "Ġcat", "hello", "Ġworld", "âĢĻ", "Ċ", "ĠĠ", ".", ",",
    ];
    let n_text = n.saturating_sub(SPECIALS.len());
    let mut lines: Vec<String> = (0..n_text)
        .map(|i| format!("{}{}", text[i % text.len()], "x".repeat(i / text.len())))
        .collect();
    lines.extend(SPECIALS.iter().map(|s| s.to_string()));
    lines.join("\n") + "\n"
}

const CONFIG: &str = r#"{"suppress_ids": [1, 3, 5], "suppress_ids_begin": [6, 13]}"#;

/// One input = the three files: `u32 len, model.bin, u32 len, vocabulary.txt, config.json`.
fn pack(model: &[u8], vocab: &[u8], config: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(model.len() + vocab.len() + config.len() + 8);
    out.extend_from_slice(&(model.len() as u32).to_le_bytes());
    out.extend_from_slice(model);
    out.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
    out.extend_from_slice(vocab);
    out.extend_from_slice(config);
    out
}

fn unpack(input: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let take = |b: &'_ [u8]| -> Option<(usize, usize)> {
        let n = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        (b.len() >= 4 + n).then_some((4, 4 + n))
    };
    let (a, b) = take(input)?;
    let (model, rest) = (&input[a..b], &input[b..]);
    let (a, b) = take(rest)?;
    Some((model, &rest[a..b], &rest[b..]))
}

fn mutate_shape(rng: &mut Rng, s: &mut Shape) {
    let pick = |rng: &mut Rng, cur: u32| -> u32 {
        match rng.below(7) {
            0 => 0,
            1 => 1,
            2 => cur + 1,
            3 => cur.saturating_sub(1),
            4 => cur * 2,
            5 => 1 << rng.below(11),
            _ => rng.below(64) as u32,
        }
    };
    for _ in 0..1 + rng.size(3) {
        match rng.below(10) {
            0 => s.d = pick(rng, s.d).min(64),
            1 => s.heads = pick(rng, s.heads),
            2 => s.dec_heads = pick(rng, s.dec_heads),
            3 => s.ffn = pick(rng, s.ffn).min(256),
            4 => s.n_mels = pick(rng, s.n_mels).min(128),
            5 => s.audio_ctx = pick(rng, s.audio_ctx).min(1500),
            6 => s.text_ctx = pick(rng, s.text_ctx).min(448),
            7 => s.vocab = pick(rng, s.vocab).min(4096),
            8 => s.enc_layers = pick(rng, s.enc_layers).min(4),
            _ => s.dec_layers = pick(rng, s.dec_layers).min(4),
        }
    }
}

fn mutate_vocab(rng: &mut Rng, vocab: &str) -> String {
    let mut lines: Vec<&str> = vocab.lines().collect();
    match rng.below(5) {
        0 => {
            lines.remove(
                rng.below(lines.len().max(1))
                    .min(lines.len().saturating_sub(1)),
            );
        }
        1 => {
            let i = rng.below(lines.len());
            let l = lines.get(i).copied().unwrap_or("a");
            lines.insert(rng.below(lines.len() + 1), l);
        }
        2 => {
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            if a < lines.len() && b < lines.len() {
                lines.swap(a, b);
            }
        }
        3 => lines.truncate(rng.below(lines.len() + 1)),
        _ => return mutate::mutate_text(rng, vocab, &["\n", "<|", "|>", "Ġ", "\r", "\u{0}"]),
    }
    lines.join("\n")
}

fn mutate_config(rng: &mut Rng) -> String {
    let id = |rng: &mut Rng| -> String {
        match rng.below(6) {
            0 => "-1".into(),
            1 => "4294967296".into(),
            2 => "9223372036854775807".into(),
            3 => "1e400".into(),
            4 => "\"x\"".into(),
            _ => rng.below(64).to_string(),
        }
    };
    let list = |rng: &mut Rng| -> String {
        let n = rng.size(8);
        let items: Vec<String> = (0..n).map(|_| id(rng)).collect();
        format!("[{}]", items.join(","))
    };
    match rng.below(4) {
        0 => String::new(),
        1 => "{".into(),
        _ => format!(
            r#"{{"suppress_ids": {}, "suppress_ids_begin": {}}}"#,
            list(rng),
            list(rng)
        ),
    }
}

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut shape = BASE;
    let reshape = rng.one_in(3);
    if reshape {
        mutate_shape(rng, &mut shape);
    }
    let (mut model, fields) = model_bin(&shape, rng.next_u64());
    let vocab_n = if reshape && rng.one_in(2) {
        BASE.vocab
    } else {
        shape.vocab
    };
    let mut vocab = vocabulary(vocab_n as usize);
    let mut config = CONFIG.to_string();
    match rng.below(6) {
        0 => vocab = mutate_vocab(rng, &vocab),
        1 => config = mutate_config(rng),
        _ if !reshape || rng.one_in(2) => {
            mutate::mutate(rng, &mut model, &fields, &[b"\x04", b"\x00\x00\x00\x00"])
        }
        _ => {}
    }
    pack(&model, vocab.as_bytes(), config.as_bytes())
}

fn exec(input: &[u8]) {
    let Some((model, vocab, config)) = unpack(input) else {
        return;
    };
    thread_local! {
        static DIR: tempfile::TempDir = tempfile::tempdir().expect("temp dir");
    }
    DIR.with(|dir| {
        let p = dir.path();
        std::fs::write(p.join("model.bin"), model).expect("write model.bin");
        std::fs::write(p.join("vocabulary.txt"), vocab).expect("write vocabulary");
        if config.is_empty() {
            let _ = std::fs::remove_file(p.join("config.json"));
        } else {
            std::fs::write(p.join("config.json"), config).expect("write config");
        }
        let cfg = RecognizerConfig {
            threads: 1,
            ..Default::default()
        };
        let Ok(rec) = Recognizer::load(p, cfg) else {
            return;
        };
        let clip: Vec<f32> = (0..3200)
            .map(|i| ((i * 7919) % 200) as f32 / 1000.0 - 0.1)
            .collect();
        let t = rec.transcribe(&clip);
        if let Ok(t) = t {
            assert!(t.text.len() <= 64 * 48, "text of {} bytes", t.text.len());
        }
    });
}

#[test]
fn fuzz_ct2_whisper() {
    // The seed itself loads and transcribes: otherwise the fuzzing stops at the first check.
    let (model, _) = model_bin(&BASE, 1);
    let vocab = vocabulary(BASE.vocab as usize);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("model.bin"), &model).expect("write");
    std::fs::write(dir.path().join("vocabulary.txt"), &vocab).expect("write");
    std::fs::write(dir.path().join("config.json"), CONFIG).expect("write");
    let cfg = RecognizerConfig {
        threads: 1,
        ..Default::default()
    };
    let rec = Recognizer::load(dir.path(), cfg).expect("the synthesized seed loads");
    rec.transcribe(&[0.01; 1600]).expect("the seed transcribes");

    let regressions =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/ct2_whisper");
    pocket_fuzz::replay_dir(&regressions, exec);
    pocket_fuzz::fuzz("ct2_whisper", generate, exec);
}
