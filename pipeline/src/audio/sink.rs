//! The headless output: a thread that pulls the reply audio from the playback ring like a
//! device (10 ms every 10 ms, or as fast as it comes) and keeps what was said, for the caller
//! to take piece by piece or at the end, or writes it to a WAV file as it comes.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::file::Pace;
use super::wav::MonoWavWriter;
use crate::PipelineError;
use crate::ring::PlaybackReader;

/// Silence put between two replies in the written output.
const REPLY_GAP: Duration = Duration::from_millis(300);

/// What a sink keeps of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Nothing (long runs, whose output would fill memory).
    Nothing,
    /// Every reply, with [`REPLY_GAP`] of silence between two replies.
    Replies,
    /// What played, as it played (no gap added).
    Played,
}

/// Where the kept audio goes.
enum Kept {
    /// Held for [`FileSink::take`].
    Memory(Vec<f32>),
    /// Written as it comes (`None` once a write failed; the error waits for
    /// [`FileSink::finish_file`]).
    File(Option<MonoWavWriter>, Option<PipelineError>),
}

impl Kept {
    fn push(&mut self, samples: &[f32]) {
        match self {
            Kept::Memory(v) => v.extend_from_slice(samples),
            Kept::File(w, err) => {
                if let Some(Err(e)) = w.as_mut().map(|w| w.write(samples)) {
                    *w = None;
                    *err = Some(e);
                }
            }
        }
    }
}

/// Collects what the assistant said, reply after reply.
pub struct FileSink {
    said: Arc<Mutex<Kept>>,
    thread: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
}

impl FileSink {
    /// Starts pulling from `reader` (at `rate` Hz) until [`FileSink::finish`].
    pub fn spawn(reader: PlaybackReader, rate: u32, pace: Pace) -> Result<Self, PipelineError> {
        Self::start(reader, rate, pace, Keep::Replies, Kept::Memory(Vec::new()))
    }

    /// Like [`spawn`](Self::spawn), but writes every reply to the WAV file `path` as it
    /// plays instead of holding the whole session in memory (a 120-turn session's replies
    /// are ~27 MB as samples); [`finish_file`](Self::finish_file) completes the file. The
    /// file is created now, so a path that cannot be written fails before anything runs.
    pub fn recording(
        reader: PlaybackReader,
        rate: u32,
        pace: Pace,
        path: &Path,
    ) -> Result<Self, PipelineError> {
        let w = MonoWavWriter::create(path, rate)?;
        Self::start(reader, rate, pace, Keep::Replies, Kept::File(Some(w), None))
    }

    /// Like [`spawn`](Self::spawn), but keeps nothing: for long runs, whose output would
    /// otherwise fill memory ([`finish`](Self::finish) returns no samples).
    pub fn discarding(
        reader: PlaybackReader,
        rate: u32,
        pace: Pace,
    ) -> Result<Self, PipelineError> {
        Self::start(reader, rate, pace, Keep::Nothing, Kept::Memory(Vec::new()))
    }

    /// Like [`spawn`](Self::spawn), but keeps the audio exactly as it played, with no gap put
    /// between replies: for a caller that [`take`](Self::take)s what each piece of a run said
    /// (one benchmark sample after another).
    pub fn taking(reader: PlaybackReader, rate: u32, pace: Pace) -> Result<Self, PipelineError> {
        Self::start(reader, rate, pace, Keep::Played, Kept::Memory(Vec::new()))
    }

    fn start(
        mut reader: PlaybackReader,
        rate: u32,
        pace: Pace,
        keep: Keep,
        kept: Kept,
    ) -> Result<Self, PipelineError> {
        let said = Arc::new(Mutex::new(kept));
        let stop = Arc::new(AtomicBool::new(false));
        let (out, flag) = (said.clone(), stop.clone());
        reader
            .state()
            .unpaced
            .store(pace == Pace::Fast, Ordering::Release);
        let thread = std::thread::Builder::new()
            .name("pocket-file-sink".into())
            .spawn(move || {
                let block = (rate / 100).max(1) as usize;
                let mut buf = vec![0.0f32; block];
                let gap = vec![0.0f32; rate as usize * REPLY_GAP.as_millis() as usize / 1000];
                let mut last_turn = 0u64;
                let start = Instant::now();
                let mut blocks = 0u64;
                while !flag.load(Ordering::Acquire) {
                    if pace == Pace::Realtime {
                        blocks += 1;
                        let due = start + Duration::from_millis(10 * blocks);
                        let now = Instant::now();
                        if due > now {
                            std::thread::sleep(due - now);
                        }
                    }
                    let n = reader.fill(&mut buf);
                    if n > 0 && keep != Keep::Nothing {
                        let mut said = out.lock().unwrap_or_else(|e| e.into_inner());
                        let turn = reader.state().cur_turn.load(Ordering::Acquire);
                        if keep == Keep::Replies && turn != last_turn {
                            if last_turn != 0 {
                                said.push(&gap);
                            }
                            last_turn = turn;
                        }
                        said.push(&buf[..n]);
                    } else if n == 0 && pace == Pace::Fast {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            })?;
        Ok(Self {
            said,
            thread: Some(thread),
            stop,
        })
    }

    /// Everything kept since the last call (the sink goes on; nothing for a recording sink,
    /// whose audio is in its file).
    pub fn take(&self) -> Vec<f32> {
        match &mut *self.said.lock().unwrap_or_else(|e| e.into_inner()) {
            Kept::Memory(v) => std::mem::take(v),
            Kept::File(..) => Vec::new(),
        }
    }

    /// Stops and returns everything the assistant said (since the last [`take`](Self::take)).
    pub fn finish(mut self) -> Vec<f32> {
        self.halt();
        self.take()
    }

    /// Stops and completes the file of a [`recording`](Self::recording) sink: the first
    /// write error, if one stopped the recording, else the result of closing the file.
    pub fn finish_file(mut self) -> Result<(), PipelineError> {
        self.halt();
        let kept = std::mem::replace(
            &mut *self.said.lock().unwrap_or_else(|e| e.into_inner()),
            Kept::Memory(Vec::new()),
        );
        match kept {
            Kept::File(_, Some(e)) => Err(e),
            Kept::File(Some(w), None) => w.finish(),
            Kept::File(None, None) | Kept::Memory(_) => Ok(()),
        }
    }

    /// Stops the thread and waits for it (it stops within one 10 ms block).
    fn halt(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.thread.take().map(JoinHandle::join);
    }
}

impl Drop for FileSink {
    fn drop(&mut self) {
        self.halt();
    }
}
