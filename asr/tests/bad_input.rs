//! Bad input: empty, silent, noisy, clipped and NaN-bearing audio, corrupt model files, a
//! prompt setting too long for the decoder.

mod common;

use pocket_asr::{AsrError, Recognizer};

#[test]
fn empty_audio_is_a_clear_error() {
    let rec = common::tiny();
    assert!(matches!(rec.transcribe(&[]), Err(AsrError::BadAudio(_))));
    let mut s = rec.stream();
    s.accept(&[]);
    let t = s.finish().expect("finish without audio");
    assert!(t.text.is_empty() && t.is_silence);
}

#[test]
fn silence_and_noise_produce_no_text() {
    let rec = common::tiny();
    for (name, audio) in [
        ("digital silence", vec![0.0; 16_000 * 3]),
        ("white noise", common::noise(16_000 * 3, 0.05, 3)),
        ("quiet hiss", common::noise(16_000 * 5, 0.002, 4)),
    ] {
        let t = rec.transcribe(&audio).expect("transcribe");
        assert!(
            t.text.is_empty(),
            "{name} produced text {:?} (no_speech {:.2})",
            t.text,
            t.no_speech_prob
        );
    }
}

#[test]
fn clipped_and_nan_bearing_speech_is_still_recognized() {
    let rec = common::tiny();
    let jfk = common::jfk();
    let clipped: Vec<f32> = jfk.iter().map(|v| (v * 8.0).clamp(-1.0, 1.0)).collect();
    let t = rec.transcribe(&clipped).expect("clipped");
    assert!(
        common::errors(common::JFK_TEXT, &t.text) <= 3,
        "clipped: {}",
        t.text
    );
    let mut nan = jfk.clone();
    for v in nan.iter_mut().step_by(997) {
        *v = f32::NAN;
    }
    nan[5] = f32::INFINITY;
    nan[6] = 7.5;
    let t = rec.transcribe(&nan).expect("nan-bearing");
    assert!(t.timings.repaired_samples >= nan.len() / 997);
    assert!(
        common::errors(common::JFK_TEXT, &t.text) <= 1,
        "nan-bearing: {}",
        t.text
    );
}

fn copy_model(dir: &std::path::Path, tmp: &std::path::Path, cut: Option<usize>) {
    for f in ["config.json", "vocabulary.txt"] {
        std::fs::copy(dir.join(f), tmp.join(f)).expect("copy");
    }
    let bin = std::fs::read(dir.join("model.bin")).expect("model.bin");
    let bytes = match cut {
        Some(n) => bin[..n].to_vec(),
        None => {
            let mut b = bin;
            // Corrupt the first variable's rank byte area: an impossible dimension.
            for v in &mut b[40..60] {
                *v = 0xff;
            }
            b
        }
    };
    std::fs::write(tmp.join("model.bin"), bytes).expect("write");
}

#[test]
fn corrupt_or_truncated_model_is_a_clear_error() {
    let dir = common::model_dir("whisper-tiny.en");
    let len = std::fs::metadata(dir.join("model.bin"))
        .expect("size")
        .len() as usize;
    for cut in [
        Some(0),
        Some(3),
        Some(1000),
        Some(len / 2),
        Some(len - 1),
        None,
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        copy_model(&dir, tmp.path(), cut);
        let err = Recognizer::load(tmp.path(), Default::default()).expect_err("must fail");
        assert!(matches!(err, AsrError::BadModel { .. }), "{cut:?}: {err}");
        assert!(err.to_string().contains("model.bin"), "{err}");
    }
    let empty = tempfile::tempdir().expect("tmp");
    assert!(matches!(
        Recognizer::load(empty.path(), Default::default()),
        Err(AsrError::Io { .. })
    ));
}

#[test]
fn an_earlier_text_too_long_for_the_decoder_is_a_clear_error() {
    let long = " Mm-hmm.".repeat(40);
    let configs = [
        (
            "over_reply_text",
            pocket_asr::RecognizerConfig {
                over_reply_text: long.clone(),
                ..Default::default()
            },
        ),
        (
            "plain_text",
            pocket_asr::RecognizerConfig {
                plain_text: long,
                ..Default::default()
            },
        ),
    ];
    for (setting, cfg) in configs {
        let err = Recognizer::load(&common::model_dir("whisper-tiny.en"), cfg)
            .expect_err("a 200-token prompt does not fit");
        assert!(
            matches!(&err, AsrError::BadConfig(m) if m.contains(setting)),
            "a config error naming {setting}: {err}"
        );
    }
}
