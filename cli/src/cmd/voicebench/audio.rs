//! Audio and ttft modalities: the sample's audio is played as the microphone through the whole
//! voice loop (default engines), the conversation reset between samples. The sample is one
//! user turn, released where its speech ends (`--turn sample`), or left to the loop's
//! endpointing (`--turn natural`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use pocket_assets::Store;
use pocket_pipeline::audio::file::{
    ClipEnd, FileSink, Pace, TurnOutcome, converse_timed, speech_end_sample,
};
use pocket_pipeline::audio::wav;
use pocket_pipeline::engines::default::{EngineOptions, load_default};
use pocket_pipeline::metrics::TurnRecord;
use pocket_pipeline::resample::resample_all;
use pocket_pipeline::{Event, MicSender, Pipeline, PipelineConfig, PipelineHandle};
use pocket_voicebench::{Record, Sample};

use super::outcome::read_turns;
use super::spec::TurnEnd;
use super::worker::Answerer;

/// The longest one sample's turn may take.
const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest utterance the loop takes in one turn: Whisper reads a 30 s window, and the
/// pre-roll and the recognizer's padding come out of it.
const MAX_UTTERANCE: Duration = Duration::from_secs(28);

/// How the loop is set up for a run.
#[derive(Clone, Debug)]
pub struct AudioSetup {
    pub engines: EngineOptions,
    pub pace: Pace,
    /// Stop each reply as soon as its first audio plays (ttft).
    pub stop_at_first_audio: bool,
    /// How a sample's turn ends.
    pub turn: TurnEnd,
    /// How turns end (fixed silence or the end-of-turn classifier).
    pub endpoint: pocket_pipeline::EndpointConfig,
    pub first_audio_gate: Option<Duration>,
    /// Where to save each spoken reply (`<dir>/<key>.wav`), if at all.
    pub audio_dir: Option<PathBuf>,
}

pub struct AudioAnswerer {
    setup: AudioSetup,
    handle: PipelineHandle,
    mic: Option<MicSender>,
    sink: Option<FileSink>,
    pipeline: Option<Pipeline>,
    rate: u32,
    watcher: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
}

impl AudioAnswerer {
    pub fn new(store: &Store, setup: AudioSetup) -> Result<Self> {
        let loaded = load_default(store, &setup.engines)?;
        for w in &loaded.warnings {
            eprintln!("note: {w}");
        }
        let config = PipelineConfig {
            output_rate: loaded.voice_rate,
            echo_cancel: false,
            first_audio_gate: setup.first_audio_gate,
            endpoint: pocket_pipeline::EndpointConfig {
                max_utterance: MAX_UTTERANCE,
                // Each sample is a question of its own, however soon the next one starts.
                continue_within: None,
                ..setup.endpoint.clone()
            },
            ..PipelineConfig::default()
        };
        let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
        let handle = pipeline.handle();
        let sink = FileSink::taking(ports.speaker, ports.output_rate, setup.pace)?;
        let watcher = if setup.stop_at_first_audio {
            Some(stop_at_first_audio(&handle)?)
        } else {
            None
        };
        Ok(Self {
            setup,
            handle,
            mic: Some(ports.mic),
            sink: Some(sink),
            pipeline: Some(pipeline),
            rate: ports.output_rate,
            watcher,
        })
    }

    /// The turn records the loop added for this sample: a record lands just after its
    /// turn's last event, so this waits for one (when `expect`ed) and then until no more
    /// come for `SETTLE`.
    fn turns_since(&self, before: usize, expect: bool) -> Vec<TurnRecord> {
        const SETTLE: Duration = Duration::from_millis(30);
        let wait = Duration::from_millis(if expect { 5000 } else { 1000 });
        let start = Instant::now();
        let (mut seen, mut changed) = (0, Instant::now());
        loop {
            let turns = self.handle.records_since(before);
            if turns.len() != seen {
                (seen, changed) = (turns.len(), Instant::now());
            }
            let settled = seen > 0 && changed.elapsed() >= SETTLE;
            if settled || start.elapsed() > wait {
                return turns;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Stops every reply once its first audio has started (ttft runs).
fn stop_at_first_audio(handle: &PipelineHandle) -> Result<(Arc<AtomicBool>, JoinHandle<()>)> {
    let events = handle.subscribe();
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, h) = (stop.clone(), handle.clone());
    let t = std::thread::Builder::new()
        .name("voicebench-ttft".into())
        .spawn(move || {
            while !flag.load(Ordering::Acquire) {
                if let Ok(e) = events.recv_timeout(Duration::from_millis(50))
                    && matches!(e.event, Event::AudioStarted { .. })
                {
                    h.stop_speaking();
                }
            }
        })?;
    Ok((stop, t))
}

impl Answerer for AudioAnswerer {
    fn answer(&mut self, sample: &Sample) -> Result<Record> {
        let audio = sample
            .decode_audio()?
            .ok_or_else(|| anyhow!("sample {} has no audio", sample.sample_key))?;
        let clip = if audio.sample_rate == 16_000 {
            audio.samples
        } else {
            resample_all(&audio.samples, audio.sample_rate, 16_000)
        };
        let mic = self
            .mic
            .as_mut()
            .ok_or_else(|| anyhow!("pipeline stopped"))?;
        let sink = self
            .sink
            .as_ref()
            .ok_or_else(|| anyhow!("pipeline stopped"))?;
        // Held, the turn runs from the press (with the pre-roll) to the end of speech.
        let speech = speech_end_sample(&clip).map_or(0.0, |e| e as f64 / 16_000.0) + 0.3;
        if self.setup.turn == TurnEnd::Sample && speech > MAX_UTTERANCE.as_secs_f64() {
            return Err(anyhow!(
                "the sample is {speech:.1} s long, longer than one turn the loop takes ({} s)",
                MAX_UTTERANCE.as_secs()
            ));
        }
        self.handle.reset();
        sink.take();
        let before = self.handle.recorded();
        let end = match self.setup.turn {
            TurnEnd::Sample => ClipEnd::Held,
            TurnEnd::Natural => ClipEnd::Natural,
        };
        let timing = (self.setup.pace, TURN_TIMEOUT);
        let turns = converse_timed(mic, &self.handle, &[clip], timing, end)?;
        let clip_turn = turns
            .into_iter()
            .next()
            .ok_or_else(|| anyhow!("no turn outcome"))?;
        let expect = clip_turn.outcome != TurnOutcome::NoSpeech;
        let records = self.turns_since(before, expect);
        let read = read_turns(&records, &clip_turn.outcome, self.setup.stop_at_first_audio);
        let mut r = Record::from_sample(sample, read.response);
        r.transcript = Some(read.transcript);
        r.extra
            .insert("outcome".into(), read.outcome.as_str().into());
        r.extra.insert("turns".into(), read.turns.into());
        if let Some(t) = records.last() {
            let m = &t.metrics;
            for (name, v) in m.stages() {
                if let Some(v) = v {
                    r.timings.insert(name.into(), v);
                }
            }
            if let Some(v) = m.first_audio_latency() {
                r.timings.insert("first_audio".into(), v);
            }
            if let Some(v) = m.response_latency() {
                r.timings.insert("response".into(), v);
            }
            // The clip's true end of speech means something only when it went in at real time.
            if self.setup.pace == Pace::Realtime
                && let (Some(fa), Some(end)) = (m.first_audio, clip_turn.true_speech_end_ms)
            {
                r.timings.insert("first_audio_true_end".into(), fa - end);
            }
        }
        if let Some(dir) = &self.setup.audio_dir {
            let said = sink.take();
            let k = &sample.sample_key;
            let name = format!("{}-{}-{}.wav", k.subset, k.split, k.index);
            let path = dir.join(&name);
            wav::write_mono(&path, &said, self.rate)
                .with_context(|| format!("writing {}", path.display()))?;
            r.audio_path = Some(format!("audio/{name}"));
        }
        Ok(r)
    }
}

impl Drop for AudioAnswerer {
    fn drop(&mut self) {
        if let Some((stop, t)) = self.watcher.take() {
            stop.store(true, Ordering::Release);
            let _ = t.join();
        }
        self.handle.shutdown();
        self.sink.take();
        self.mic.take();
        if let Some(p) = self.pipeline.take() {
            p.shutdown();
        }
    }
}
