//! Streaming recognition: endpointing, partial results, final text, resampled and
//! multi-channel input, and bounded memory on endless input.

mod common;

use pocket_asr::{EndpointConfig, Recognizer, RecognizerConfig};

/// What a stream produced for a whole clip: final transcripts, spans, partial count.
struct Run {
    finals: Vec<pocket_asr::Transcript>,
    spans: Vec<pocket_asr::UtteranceSpan>,
    partials: usize,
}

impl Run {
    fn text(&self) -> String {
        self.finals
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Feeds `audio` in 100 ms chunks (at `rate` x `channels`), finishing and resetting at every
/// endpoint, and finishing what is left at the end.
fn stream_all(rec: &std::sync::Arc<Recognizer>, audio: &[f32], rate: u32, channels: u16) -> Run {
    let mut s = rec.stream();
    let chunk = rate as usize / 10 * usize::from(channels);
    let mut run = Run {
        finals: Vec::new(),
        spans: Vec::new(),
        partials: 0,
    };
    for c in audio.chunks(chunk) {
        s.accept_any(c, rate, channels).expect("accept");
        if s.partial().is_some() {
            run.partials += 1;
        }
        if s.is_endpoint() {
            run.spans.push(s.span().expect("span at endpoint"));
            run.finals.push(s.finish().expect("final"));
            s.reset();
            assert!(!s.is_endpoint() && s.partial().is_none());
        }
    }
    if s.in_speech() {
        run.finals.push(s.finish().expect("final"));
    }
    run
}

#[test]
fn jfk_streamed_gives_endpoints_partials_and_final_text() {
    let rec = common::tiny();
    let mut audio = common::jfk();
    audio.extend(common::noise(16_000 * 2, 0.002, 1));
    let run = stream_all(&rec, &audio, 16_000, 1);
    assert!(!run.spans.is_empty(), "no endpoint after the speech");
    assert!(run.partials > 0, "no partial result while speaking");
    for sp in &run.spans {
        let (end, at) = (sp.speech_end.expect("end"), sp.endpoint_at.expect("eou"));
        let wait = (at - end) as f64 / 16_000.0;
        assert!((0.35..0.6).contains(&wait), "end-silence wait {wait:.2} s");
        assert!(!sp.forced);
    }
    let text = run.text();
    assert!(
        common::errors(common::JFK_TEXT, &text) <= 2,
        "final: {text}"
    );
    // A final is decoded greedily first, verifying the last partial as a draft; the beam
    // searches only doubtful ones (and takes no draft).
    let kept: usize = run.finals.iter().map(|t| t.timings.draft_accepted).sum();
    assert!(kept > 0, "the last partial was never reused as a draft");
    assert!(
        run.finals
            .iter()
            .all(|t| !t.timings.beam_searched || t.timings.draft_accepted == 0),
        "beam search took a draft"
    );
    // With the beam on every final.
    let always = Recognizer::load(
        &common::model_dir("whisper-tiny.en"),
        pocket_asr::RecognizerConfig {
            beam_below_p: 1.0,
            ..Default::default()
        },
    )
    .expect("load tiny.en");
    let run = stream_all(&always, &audio, 16_000, 1);
    let text = run.text();
    assert!(
        common::errors(common::JFK_TEXT, &text) <= 2,
        "beam final: {text}"
    );
    assert!(
        run.finals
            .iter()
            .all(|t| t.timings.beam_searched && t.timings.draft_accepted == 0),
        "a final was not beam-searched, or took a draft"
    );
}

#[test]
fn other_rates_and_stereo_are_converted() {
    let rec = common::tiny();
    let jfk = common::jfk();
    let mut padded = jfk.clone();
    padded.extend(vec![0.0; 16_000]);
    for (rate, channels) in [(44_100u32, 1u16), (48_000, 2), (8_000, 1)] {
        let mono = if rate == 8_000 {
            // Crude 2:1 decimation with a 2-tap average: telephone bandwidth.
            padded
                .chunks(2)
                .map(|c| c.iter().sum::<f32>() / c.len() as f32)
                .collect()
        } else {
            common::upsample(&padded, rate)
        };
        let input: Vec<f32> = mono
            .iter()
            .flat_map(|&v| std::iter::repeat_n(v, usize::from(channels)))
            .collect();
        let text = stream_all(&rec, &input, rate, channels).text();
        let e = common::errors(common::JFK_TEXT, &text);
        assert!(e <= 3, "{rate} Hz x{channels}: {e} errors: {text}");
    }
    // A rate change without reset is refused clearly.
    let mut s = rec.stream();
    s.accept_any(&[0.0; 4410], 44_100, 1).expect("first");
    assert!(s.accept_any(&[0.0; 4800], 48_000, 1).is_err());
    assert!(s.accept_any(&[0.0; 3], 44_100, 2).is_err(), "half a frame");
}

#[test]
fn an_hour_of_audio_keeps_memory_bounded_and_forces_endpoints() {
    let rec = Recognizer::load(
        &common::model_dir("whisper-tiny.en"),
        RecognizerConfig {
            endpoint: EndpointConfig {
                max_utterance_ms: 4_000,
                ..Default::default()
            },
            partial_interval_ms: 30_000,
            ..Default::default()
        },
    )
    .expect("load");
    let mut s = rec.stream();
    // One hour of room noise in 100 ms chunks: no speech, nothing grows.
    let chunk = common::noise(1600, 0.003, 7);
    for _ in 0..36_000 {
        s.accept(&chunk);
        assert!(
            s.buffered_samples() <= 16_000,
            "buffer grew to {}",
            s.buffered_samples()
        );
    }
    assert!(!s.is_endpoint() && !s.in_speech());
    let t = s.finish().expect("finish");
    assert!(t.text.is_empty() && t.is_silence);
    // Continuous speech longer than max_utterance_ms: the end is forced and the buffer stays
    // within the limit even if the caller keeps feeding audio without reset.
    let jfk = common::jfk();
    let mut forced = 0;
    for _ in 0..3 {
        for c in jfk.chunks(1600) {
            s.accept(c);
            assert!(s.buffered_samples() <= 2 * 4_000 * 16 + 16_000);
            if s.is_endpoint() {
                forced += usize::from(s.span().is_some_and(|sp| sp.forced));
                let t = s.finish().expect("final");
                assert!(t.audio_secs <= 4.3, "utterance of {} s", t.audio_secs);
                s.reset();
            }
        }
    }
    assert!(forced >= 1, "max utterance length never forced an endpoint");
}

#[test]
fn a_final_decoded_at_the_callers_pause_is_the_final() {
    let rec = common::tiny();
    let jfk = common::jfk();
    // Up to the clip's true end of speech (its last sample within 40 dB of the loudest).
    let peak = jfk.iter().fold(0f32, |m, x| m.max(x.abs()));
    let end = jfk
        .iter()
        .rposition(|x| x.abs() >= peak * 0.01)
        .expect("speech");
    let last = &jfk[end + 1 - 16_000 * 3..=end];
    let mut s = rec.stream();
    for c in last.chunks(1600) {
        s.accept(c);
    }
    // The caller's endpointer saw ~120 ms of silence: decode now, before this stream's own.
    s.accept(&common::noise(1920, 0.002, 2));
    let (key, early) = s
        .speculate_now()
        .map(|(k, t)| (k, t.to_string()))
        .expect("text");
    assert!(early.to_lowercase().contains("country"), "{early}");
    assert_eq!(s.speculate_now().map(|(k, _)| k), Some(key), "asked again");
    for c in common::noise(16_000, 0.002, 3).chunks(1600) {
        s.accept(c);
    }
    assert!(s.is_endpoint());
    assert_eq!(
        s.early_final().map(|(k, _)| k),
        Some(key),
        "decoded again at the stream's own pause"
    );
    let t = s.finish().expect("final");
    assert!(t.timings.speculative, "the early decode was not used");
    assert_eq!(t.text.trim(), early.trim());

    // A driven stream has no detector: it decodes nothing early on its own, never ends the
    // utterance itself, and decodes the final up to where its caller says the speech ended.
    let mut d = rec.driven_stream();
    assert!(d.is_driven() && !s.is_driven());
    for c in last.chunks(1600) {
        d.accept(c);
    }
    let tail = common::noise(16_000, 0.002, 6);
    for c in tail.chunks(1600) {
        d.accept(c);
    }
    assert!(!d.is_endpoint() && d.early_final().is_none() && d.partial().is_none());
    d.speech_ended(tail.len() as u64);
    assert!(d.is_endpoint());
    assert_eq!(
        d.span().and_then(|sp| sp.speech_end),
        Some(last.len() as u64)
    );
    let t = d.finish().expect("final");
    assert!(!t.timings.speculative);
    assert!(t.text.to_lowercase().contains("country"), "{}", t.text);
    // Its partials come when asked.
    d.reset();
    assert!(d.partial_now().is_none(), "no audio, no partial");
    for c in last[..32_000].chunks(1600) {
        d.accept(c);
    }
    let p = d.partial_now().expect("a partial when asked");
    assert!(!p.trim().is_empty());

    // Speech after the early decode makes it stale.
    s.reset();
    for c in last.chunks(1600) {
        s.accept(c);
    }
    s.accept(&common::noise(1920, 0.002, 4));
    let early = s.speculate_now().map(|(_, t)| t.to_string()).expect("text");
    for c in last[..16_000].chunks(1600) {
        s.accept(c);
    }
    s.speech_resumed();
    for c in common::noise(16_000, 0.002, 5).chunks(1600) {
        s.accept(c);
    }
    let t = s.finish().expect("final");
    assert!(
        t.text.split_whitespace().count() > early.split_whitespace().count(),
        "a stale early decode was used: {:?} after {early:?}",
        t.text
    );
}

/// Scores one text as very unlikely, every other one alike.
struct Against(String);

impl pocket_asr::hearing::HearingScorer for Against {
    fn log_prob(&mut self, text: &str) -> Option<(f32, usize)> {
        Some((if text == self.0 { -1000.0 } else { -1.0 }, 4))
    }
}

#[test]
fn a_scorer_picks_among_the_beams_hearings_of_a_final() {
    // The beam runs on every final here, so the clip has other hearings.
    let rec = Recognizer::load(
        &common::model_dir("whisper-tiny.en"),
        RecognizerConfig {
            beam_below_p: 1.0,
            ..Default::default()
        },
    )
    .expect("load tiny.en");
    let jfk = common::jfk();
    let last = &jfk[jfk.len() - 16_000 * 4..];
    let tail = common::noise(8_000, 0.002, 7);
    let final_of = |s: &mut pocket_asr::AsrStream| {
        s.reset();
        s.accept(last);
        s.accept(&tail);
        s.speech_ended(tail.len() as u64);
        s.finish().expect("final")
    };
    let mut s = rec.driven_stream();
    let best = final_of(&mut s);
    assert!(
        best.timings.beam_searched && !best.others.is_empty(),
        "{best:?}"
    );
    assert_eq!(best.timings.hearing_ms, 0.0, "no scorer, no choice");

    // A scorer that finds the best hearing unlikely: the likeliest other one takes its place,
    // and the best joins the others.
    s.set_hearing_scorer(Box::new(Against(best.text.clone())));
    let picked = final_of(&mut s);
    assert_eq!(picked.text, best.others[0].text);
    assert_eq!(picked.tokens, best.others[0].tokens);
    assert_eq!(picked.others[0].text, best.text);
    assert!(picked.timings.hearing_ms > 0.0);

    // Speech over the assistant's reply keeps the recognizer's best.
    s.reset();
    s.set_context(pocket_asr::Context::OverReply);
    s.accept(last);
    s.accept(&tail);
    s.speech_ended(tail.len() as u64);
    let over = s.finish().expect("final");
    assert_eq!(over.timings.hearing_ms, 0.0);
}

#[test]
fn a_driven_utterance_can_go_on_from_the_last_finished_one() {
    let rec = common::tiny();
    let jfk = common::jfk();
    // "And so, my fellow Americans," | "ask not what your country can do for you, ..."
    let split = 16_000 * 36 / 10;
    let (first, rest) = jfk.split_at(split);
    let tail = common::noise(8_000, 0.002, 7);
    let utterance = |d: &mut pocket_asr::AsrStream, audio: &[f32]| {
        for c in audio.chunks(1600).chain(tail.chunks(1600)) {
            d.accept(c);
        }
        d.speech_ended(tail.len() as u64);
        d.finish().expect("final").text.to_lowercase()
    };
    let mut d = rec.driven_stream();
    assert!(!d.continue_previous(), "nothing finished yet");
    let heard = utterance(&mut d, first);
    assert!(
        heard.contains("americans") && !heard.contains("country"),
        "{heard}"
    );
    d.reset();
    assert!(d.continue_previous(), "the first utterance was finished");
    let both = utterance(&mut d, rest);
    assert!(
        both.contains("americans") && both.contains("country"),
        "{both}"
    );
    // The two together (11 s) are longer than an utterance may be to go on from (8 s).
    d.reset();
    assert!(!d.continue_previous());
    let alone = utterance(&mut d, rest);
    assert!(
        alone.contains("country") && !alone.contains("americans"),
        "{alone}"
    );
    // Audio given already, or a stream that finds its own utterances: no.
    d.reset();
    d.accept(&rest[..1600]);
    assert!(!d.continue_previous());
    assert!(!rec.stream().continue_previous());
}
