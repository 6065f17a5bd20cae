//! One cpal capture or playback stream on the current default device, over ends shared by every
//! stream the supervisor opens in turn: callbacks `try_lock` them (a busy lock gives silence or
//! dropped samples, never a wait), count their calls and errors in atomics, and never allocate,
//! block or log.

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
use ringbuf::HeapProd;
use ringbuf::traits::Producer;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use super::DeviceStats;
use crate::ring::PlaybackReader;

/// Largest callback buffer handled in one piece (frames); bigger ones are processed in parts.
const SCRATCH: usize = 8192;

/// The playback ring's reader, handed from a lost output stream to its successor.
pub(super) type SharedReader = Arc<Mutex<PlaybackReader>>;
/// The capture ring's writer, handed from a lost input stream to its successor.
pub(super) type SharedCapture = Arc<Mutex<HeapProd<f32>>>;

/// Why a stream could not be opened (the supervisor retries; the first open reports it).
#[derive(Debug, thiserror::Error)]
pub(super) enum OpenError {
    #[error("no {0} device")]
    NoDevice(&'static str),
    #[error("{what}: {message}")]
    Backend { what: &'static str, message: String },
    #[error("unsupported {what} sample format {format}")]
    Format {
        what: &'static str,
        format: SampleFormat,
    },
}

fn backend(what: &'static str, e: impl std::fmt::Display) -> OpenError {
    OpenError::Backend {
        what,
        message: e.to_string(),
    }
}

/// What one stream's callbacks report, read by the supervisor's watchdog.
#[derive(Debug, Default)]
pub(super) struct StreamHealth {
    /// Data callbacks run.
    pub calls: AtomicU64,
    /// Error callbacks other than "device not available" (a dead ALSA stream repeats one
    /// hundreds of thousands of times a second).
    pub errors: AtomicU64,
    /// The backend said the device is gone.
    pub not_available: AtomicBool,
}

impl StreamHealth {
    fn on_error(&self, err: &cpal::StreamError, stats: &DeviceStats) {
        match err {
            cpal::StreamError::DeviceNotAvailable => {
                self.not_available.store(true, Ordering::Release);
            }
            _ => {
                self.errors.fetch_add(1, Ordering::Relaxed);
                stats.stream_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// A playing stream and what it runs on.
pub(super) struct Opened {
    /// Dropping it stops the stream (and its backend thread).
    pub _stream: cpal::Stream,
    pub name: String,
    pub rate: u32,
    pub health: Arc<StreamHealth>,
}

/// Builds a stream in the device's sample format: `$build::<T>(args…)` for the supported ones.
macro_rules! by_format {
    ($format:expr, $what:literal, $build:ident($($arg:expr),*)) => {
        match $format {
            SampleFormat::F32 => $build::<f32>($($arg),*),
            SampleFormat::I16 => $build::<i16>($($arg),*),
            SampleFormat::U16 => $build::<u16>($($arg),*),
            SampleFormat::I32 => $build::<i32>($($arg),*),
            format => return Err(OpenError::Format { what: $what, format }),
        }
    };
}

/// Starts a built stream.
fn started(
    built: Result<cpal::Stream, cpal::BuildStreamError>,
    what: &'static str,
    name: String,
    rate: u32,
    health: Arc<StreamHealth>,
) -> Result<Opened, OpenError> {
    let stream = built.map_err(|e| backend(what, e))?;
    stream.play().map_err(|e| backend(what, e))?;
    Ok(Opened {
        _stream: stream,
        name,
        rate,
        health,
    })
}

/// The lock if it is free (a poisoned one is still usable: the ring holds plain samples).
fn try_take<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Opens the default output at `rate` (the pipeline's output rate) feeding from `reader`.
pub(super) fn open_output(
    host: &cpal::Host,
    rate: u32,
    reader: &SharedReader,
    stats: &Arc<DeviceStats>,
) -> Result<Opened, OpenError> {
    let dev = host
        .default_output_device()
        .ok_or(OpenError::NoDevice("output"))?;
    let name = dev.name().unwrap_or_else(|_| "output".into());
    let cfg = dev
        .default_output_config()
        .map_err(|e| backend("output config", e))?;
    let format = cfg.sample_format();
    let mut stream_cfg: StreamConfig = cfg.into();
    stream_cfg.sample_rate = cpal::SampleRate(rate);
    let health = Arc::new(StreamHealth::default());
    let (r, s, h) = (reader.clone(), stats.clone(), health.clone());
    let built = by_format!(format, "output", output_stream(&dev, &stream_cfg, r, s, h));
    started(built, "output stream", name, rate, health)
}

/// Opens the default input at its own rate, writing mono samples into `capture`.
pub(super) fn open_input(
    host: &cpal::Host,
    capture: &SharedCapture,
    stats: &Arc<DeviceStats>,
) -> Result<Opened, OpenError> {
    let dev = host
        .default_input_device()
        .ok_or(OpenError::NoDevice("input"))?;
    let name = dev.name().unwrap_or_else(|_| "input".into());
    let cfg = dev
        .default_input_config()
        .map_err(|e| backend("input config", e))?;
    let format = cfg.sample_format();
    let stream_cfg: StreamConfig = cfg.into();
    let rate = stream_cfg.sample_rate.0;
    let health = Arc::new(StreamHealth::default());
    let (c, s, h) = (capture.clone(), stats.clone(), health.clone());
    let built = by_format!(format, "input", input_stream(&dev, &stream_cfg, c, s, h));
    started(built, "input stream", name, rate, health)
}

fn output_stream<T>(
    dev: &cpal::Device,
    cfg: &StreamConfig,
    reader: SharedReader,
    stats: Arc<DeviceStats>,
    health: Arc<StreamHealth>,
) -> Result<cpal::Stream, cpal::BuildStreamError>
where
    T: SizedSample + FromSample<f32>,
{
    let channels = cfg.channels.max(1) as usize;
    let mut mono = vec![0.0f32; SCRATCH];
    let (err_health, err_stats) = (health.clone(), stats.clone());
    dev.build_output_stream(
        cfg,
        move |data: &mut [T], info: &cpal::OutputCallbackInfo| {
            health.calls.fetch_add(1, Ordering::Relaxed);
            let ts = info.timestamp();
            if let Some(d) = ts.playback.duration_since(&ts.callback) {
                stats
                    .output_latency_us
                    .store(d.as_micros() as u64, Ordering::Relaxed);
            }
            let Some(mut reader) = try_take(&reader) else {
                data.fill(T::from_sample(0.0f32));
                return;
            };
            for block in data.chunks_mut(SCRATCH * channels) {
                let frames = block.len() / channels;
                let m = &mut mono[..frames];
                reader.fill(m);
                for (frame, &s) in block.chunks_mut(channels).zip(m.iter()) {
                    frame.fill(T::from_sample(s));
                }
            }
        },
        move |err| err_health.on_error(&err, &err_stats),
        None,
    )
}

fn input_stream<T>(
    dev: &cpal::Device,
    cfg: &StreamConfig,
    capture: SharedCapture,
    stats: Arc<DeviceStats>,
    health: Arc<StreamHealth>,
) -> Result<cpal::Stream, cpal::BuildStreamError>
where
    T: SizedSample,
    f32: FromSample<T>,
{
    let channels = cfg.channels.max(1) as usize;
    let (err_health, err_stats) = (health.clone(), stats.clone());
    dev.build_input_stream(
        cfg,
        move |data: &[T], _| {
            health.calls.fetch_add(1, Ordering::Relaxed);
            let frames = (data.len() / channels) as u64;
            let Some(mut prod) = try_take(&capture) else {
                stats.capture_overruns.fetch_add(frames, Ordering::Relaxed);
                return;
            };
            let scale = 1.0 / channels as f32;
            let mut dropped = 0u64;
            for frame in data.chunks(channels) {
                let s: f32 = frame.iter().map(|&x| x.to_sample::<f32>()).sum::<f32>() * scale;
                if prod.try_push(s).is_err() {
                    dropped += 1;
                }
            }
            if dropped > 0 {
                stats.capture_overruns.fetch_add(dropped, Ordering::Relaxed);
            }
        },
        move |err| err_health.on_error(&err, &err_stats),
        None,
    )
}
