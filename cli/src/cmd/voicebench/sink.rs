//! An output sink for benchmark runs: pulls the reply audio like a device (real-time pace or
//! as fast as it comes) and hands over what was said since the last sample.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Result;
use pocket_pipeline::audio::file::Pace;
use pocket_pipeline::ring::PlaybackReader;

pub struct TakeSink {
    said: Arc<Mutex<Vec<f32>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TakeSink {
    pub fn spawn(mut reader: PlaybackReader, rate: u32, pace: Pace) -> Result<Self> {
        let said = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        reader
            .state()
            .unpaced
            .store(pace == Pace::Fast, Ordering::Release);
        let (out, flag) = (said.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("voicebench-sink".into())
            .spawn(move || {
                let mut buf = vec![0.0f32; (rate / 100).max(1) as usize];
                let start = Instant::now();
                let mut blocks = 0u64;
                while !flag.load(Ordering::Acquire) {
                    if pace == Pace::Realtime {
                        blocks += 1;
                        let due = start + Duration::from_millis(10 * blocks);
                        if let Some(wait) = due.checked_duration_since(Instant::now()) {
                            std::thread::sleep(wait);
                        }
                    }
                    let n = reader.fill(&mut buf);
                    if n > 0 {
                        out.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .extend_from_slice(&buf[..n]);
                    } else if pace == Pace::Fast {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            })?;
        Ok(Self {
            said,
            stop,
            thread: Some(thread),
        })
    }

    /// Everything played since the last call.
    pub fn take(&self) -> Vec<f32> {
        std::mem::take(&mut *self.said.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Drop for TakeSink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
