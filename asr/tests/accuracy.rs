//! Word error rate of tiny.en on the LibriVox clips and jfk.wav against faster-whisper with the
//! same weights, decoding greedily and by beam search (also with the prompt of speech over a
//! reply, and with the voice loop's earlier text of everyday questions), plus one base-model
//! clip.
//!
//! faster-whisper's number was measured with (float32, greedy, no timestamps, 2 threads):
//! `bench/asr.sh` (it runs `bench/asr_faster_whisper.py MODEL CLIP=REF ... --compute float32`)
//! which printed `fw-float32 WER 4.30 4/93` for whisper-tiny.en (`fw-int8 WER 6.45 6/93`);
//! `bench/asr_faster_whisper.py ... --compute float32 --beam 5` also printed 4.30 (4/93).

mod common;

use pocket_asr::{Context, Recognizer, RecognizerConfig};

/// faster-whisper 1.2.1 (CTranslate2 4.8.5), tiny.en, float32, temperature 0, beam_size 1
/// and 5 alike.
const FASTER_WHISPER_WER: f64 = 4.30;

#[test]
fn tiny_en_greedy_wer_within_one_point_of_faster_whisper() {
    tiny_en_wer_within_one_point(1, Context::Plain);
}

#[test]
fn tiny_en_beam_wer_within_one_point_of_faster_whisper() {
    tiny_en_wer_within_one_point(5, Context::Plain);
}

/// The prompt of speech over a reply (hums and commands as earlier text) must not cost
/// ordinary sentences their words: a new question asked over a reply is heard as well.
#[test]
fn tiny_en_over_reply_prompt_keeps_sentences_within_one_point_of_faster_whisper() {
    tiny_en_wer_within_one_point(5, Context::OverReply);
}

/// The voice loop's earlier text (a few everyday questions) helps tiny.en hear questions; it
/// must not turn read prose into questions or cost it words.
#[test]
fn tiny_en_question_text_keeps_sentences_within_one_point_of_faster_whisper() {
    tiny_en_wer_within_one_point_after(5, Context::Plain, pocket_asr::context::QUESTION_TEXT);
}

fn tiny_en_wer_within_one_point(beam_size: usize, context: Context) {
    tiny_en_wer_within_one_point_after(beam_size, context, "");
}

fn tiny_en_wer_within_one_point_after(beam_size: usize, context: Context, plain_text: &str) {
    let rec = Recognizer::load(
        &common::model_dir("whisper-tiny.en"),
        RecognizerConfig {
            beam_size,
            plain_text: plain_text.to_string(),
            ..Default::default()
        },
    )
    .expect("load tiny.en");
    let mut clips = common::librivox();
    clips.push(("jfk".into(), common::jfk(), common::JFK_TEXT.into()));
    let (mut errors, mut words) = (0, 0);
    for (id, samples, reference) in &clips {
        let t = rec.transcribe_in(samples, context).expect("transcribe");
        let r = common::normalize(reference);
        let e = common::edits(&r, &common::normalize(&t.text));
        println!("{id}: {e} errors / {} words: {}", r.len(), t.text);
        errors += e;
        words += r.len();
        assert!(
            !t.is_silence && t.no_speech_prob < 0.5,
            "{id}: speech judged silent"
        );
    }
    let wer = 100.0 * errors as f64 / words as f64;
    println!(
        "beam {beam_size}, {context:?}: WER {wer:.2}% ({errors}/{words}); faster-whisper {FASTER_WHISPER_WER:.2}%"
    );
    assert!(
        wer <= FASTER_WHISPER_WER + 1.0,
        "beam {beam_size}: WER {wer:.2}% is more than 1 point above faster-whisper's {FASTER_WHISPER_WER:.2}%"
    );
}

#[test]
fn base_model_transcribes_jfk_in_english_and_checks_the_language_code() {
    let dir = common::model_dir("whisper-base");
    let rec = Recognizer::load(&dir, RecognizerConfig::default()).expect("load base");
    let t = rec.transcribe(&common::jfk()).expect("transcribe");
    let r = common::normalize(common::JFK_TEXT);
    let e = common::edits(&r, &common::normalize(&t.text));
    assert!(e <= 1, "base on jfk: {e} errors: {}", t.text);
    let bad = RecognizerConfig {
        language: Some("xx".into()),
        ..Default::default()
    };
    assert!(matches!(
        Recognizer::load(&dir, bad),
        Err(pocket_asr::AsrError::BadConfig(_))
    ));
}
