//! Audio and ttft modalities: the sample's audio is played as the microphone through the whole
//! voice loop (default engines), one turn per sample, the conversation reset between samples.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use pocket_assets::Store;
use pocket_pipeline::audio::file::{Pace, converse_timed};
use pocket_pipeline::audio::resample::resample_all;
use pocket_pipeline::audio::wav;
use pocket_pipeline::engines::default::{EngineOptions, load_default};
use pocket_pipeline::metrics::TurnRecord;
use pocket_pipeline::{Event, MicSender, Pipeline, PipelineConfig, PipelineHandle};
use pocket_voicebench::{Record, Sample};

use super::sink::TakeSink;
use super::worker::Answerer;

/// The longest one sample's turn may take.
const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// How the loop is set up for a run.
#[derive(Clone, Debug)]
pub struct AudioSetup {
    pub engines: EngineOptions,
    pub pace: Pace,
    /// Stop each reply as soon as its first audio plays (ttft).
    pub stop_at_first_audio: bool,
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
    sink: Option<TakeSink>,
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
            endpoint: setup.endpoint.clone(),
            ..PipelineConfig::default()
        };
        let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
        let handle = pipeline.handle();
        let sink = TakeSink::spawn(ports.speaker, ports.output_rate, setup.pace)?;
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

    /// The turn record the loop adds for this sample (it lands just after the turn's last
    /// event), if the sample made a turn.
    fn new_turn(&self, before: usize, answered: bool) -> Option<TurnRecord> {
        let wait = Duration::from_millis(if answered { 5000 } else { 1000 });
        let start = Instant::now();
        loop {
            if let Some(rec) = self.handle.records_since(before).pop() {
                return Some(rec);
            }
            if start.elapsed() > wait {
                return None;
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
        self.handle.reset();
        sink.take();
        let before = self.handle.recorded();
        let turns = converse_timed(mic, &self.handle, &[clip], self.setup.pace, TURN_TIMEOUT)?;
        let clip_turn = turns
            .into_iter()
            .next()
            .ok_or_else(|| anyhow!("no turn outcome"))?;
        let answered = clip_turn.outcome == pocket_pipeline::audio::file::TurnOutcome::Answered;
        let turn = self.new_turn(before, answered);
        let mut r = Record::from_sample(sample, turn.as_ref().map_or("", |t| t.reply_text.trim()));
        r.transcript = Some(turn.as_ref().map_or(String::new(), |t| t.user_text.clone()));
        let stopped = self.setup.stop_at_first_audio
            && turn
                .as_ref()
                .is_some_and(|t| t.metrics.first_audio.is_some());
        let outcome = if stopped {
            "stopped_at_first_audio".to_string()
        } else {
            format!("{:?}", clip_turn.outcome).to_lowercase()
        };
        r.extra.insert("outcome".into(), outcome.into());
        if let Some(t) = &turn {
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
