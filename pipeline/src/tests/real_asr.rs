//! The capture side with the real engines: jfk.wav played as the microphone through the
//! pipeline's VAD (Silero) and endpointer into Whisper tiny.en gives the right transcript.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::mocks::{MockChat, MockSpeaker};
use crate::audio::file::{FileSink, Pace, converse};
use crate::clock::Clock;
use crate::config::PipelineConfig;
use crate::engines::Engines;
use crate::engines::asr::{VadDetector, WhisperTranscriber};
use crate::engines::tts::ReplySegmenter;
use crate::handle::Pipeline;
use crate::types::Event;

#[test]
fn jfk_through_the_ears_gives_the_transcript() {
    let store = pocket_assets::Store::open_default().expect("store");
    let model = store
        .require(pocket_assets::ids::WHISPER_TINY_EN)
        .expect("whisper tiny.en (pocket assets fetch)");
    let jfk = store
        .require_file(pocket_assets::ids::JFK, "jfk.wav")
        .expect("jfk.wav");
    let clip = crate::audio::wav::read_mono(&jfk, 16_000).expect("reads");
    let silero = store
        .require_file(pocket_assets::ids::SILERO_VAD, "silero_vad_16k.safetensors")
        .expect("silero weights");
    let rec = WhisperTranscriber::recognizer(
        &model,
        2,
        Some(silero),
        pocket_asr::Search::always_beam(5),
        "",
    )
    .expect("model loads");
    let engines = Engines {
        detector: Box::new(VadDetector(rec.new_vad())),
        transcriber: Box::new(WhisperTranscriber::new(&rec, false)),
        chat: Box::new(MockChat {
            replies: vec![vec!["Thank you."]].into(),
            piece_delay: Duration::ZERO,
            clock: Clock::real(),
            log: Arc::new(Mutex::new(Vec::new())),
            last: None,
        }),
        segmenter: Box::new(ReplySegmenter::default()),
        speaker: Box::new(MockSpeaker {
            seed: 1,
            fail_on: None,
        }),
        turn: None,
        words_judge: None,
    };
    let config = PipelineConfig {
        echo_cancel: false,
        // jfk.wav pauses for over a second between its phrases.
        endpoint: crate::config::EndpointConfig {
            end_silence: Duration::from_millis(1500),
            ..Default::default()
        },
        ..PipelineConfig::default()
    };
    let (pipeline, ports) = Pipeline::start(engines, config).expect("starts");
    let handle = pipeline.handle();
    let events = handle.subscribe();
    let sink = FileSink::spawn(ports.speaker, ports.output_rate, Pace::Fast).expect("sink");
    let mut mic = ports.mic;
    let t = std::time::Instant::now();
    converse(
        &mut mic,
        &handle,
        &[clip],
        Pace::Fast,
        Duration::from_secs(60),
    )
    .expect("turn");
    println!("turn took {:?}", t.elapsed());
    let finals: Vec<String> = events
        .try_iter()
        .filter_map(|s| match s.event {
            Event::FinalTranscript { text, .. } => Some(text.to_lowercase()),
            _ => None,
        })
        .collect();
    assert_eq!(finals.len(), 1, "{finals:?}");
    assert!(
        finals[0].contains("ask not what your country can do for you"),
        "{finals:?}"
    );
    assert!(!sink.finish().is_empty());
    drop(mic);
    pipeline.shutdown();
}
