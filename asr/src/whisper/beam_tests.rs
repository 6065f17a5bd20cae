//! Beam search against the plain decoder: one hypothesis is greedy decoding, and every token's
//! log-probability a wider beam reports is the one the decoder gives that token when the whole
//! chosen text is run through it in one pass (so the per-slot caches hold the right history).

use super::super::decode::{Decoded, Search, mask};
use super::super::{Padding, Session, Whisper};
use super::beam;
use crate::gemm::WeightFormat;

const PAD: Padding = Padding {
    min_samples: 0,
    tail_samples: 0,
};

/// Decodes `samples` greedily (`beam` 1) or by beam search.
fn decode(m: &Whisper, s: &mut Session, samples: &[f32], beam: usize, max: usize) -> Decoded {
    let (prompt, sot) = m.prompt(None).expect("prompt");
    let search = if beam == 1 {
        Search::GREEDY
    } else {
        Search::always_beam(beam)
    };
    s.run(m, samples, PAD, &prompt, sot, &[], max, search)
        .expect("decode")
        .0
}

/// Beam search itself with one hypothesis (`Session::run` sends beam 1 to greedy).
fn beam_of_one(m: &Whisper, s: &mut Session, samples: &[f32], max: usize) -> Decoded {
    decode(m, s, samples, 1, max); // leaves the audio's cross-attention in place
    let (prompt, sot) = m.prompt(None).expect("prompt");
    s.dec.pos = 0;
    beam(&m.decode_model(), &mut s.dec, &prompt, sot, max, 1).expect("beam")
}

/// Each token's log-probability when `d.tokens` runs through the decoder after the prompt in
/// one batch (the audio's cross-attention already set by the decode).
fn teacher_forced(m: &Whisper, s: &mut Session, d: &Decoded) -> Vec<f32> {
    let (prompt, _) = m.prompt(None).expect("prompt");
    let mut seq = prompt.clone();
    seq.extend_from_slice(&d.tokens);
    let rows: Vec<usize> = (prompt.len() - 1..seq.len() - 1).collect();
    s.dec.pos = 0;
    s.dec
        .forward(&m.weights, &m.pool, m.isa, &seq, &rows)
        .expect("forward");
    let vocab = m.weights.dims.vocab;
    let mut scratch = vec![0f32; vocab];
    d.tokens
        .iter()
        .enumerate()
        .map(|(j, &tok)| {
            let row = &s.dec.logits[j * vocab..(j + 1) * vocab];
            let max = mask(row, &m.rules, j == 0, &mut scratch);
            let lse = max + scratch.iter().map(|&v| (v - max).exp()).sum::<f32>().ln();
            scratch[tok as usize] - lse
        })
        .collect()
}

fn assert_close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() < 2e-3, "{what}: token {i}: {x} vs {y}");
    }
}

#[test]
fn on_a_tiny_random_model_one_hypothesis_is_greedy_and_wider_beams_score_truly() {
    let dir = tempfile::tempdir().expect("temp dir");
    super::super::tests::write_model(dir.path(), 4, 24);
    let m = Whisper::load(dir.path(), WeightFormat::F32, 1).expect("tiny model");
    let mut s = Session::new(&m);
    let audio: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.1).collect();
    let greedy = decode(&m, &mut s, &audio, 1, 12);
    let one = beam_of_one(&m, &mut s, &audio, 12);
    assert_eq!(one.tokens, greedy.tokens);
    assert_close(
        &one.token_logprobs,
        &greedy.token_logprobs,
        "beam 1 vs greedy",
    );
    if greedy.tokens.len() < 12 {
        // (Out of room, greedy also counts the step after its last token.)
        assert!((one.sum_logprob - greedy.sum_logprob).abs() < 1e-4);
    }
    assert!((one.no_speech_prob - greedy.no_speech_prob).abs() < 1e-6);
    for k in [2, 3, 4] {
        let d = decode(&m, &mut s, &audio, k, 12);
        assert!(d.tokens.len() <= 12, "beam {k}: {} tokens", d.tokens.len());
        let forced = teacher_forced(&m, &mut s, &d);
        assert_close(&d.token_logprobs, &forced, &format!("beam {k}"));
    }
}

#[test]
fn on_tiny_en_wide_beams_score_truly_and_hear_jfk() {
    let store = pocket_assets::Store::open_default().expect("asset store");
    let (dir, wav) = match (
        store.require(pocket_assets::ids::WHISPER_TINY_EN),
        store.require_file(pocket_assets::ids::JFK, "jfk.wav"),
    ) {
        (Ok(d), Ok(w)) => (d, w),
        (d, w) => {
            let missing: Vec<String> = [d.err(), w.err()]
                .into_iter()
                .flatten()
                .map(|e| e.to_string())
                .collect();
            assert!(!pocket_assets::proceed_or_skip(&missing));
            return;
        }
    };
    let mut r = hound::WavReader::open(wav).expect("jfk.wav");
    let audio: Vec<f32> = r
        .samples::<i16>()
        .map(|s| f32::from(s.expect("sample")) / 32768.0)
        .collect();
    let m = Whisper::load(&dir, WeightFormat::Q8_0, 2).expect("tiny.en");
    let mut s = Session::new(&m);
    let greedy = decode(&m, &mut s, &audio, 1, 140);
    let one = beam_of_one(&m, &mut s, &audio, 140);
    assert_eq!(one.tokens, greedy.tokens);
    for k in [2, 5] {
        let d = decode(&m, &mut s, &audio, k, 140);
        let text = m.vocab.decode(&d.tokens).to_lowercase();
        assert!(
            text.contains("ask not what your country can do for you"),
            "beam {k}: {text}"
        );
        let forced = teacher_forced(&m, &mut s, &d);
        assert_close(&d.token_logprobs, &forced, &format!("beam {k}"));
        // Finished on end-of-text: the sum holds its log-probability too.
        let tokens: f32 = d.token_logprobs.iter().sum();
        assert!(
            d.sum_logprob < tokens,
            "beam {k}: no end-of-text step counted"
        );
    }
}

#[test]
fn the_confidence_gate_keeps_sure_greedy_results_and_searches_the_rest() {
    let dir = tempfile::tempdir().expect("temp dir");
    super::super::tests::write_model(dir.path(), 4, 24);
    let m = Whisper::load(dir.path(), WeightFormat::F32, 1).expect("tiny model");
    let mut s = Session::new(&m);
    let audio: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.1).collect();
    let (prompt, sot) = m.prompt(None).expect("prompt");
    let mut run = |search: Search| {
        s.run(&m, &audio, PAD, &prompt, sot, &[], 12, search)
            .expect("decode")
            .0
    };
    let greedy = run(Search::GREEDY);
    let searched = run(Search::always_beam(3));
    assert!(!greedy.beam_searched && searched.beam_searched);
    let min_p = greedy.min_token_prob();
    assert!(min_p < 1.0, "a random model is never sure of every token");
    // Sure enough: greedy's result stands, and nothing more runs.
    let kept = run(Search {
        beam: 3,
        greedy_min_p: min_p * 0.99,
    });
    assert!(!kept.beam_searched);
    assert_eq!(kept.tokens, greedy.tokens);
    assert_eq!(kept.passes, greedy.passes);
    // Less sure than asked: the beam's result, its passes on top of greedy's.
    let gated = run(Search {
        beam: 3,
        greedy_min_p: min_p * 1.01,
    });
    assert!(gated.beam_searched);
    assert_eq!(gated.tokens, searched.tokens);
    assert_close(
        &gated.token_logprobs,
        &searched.token_logprobs,
        "gated vs always beam",
    );
    assert_eq!(gated.passes, searched.passes + greedy.passes);
}
