//! Fuzz target of WAV input, run as an ordinary test (a few seconds; `scripts/fuzz wav_in
//! MINUTES` runs it longer). See `pocket-fuzz` for the runner, the environment variables and
//! the allocation cap.
//!
//! `wav_in`: bytes → `audio::wav::decode_mono` (hound's RIFF parser, our header limits,
//! channel mixing, resampling to a chosen rate), then the streaming `Resampler` on the result
//! in random chunk sizes. Seeds are WAVs written with hound in every format it writes (8/16/
//! 24/32-bit PCM, 32-bit float; 1, 2 and 6 channels; 8 to 48 kHz), and the head of the real
//! test clips when installed; mutations rewrite the RIFF/fmt/data header fields and chunk
//! sizes and cut, splice or flip bytes.

use std::io::Cursor;
use std::path::Path;

use pocket_fuzz::{Field, Kind, Rng, mutate};
use pocket_pipeline::audio::wav::{MAX_SAMPLES, decode_mono};
use pocket_pipeline::resample::new_resampler;

#[global_allocator]
static ALLOC: pocket_fuzz::CapAlloc = pocket_fuzz::CapAlloc;

/// Output rates tried (the first input byte picks one).
const RATES: [u32; 6] = [16_000, 48_000, 4_000, 384_000, 22_050, 3_999];

fn wav(spec: hound::WavSpec, frames: usize) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let mut w = hound::WavWriter::new(&mut out, spec).expect("wav writer");
    for i in 0..frames * usize::from(spec.channels) {
        let x = (i as f32 * 0.05).sin() * 0.5;
        let r = match (spec.sample_format, spec.bits_per_sample) {
            (hound::SampleFormat::Float, _) => w.write_sample(x),
            (_, 8) => w.write_sample((x * 127.0) as i8),
            (_, 16) => w.write_sample((x * 32767.0) as i16),
            (_, 24) => w.write_sample((x * 8_388_607.0) as i32),
            _ => w.write_sample((x * 2.1e9) as i32),
        };
        r.expect("sample");
    }
    w.finalize().expect("finalize");
    out.into_inner()
}

/// The numbers of a RIFF/WAVE file: sizes, and every fmt field.
fn wav_fields(b: &[u8]) -> Vec<Field> {
    let mut f = vec![Field::new(4, 4, Kind::Len)];
    let mut at = 12;
    while at + 8 <= b.len() {
        let id = &b[at..at + 4];
        f.push(Field::new(at + 4, 4, Kind::Len));
        let size = u32::from_le_bytes([b[at + 4], b[at + 5], b[at + 6], b[at + 7]]) as usize;
        if id == b"fmt " {
            let p = at + 8;
            f.push(Field::new(p, 2, Kind::Tag));
            f.push(Field::new(p + 2, 2, Kind::Quantity));
            f.push(Field::new(p + 4, 4, Kind::Quantity));
            f.push(Field::new(p + 8, 4, Kind::Quantity));
            f.push(Field::new(p + 12, 2, Kind::Quantity));
            f.push(Field::new(p + 14, 2, Kind::Quantity));
            if size >= 40 {
                f.push(Field::new(p + 16, 2, Kind::Len));
                f.push(Field::new(p + 18, 2, Kind::Quantity));
                f.push(Field::new(p + 20, 4, Kind::Tag));
                f.push(Field::new(p + 24, 2, Kind::Tag));
            }
        }
        at += 8 + size + (size & 1);
    }
    f
}

fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (channels, rate, bits, float) in [
        (1u16, 16_000u32, 16u16, false),
        (2, 44_100, 16, false),
        (1, 8_000, 8, false),
        (2, 48_000, 24, false),
        (1, 22_050, 32, false),
        (6, 48_000, 16, false),
        (1, 16_000, 32, true),
        (2, 48_000, 32, true),
    ] {
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: bits,
            sample_format: if float {
                hound::SampleFormat::Float
            } else {
                hound::SampleFormat::Int
            },
        };
        out.push(wav(spec, 300));
    }
    // The first 16 KiB of the real clips (their data sizes then claim more than is there).
    if let Ok(store) = pocket_assets::Store::open_default() {
        use pocket_assets::ids;
        for (id, file) in [(ids::JFK, "jfk.wav"), (ids::CARDS, "001.wav")] {
            if let Ok(p) = store.require_file(id, file)
                && let Ok(b) = std::fs::read(p)
            {
                out.push(b[..b.len().min(16 << 10)].to_vec());
            }
        }
    }
    out
}

fn exec(input: &[u8]) {
    let Some((&sel, wav)) = input.split_first() else {
        return;
    };
    let rate = RATES[usize::from(sel) % RATES.len()];
    let Ok(mono) = decode_mono(Cursor::new(wav), rate, Path::new("<fuzz>")) else {
        return;
    };
    assert!(!mono.is_empty());
    assert!(mono.len() as u64 <= MAX_SAMPLES, "{} samples", mono.len());
    assert!(mono.iter().all(|s| s.is_finite()), "non-finite sample");
    // Stream it back to another rate in chunks of the size the selector byte says.
    let to = RATES[usize::from(sel / 8) % 5];
    let mut r = new_resampler(rate, to);
    let mut out = Vec::new();
    for chunk in mono.chunks(1 + usize::from(sel)) {
        r.process(chunk, &mut out);
    }
    let expect = mono.len() as f64 * f64::from(to) / f64::from(rate);
    assert!(
        (out.len() as f64) <= expect + 2.0,
        "{} samples from {} at {rate} -> {to} Hz",
        out.len(),
        mono.len()
    );
    assert!(
        out.iter().all(|s| s.is_finite()),
        "non-finite resampled sample"
    );
}

#[test]
fn fuzz_wav_in() {
    let seeds = seeds();
    let fields: Vec<Vec<Field>> = seeds.iter().map(|s| wav_fields(s)).collect();
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/wav_in");
    pocket_fuzz::replay_dir(&regressions, exec);
    pocket_fuzz::fuzz(
        "wav_in",
        |rng: &mut Rng| {
            let i = rng.below(seeds.len());
            let mut b = seeds[i].clone();
            if rng.one_in(8) && seeds.len() > 1 {
                // Splice: this file's header onto another's body.
                let other = &seeds[rng.below(seeds.len())];
                b.truncate(44.min(b.len()));
                b.extend_from_slice(&other[44.min(other.len())..]);
            }
            mutate::mutate(
                rng,
                &mut b,
                &fields[i],
                &[b"RIFF", b"WAVE", b"fmt ", b"data", b"LIST", b"\xfe\xff"],
            );
            let mut input = vec![rng.next_u64() as u8];
            input.extend_from_slice(&b);
            input
        },
        exec,
    );
}
