//! The headless path on mock engines and the real clock: clips played as the microphone through
//! `converse`, the reply collected by the file sink, and a complete latency report.

use std::time::Duration;

use super::mocks::{mock_engines, noise};
use crate::audio::file::{ClipEnd, FileSink, Pace, TurnOutcome, converse, converse_timed};
use crate::config::{EndpointConfig, EndpointMode, PipelineConfig};
use crate::handle::Pipeline;

/// Both ways of keeping the replies: in memory, and written to a WAV file as they play
/// (`FileSink::recording`, nothing held in memory).
#[test]
fn converse_fast_writes_replies_and_a_complete_report() {
    for to_file in [false, true] {
        converse_fast_with(to_file);
    }
}

fn converse_fast_with(to_file: bool) {
    let engines = mock_engines(
        &["hello", "", "how are you"],
        vec![vec!["Hi there,", " friend."], vec!["Fine,", " thanks."]],
    );
    let config = PipelineConfig {
        output_rate: 24_000,
        echo_cancel: false,
        ..PipelineConfig::default()
    };
    let (pipeline, ports) = Pipeline::start(engines, config).expect("starts");
    let handle = pipeline.handle();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("said.wav");
    let sink = if to_file {
        FileSink::recording(ports.speaker, ports.output_rate, Pace::Fast, &path)
    } else {
        FileSink::spawn(ports.speaker, ports.output_rate, Pace::Fast)
    }
    .expect("sink");
    let mut mic = ports.mic;
    let mut seed = 11;
    let speech = noise(&mut seed, 16_000, 0.3);
    let quiet = vec![0.0f32; 8000];
    let clips = vec![speech.clone(), speech.clone(), quiet, speech];
    let outcomes = converse(
        &mut mic,
        &handle,
        &clips,
        Pace::Fast,
        Duration::from_secs(30),
    )
    .expect("turns");
    assert_eq!(
        outcomes,
        vec![
            TurnOutcome::Answered,
            TurnOutcome::NoReply,
            TurnOutcome::NoSpeech,
            TurnOutcome::Answered
        ]
    );
    let said = if to_file {
        assert!(sink.take().is_empty(), "a recording sink holds nothing");
        sink.finish_file().expect("file completed");
        crate::audio::wav::read_mono(&path, 24_000).expect("a whole WAV file")
    } else {
        sink.finish()
    };
    // "Hi there, friend." + "Fine, thanks." = 30 characters at 10 ms each, plus a 300 ms gap.
    let expect = (30 * 10 + 300) * 24;
    assert!(
        said.len().abs_diff(expect) < 2400,
        "{} vs {expect}",
        said.len()
    );
    assert!(said.iter().any(|s| s.abs() > 0.01), "replies, not silence");
    let report = handle.report();
    assert_eq!(report.turns.len(), 2);
    for t in &report.turns {
        assert!(t.metrics.is_complete(), "{t:?}");
        assert!(t.response_latency_ms.is_some_and(|l| l >= 0.0));
    }
    assert_eq!(report.turns[1].user_text, "how are you");
    // A fast sink finds the ring empty all the time: no underruns are reported.
    assert_eq!(report.underruns, None);
    drop(mic);
    pipeline.shutdown();
}

/// A recording sink whose file cannot be created fails at once, before a session runs.
#[test]
fn a_recording_sink_refuses_a_path_it_cannot_write() {
    let (pipeline, ports) =
        Pipeline::start(mock_engines(&[], vec![]), PipelineConfig::default()).expect("starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no such folder").join("said.wav");
    assert!(matches!(
        FileSink::recording(ports.speaker, 24_000, Pace::Fast, &missing),
        Err(crate::PipelineError::AudioFile { .. })
    ));
    drop(ports.mic);
    pipeline.shutdown();
}

/// A clip with a 2 s pause inside: the fixed 400 ms rule makes two turns of it (the reply to
/// the first part is cut off by the second), push-to-talk released at its end makes one,
/// which hears the whole clip.
#[test]
fn a_held_clip_is_one_turn_whatever_its_pauses() {
    let mut seed = 5;
    let mut clip = noise(&mut seed, 16_000, 0.3);
    clip.extend(std::iter::repeat_n(0.0, 32_000));
    clip.extend(noise(&mut seed, 16_000, 0.3));
    clip.extend(std::iter::repeat_n(0.0, 4_000));
    for (end, turns) in [(ClipEnd::Natural, 2), (ClipEnd::Held, 1)] {
        let replies = vec![vec!["One,", " two."], vec!["Three,", " four."]];
        let config = PipelineConfig {
            output_rate: 16_000,
            echo_cancel: false,
            endpoint: EndpointConfig {
                mode: EndpointMode::Fixed,
                ..EndpointConfig::default()
            },
            ..PipelineConfig::default()
        };
        let (pipeline, ports) =
            Pipeline::start(mock_engines(&["first", "second"], replies), config).expect("starts");
        let handle = pipeline.handle();
        let _sink = FileSink::spawn(ports.speaker, ports.output_rate, Pace::Fast).expect("sink");
        let mut mic = ports.mic;
        let timing = (Pace::Fast, Duration::from_secs(30));
        let out = converse_timed(&mut mic, &handle, &[clip.clone()], timing, end).expect("turn");
        assert_eq!(
            out[0].outcome,
            TurnOutcome::Answered,
            "{end:?}: {:#?}",
            handle.report()
        );
        let report = handle.report();
        assert_eq!(report.turns.len(), turns, "{end:?}: {report:#?}");
        let last = report.turns.last().expect("a turn");
        assert_eq!(last.user_text, if turns == 1 { "first" } else { "second" });
        assert!(last.heard.is_none(), "{end:?}: the last reply played whole");
        drop(mic);
        pipeline.shutdown();
    }
}
