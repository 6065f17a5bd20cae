//! A tiny Whisper written as a CTranslate2 folder: crafted dimensions must give a clear error
//! at load, never a panic at load or at the first decode.

use std::path::Path;

use crate::{AsrError, Recognizer};

/// Model width, heads and MLP width of the tiny model.
const D: usize = 4;
const HEADS: i32 = 2;
const FFN: usize = 8;

/// Whisper's special tokens plus two text tokens (English-only layout).
const VOCAB: &str = "Hello\nĠworld\n<|endoftext|>\n<|startoftranscript|>\n<|transcribe|>\n\
                     <|translate|>\n<|nocaptions|>\n<|notimestamps|>\n<|0.00|>\n";

/// Names and shapes of every variable a `WhisperSpec` with one layer each side needs.
fn shapes(vocab: usize, audio_ctx: usize, text_ctx: usize) -> Vec<(String, Vec<usize>)> {
    let mut v = vec![
        (
            "encoder/conv1/weight".into(),
            vec![D, crate::mel::N_MELS, 3],
        ),
        ("encoder/conv1/bias".into(), vec![D]),
        ("encoder/conv2/weight".into(), vec![D, D, 3]),
        ("encoder/conv2/bias".into(), vec![D]),
        (
            "encoder/position_encodings/encodings".into(),
            vec![audio_ctx, D],
        ),
        (
            "decoder/position_encodings/encodings".into(),
            vec![text_ctx, D],
        ),
        ("decoder/embeddings/weight".into(), vec![vocab, D]),
    ];
    let mut norm = |s: String| {
        v.push((format!("{s}/gamma"), vec![D]));
        v.push((format!("{s}/beta"), vec![D]));
    };
    for s in ["encoder", "decoder"] {
        norm(format!("{s}/layer_norm"));
        norm(format!("{s}/layer_0/self_attention/layer_norm"));
        norm(format!("{s}/layer_0/ffn/layer_norm"));
    }
    norm("decoder/layer_0/attention/layer_norm".into());
    let linears = [
        ("encoder/layer_0/self_attention/linear_0", 3 * D, D),
        ("encoder/layer_0/self_attention/linear_1", D, D),
        ("encoder/layer_0/ffn/linear_0", FFN, D),
        ("encoder/layer_0/ffn/linear_1", D, FFN),
        ("decoder/layer_0/self_attention/linear_0", 3 * D, D),
        ("decoder/layer_0/self_attention/linear_1", D, D),
        ("decoder/layer_0/attention/linear_0", D, D),
        ("decoder/layer_0/attention/linear_1", 2 * D, D),
        ("decoder/layer_0/attention/linear_2", D, D),
        ("decoder/layer_0/ffn/linear_0", FFN, D),
        ("decoder/layer_0/ffn/linear_1", D, FFN),
    ];
    for (s, n, k) in linears {
        v.push((format!("{s}/weight"), vec![n, k]));
        v.push((format!("{s}/bias"), vec![n]));
    }
    v
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// `model.bin` (version 6) with small deterministic f32 values in every variable.
fn model_bin(vocab: usize, audio_ctx: usize, text_ctx: usize) -> Vec<u8> {
    let vars = shapes(vocab, audio_ctx, text_ctx);
    let mut b = Vec::new();
    b.extend_from_slice(&6u32.to_le_bytes());
    string(&mut b, "WhisperSpec");
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&(vars.len() as u32 + 2).to_le_bytes());
    let mut seed = 1u32;
    for (name, shape) in &vars {
        string(&mut b, name);
        b.push(shape.len() as u8);
        for &d in shape {
            b.extend_from_slice(&(d as u32).to_le_bytes());
        }
        b.push(0); // f32
        let n: usize = shape.iter().product();
        b.extend_from_slice(&((n * 4) as u32).to_le_bytes());
        for _ in 0..n {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let x = (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
            b.extend_from_slice(&(x * 0.2).to_le_bytes());
        }
    }
    for name in ["encoder/num_heads", "decoder/num_heads"] {
        string(&mut b, name);
        b.push(0); // scalar
        b.push(3); // int32
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&HEADS.to_le_bytes());
    }
    b.extend_from_slice(&0u32.to_le_bytes()); // no aliases
    b
}

pub(in crate::whisper) fn write_model(dir: &Path, audio_ctx: usize, text_ctx: usize) {
    let vocab = VOCAB.lines().count();
    std::fs::write(dir.join("vocabulary.txt"), VOCAB).expect("vocabulary");
    std::fs::write(dir.join("model.bin"), model_bin(vocab, audio_ctx, text_ctx)).expect("model");
}

fn load(audio_ctx: usize, text_ctx: usize) -> Result<std::sync::Arc<Recognizer>, AsrError> {
    let dir = tempfile::tempdir().expect("temp dir");
    write_model(dir.path(), audio_ctx, text_ctx);
    Recognizer::load(dir.path(), Default::default())
}

/// A quiet tone: some signal for the encoder, no NaN.
fn clip() -> Vec<f32> {
    (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.1).collect()
}

#[test]
fn the_tiny_model_loads_and_decodes() {
    let r = load(4, 8).expect("a well-formed tiny model loads");
    r.transcribe(&clip()).expect("and decodes");
}

#[test]
fn crafted_context_sizes_are_refused_at_load() {
    // audio_ctx 0 used to panic in load (clamp), text_ctx below the prompt at the first
    // decode (the decoder's batch assert).
    for (audio_ctx, text_ctx, what) in [(0, 8, "audio"), (4, 0, "text"), (4, 1, "text")] {
        let outcome = std::panic::catch_unwind(|| {
            load(audio_ctx, text_ctx).and_then(|r| r.transcribe(&clip()))
        });
        match outcome {
            Ok(Err(AsrError::BadModel { detail, path })) => {
                assert!(detail.contains(what), "{audio_ctx}/{text_ctx}: {detail}");
                assert!(path.ends_with("model.bin"), "{}", path.display());
            }
            Ok(other) => panic!("{audio_ctx}/{text_ctx}: not refused: {other:?}"),
            Err(_) => panic!("{audio_ctx}/{text_ctx}: panicked instead of a clear error"),
        }
    }
}
