//! File input mode: WAV clips play as the microphone at real time, with silence around them, and
//! the reply goes to a real-time sink instead of a speaker (optionally saved with `--output`).
//! Used by the end-to-end test and for demos without a microphone.
//!
//! Clips play one after another, each when its trigger fires (`--input` syntax):
//! - `PATH`: 1 s after the session starts (first clip) or after the previous clip's reply ends;
//! - `PATH@SECONDS`: at that time from the session start (once the previous clip has played);
//! - `PATH@speaking+SECONDS`: that long after the assistant starts speaking its reply to the
//!   previous clip — a barge-in.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use pocket_pipeline::audio::file::{FileSink, Pace};
use pocket_pipeline::audio::wav;
use pocket_pipeline::{AudioPorts, Event, MicSender, PipelineHandle, Stamped, State};

use crate::error::AppError;

/// Rate of the microphone side of the pipeline.
const MIC_RATE: u32 = 16_000;
/// 10 ms at 16 kHz.
const FRAME: usize = 160;
/// Pause before a clip that waits for the session start or the previous reply.
const GAP: Duration = Duration::from_secs(1);
/// A clip waiting for a reply that never comes (nothing was recognized) starts after this.
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// When a clip starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trigger {
    /// After the session starts (first clip) or after the previous clip's reply ended, plus 1 s.
    AfterReply,
    /// At this time from the session start.
    At(Duration),
    /// This long after the assistant starts speaking its reply to the previous clip.
    WhileSpeaking(Duration),
}

/// One clip and its trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipSpec {
    pub path: PathBuf,
    pub trigger: Trigger,
}

fn seconds(arg: &str, s: &str) -> Result<Duration, AppError> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3600.0).contains(&v) => Ok(Duration::from_secs_f64(v)),
        _ => Err(AppError::Usage(format!(
            "--input {arg}: {s:?} is not a time of 0..=3600 s"
        ))),
    }
}

impl ClipSpec {
    /// Parses `PATH`, `PATH@SECONDS` or `PATH@speaking+SECONDS`.
    pub fn parse(arg: &str) -> Result<Self, AppError> {
        let (path, trigger) = match arg.rsplit_once('@') {
            Some((path, when)) if when.starts_with("speaking+") => (
                path,
                Trigger::WhileSpeaking(seconds(arg, &when["speaking+".len()..])?),
            ),
            Some((path, when)) if when.parse::<f64>().is_ok() => {
                (path, Trigger::At(seconds(arg, when)?))
            }
            _ => (arg, Trigger::AfterReply),
        };
        if path.is_empty() {
            return Err(AppError::Usage(format!("--input {arg}: no file name")));
        }
        Ok(Self {
            path: PathBuf::from(path),
            trigger,
        })
    }
}

/// A loaded clip.
struct Clip {
    name: String,
    trigger: Trigger,
    samples: Vec<f32>,
}

fn load(specs: &[ClipSpec]) -> Result<Vec<Clip>, AppError> {
    specs
        .iter()
        .map(|s| {
            Ok(Clip {
                name: display_name(&s.path),
                trigger: s.trigger,
                samples: wav::read_mono(&s.path, MIC_RATE)?,
            })
        })
        .collect()
}

fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// What the conversation did since the last clip ended playing.
#[derive(Debug, Default, Clone, Copy)]
struct Progress {
    /// The assistant started speaking (time since the session start).
    speaking_at: Option<Duration>,
    /// Its reply ended (played, cut off, or nothing to say) and it listens again.
    reply_done_at: Option<Duration>,
    replying: bool,
}

impl Progress {
    fn on_event(&mut self, ev: &Event, now: Duration) {
        match ev {
            Event::FinalTranscript { turn: Some(_), .. } => self.replying = true,
            Event::AudioStarted { .. } => {
                self.replying = true;
                self.speaking_at.get_or_insert(now);
            }
            Event::State {
                state: State::Listening,
            } if self.replying => {
                self.reply_done_at.get_or_insert(now);
            }
            _ => {}
        }
    }
}

/// Decides when each clip starts. `now` counts from the session start.
struct Scheduler {
    clips: Vec<Clip>,
    next: usize,
    /// When the previous clip finished playing (`None` before the first clip).
    prev_end: Option<Duration>,
    progress: Progress,
}

impl Scheduler {
    fn due(&self, now: Duration) -> bool {
        let Some(clip) = self.clips.get(self.next) else {
            return false;
        };
        let p = &self.progress;
        match (clip.trigger, self.prev_end) {
            (Trigger::At(t), _) => now >= t,
            (Trigger::AfterReply, None) => now >= GAP,
            (Trigger::AfterReply, Some(end)) => match p.reply_done_at {
                Some(done) => now >= done + GAP,
                None => now >= end + REPLY_TIMEOUT,
            },
            (Trigger::WhileSpeaking(d), Some(_)) => p.speaking_at.is_some_and(|s| now >= s + d),
            (Trigger::WhileSpeaking(d), None) => now >= d,
        }
    }
}

/// Clips feeding the microphone and a sink taking the reply, until dropped or finished.
pub struct FileAudio {
    feeder: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    sink: Option<FileSink>,
    output: Option<(PathBuf, u32)>,
}

impl FileAudio {
    /// Starts feeding `specs` into `ports.mic` at real time, following `handle`'s events for the
    /// triggers; `on_clip` hears each clip's name as it starts. Replies play into a real-time
    /// sink, written to `output` by [`FileAudio::finish`].
    pub fn start(
        ports: AudioPorts,
        handle: &PipelineHandle,
        specs: &[ClipSpec],
        output: Option<PathBuf>,
        on_clip: Box<dyn FnMut(&str) + Send>,
    ) -> Result<Self, AppError> {
        let clips = load(specs)?;
        let AudioPorts {
            mic,
            speaker,
            output_rate,
            running,
            ..
        } = ports;
        let sink = FileSink::spawn(speaker, output_rate, Pace::Realtime)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let events = handle.subscribe();
        let scheduler = Scheduler {
            clips,
            next: 0,
            prev_end: None,
            progress: Progress::default(),
        };
        let feeder = std::thread::Builder::new()
            .name("pocket-file-input".into())
            .spawn(move || feed(mic, scheduler, &events, on_clip, &running, &flag))
            .map_err(|e| AppError::Internal(format!("cannot start the file input: {e}")))?;
        Ok(Self {
            feeder: Some(feeder),
            stop,
            sink: Some(sink),
            output: output.map(|p| (p, output_rate)),
        })
    }

    /// Stops feeding and writes what the assistant said to the `--output` file, if any.
    pub fn finish(mut self) -> Result<(), AppError> {
        self.stop_feeder();
        let said = self.sink.take().map(FileSink::finish).unwrap_or_default();
        if let Some((path, rate)) = self.output.take() {
            wav::write_mono(&path, &said, rate)?;
        }
        Ok(())
    }

    fn stop_feeder(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.feeder.take() {
            let _ = t.join();
        }
    }
}

impl Drop for FileAudio {
    fn drop(&mut self) {
        self.stop_feeder();
    }
}

/// Pushes 10 ms frames at real time — the current clip, or silence — until the pipeline stops
/// or `stop` is set.
fn feed(
    mut mic: MicSender,
    mut sched: Scheduler,
    events: &Receiver<Stamped>,
    mut on_clip: Box<dyn FnMut(&str) + Send>,
    running: &AtomicBool,
    stop: &AtomicBool,
) {
    let t0 = Instant::now();
    let silence = [0.0f32; FRAME];
    let mut playing: Option<(usize, usize)> = None; // (clip index, next sample)
    let mut frames = 0u64;
    while running.load(Ordering::Acquire) && !stop.load(Ordering::Acquire) {
        let now = t0.elapsed();
        while let Ok(ev) = events.try_recv() {
            sched.progress.on_event(&ev.event, now);
        }
        if playing.is_none() && sched.due(now) {
            on_clip(&sched.clips[sched.next].name);
            playing = Some((sched.next, 0));
            sched.next += 1;
        }
        match playing {
            Some((i, pos)) => {
                let samples = &sched.clips[i].samples;
                let end = (pos + FRAME).min(samples.len());
                let mut frame = silence;
                frame[..end - pos].copy_from_slice(&samples[pos..end]);
                mic.push(&frame);
                if end == samples.len() {
                    playing = None;
                    sched.prev_end = Some(now);
                    sched.progress = Progress::default();
                } else {
                    playing = Some((i, end));
                }
            }
            None => mic.push(&silence),
        }
        frames += 1;
        let due = t0 + Duration::from_millis(frames * 10);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pocket_pipeline::TurnId;

    #[test]
    fn parses_the_three_triggers() {
        let c = ClipSpec::parse("q.wav").expect("plain");
        assert_eq!(
            (c.path, c.trigger),
            (PathBuf::from("q.wav"), Trigger::AfterReply)
        );
        let c = ClipSpec::parse("dir/q.wav@2.5").expect("timed");
        assert_eq!(c.trigger, Trigger::At(Duration::from_millis(2500)));
        let c = ClipSpec::parse("b.wav@speaking+1.5").expect("barge-in");
        assert_eq!(
            c.trigger,
            Trigger::WhileSpeaking(Duration::from_millis(1500))
        );
        let c = ClipSpec::parse("odd@name.wav").expect("@ in the name");
        assert_eq!(c.path, PathBuf::from("odd@name.wav"));
        assert!(ClipSpec::parse("q.wav@-1").is_err());
        assert!(ClipSpec::parse("q.wav@speaking+x").is_err());
        assert!(ClipSpec::parse("@3").is_err());
    }

    fn sched(triggers: &[Trigger]) -> Scheduler {
        Scheduler {
            clips: triggers
                .iter()
                .map(|&trigger| Clip {
                    name: "c".into(),
                    trigger,
                    samples: vec![0.0; 10],
                })
                .collect(),
            next: 0,
            prev_end: None,
            progress: Progress::default(),
        }
    }

    fn s(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn clips_wait_for_the_reply_or_the_speech_they_interrupt() {
        let mut sc = sched(&[
            Trigger::AfterReply,
            Trigger::AfterReply,
            Trigger::WhileSpeaking(s(1500)),
        ]);
        assert!(!sc.due(s(900)));
        assert!(sc.due(s(1000)), "first clip 1 s after the start");
        sc.next = 1;
        sc.prev_end = Some(s(3000));
        assert!(!sc.due(s(20_000)), "waits for the reply");
        let turn = Some(TurnId(1));
        let listening = Event::State {
            state: State::Listening,
        };
        sc.progress.on_event(&listening, s(3100));
        assert!(
            sc.progress.reply_done_at.is_none(),
            "listening before any reply"
        );
        let text = "hi".to_string();
        sc.progress
            .on_event(&Event::FinalTranscript { text, turn }, s(3500));
        sc.progress
            .on_event(&Event::AudioStarted { turn: TurnId(1) }, s(4000));
        sc.progress.on_event(&listening, s(9000));
        assert!(!sc.due(s(9500)));
        assert!(sc.due(s(10_000)), "1 s after the reply ended");

        sc.next = 2;
        sc.prev_end = Some(s(12_000));
        sc.progress = Progress::default();
        assert!(!sc.due(s(14_000)));
        sc.progress
            .on_event(&Event::AudioStarted { turn: TurnId(2) }, s(14_000));
        assert!(!sc.due(s(15_000)));
        assert!(sc.due(s(15_500)), "1.5 s into the reply it interrupts");
        sc.next = 3;
        assert!(!sc.due(s(99_000)), "no clips left");
    }

    #[test]
    fn a_reply_that_never_comes_times_out_and_missing_files_are_named() {
        let mut sc = sched(&[Trigger::At(s(0)), Trigger::AfterReply]);
        assert!(sc.due(s(0)));
        sc.next = 1;
        sc.prev_end = Some(s(2000));
        assert!(!sc.due(s(61_000)));
        assert!(sc.due(s(62_000)));
        let missing = vec![ClipSpec::parse("/nonexistent/q.wav").expect("spec")];
        let err = load(&missing).err().expect("missing file");
        assert!(err.to_string().contains("q.wav"), "{err}");
    }
}
