//! The device supervisor: one thread that owns the cpal streams (they are not `Send`), opens
//! them, watches each one's callbacks and errors, and when one is lost drops it and opens the
//! current default device of that direction again, with backoff, over the same playback reader
//! and capture ring. It reports the loss and the return as events.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

use super::DeviceStats;
use super::stream::{OpenError, Opened, SharedCapture, SharedReader, open_input, open_output};
use super::watchdog::{Backoff, Reading, Verdict, Watchdog};
use crate::handle::ErrorReporter;
use crate::ring::PlaybackState;

/// How often the streams are looked at.
const TICK: Duration = Duration::from_millis(50);

/// The devices' names once both are open.
pub(super) struct Names {
    pub input: String,
    pub output: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Output,
    Input,
}

impl Direction {
    /// The name events use.
    fn device(self) -> &'static str {
        match self {
            Direction::Output => "speaker",
            Direction::Input => "microphone",
        }
    }
}

enum Side {
    Open { opened: Opened, watch: Watchdog },
    Lost { retry: Backoff },
}

pub(super) struct Supervisor {
    pub output_rate: u32,
    pub reader: SharedReader,
    pub capture: SharedCapture,
    /// The open input's rate, for the capture pump.
    pub capture_rate: Arc<AtomicU32>,
    /// Its `output_down` is the playback monitor's verdict on the output.
    pub playback: Arc<PlaybackState>,
    pub stats: Arc<DeviceStats>,
    pub errors: ErrorReporter,
    pub stop: Arc<AtomicBool>,
    pub running: Arc<AtomicBool>,
}

impl Supervisor {
    /// Opens both devices, sends their names (or why they did not open) on `ready`, then
    /// watches them until stopped.
    pub(super) fn run(self, ready: SyncSender<Result<Names, OpenError>>) {
        let host = cpal::default_host();
        let opened = self
            .open(&host, Direction::Output)
            .and_then(|out| Ok((out, self.open(&host, Direction::Input)?)));
        let (output, input) = match opened {
            Ok(both) => both,
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        };
        let names = Names {
            input: input.name.clone(),
            output: output.name.clone(),
        };
        if ready.send(Ok(names)).is_err() {
            return;
        }
        let now = Instant::now();
        let mut sides = [
            (
                Direction::Output,
                Side::Open {
                    opened: output,
                    watch: Watchdog::new(now),
                },
            ),
            (
                Direction::Input,
                Side::Open {
                    opened: input,
                    watch: Watchdog::new(now),
                },
            ),
        ];
        while self.running.load(Ordering::Acquire) && !self.stop.load(Ordering::Acquire) {
            for (dir, side) in &mut sides {
                self.tick(&host, *dir, side, Instant::now());
            }
            std::thread::sleep(TICK);
        }
    }

    fn open(&self, host: &cpal::Host, dir: Direction) -> Result<Opened, OpenError> {
        match dir {
            Direction::Output => open_output(host, self.output_rate, &self.reader, &self.stats),
            Direction::Input => {
                let opened = open_input(host, &self.capture, &self.stats)?;
                self.capture_rate.store(opened.rate, Ordering::Release);
                Ok(opened)
            }
        }
    }

    fn tick(&self, host: &cpal::Host, dir: Direction, side: &mut Side, now: Instant) {
        match side {
            Side::Open { opened, watch } => {
                let h = &opened.health;
                let reading = Reading {
                    calls: h.calls.load(Ordering::Relaxed),
                    errors: h.errors.load(Ordering::Relaxed),
                    not_available: h.not_available.load(Ordering::Acquire),
                    declared_down: dir == Direction::Output
                        && self.playback.output_down.load(Ordering::Acquire),
                };
                if let Verdict::Lost { why, report } = watch.check(now, reading) {
                    // Dropping the dead stream ends its backend thread's error loop.
                    *side = Side::Lost {
                        retry: Backoff::new(now),
                    };
                    self.lost_flag(dir).store(true, Ordering::Release);
                    if report {
                        self.errors.device_lost(dir.device(), why);
                    }
                }
            }
            Side::Lost { retry } => {
                if !retry.due(now) {
                    return;
                }
                match self.open(host, dir) {
                    Ok(opened) => {
                        self.lost_flag(dir).store(false, Ordering::Release);
                        self.reopens(dir).fetch_add(1, Ordering::Relaxed);
                        self.errors.device_restored(dir.device(), &opened.name);
                        *side = Side::Open {
                            opened,
                            watch: Watchdog::new(Instant::now()),
                        };
                    }
                    // Nothing to open yet (no device, or it refuses the rate): try again later.
                    Err(_) => retry.failed(Instant::now()),
                }
            }
        }
    }

    fn lost_flag(&self, dir: Direction) -> &AtomicBool {
        match dir {
            Direction::Output => &self.stats.output_lost,
            Direction::Input => &self.stats.input_lost,
        }
    }

    fn reopens(&self, dir: Direction) -> &AtomicU64 {
        match dir {
            Direction::Output => &self.stats.output_reopens,
            Direction::Input => &self.stats.input_reopens,
        }
    }
}
