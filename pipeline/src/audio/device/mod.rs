//! cpal capture and playback. Callbacks only move samples through SPSC rings (no allocation,
//! locking or logging); a pump thread converts the capture rate to 16 kHz for the pipeline.
//! A lost device is reported as an event, not a crash.

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
use ringbuf::traits::{Consumer, Producer, Split};
use ringbuf::{HeapCons, HeapProd, HeapRb};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use super::resample::Resampler;
use super::ring::PlaybackReader;
use crate::PipelineError;
use crate::handle::{AudioPorts, ErrorReporter, MicSender};

/// Largest callback buffer handled in one piece (frames); bigger ones are processed in parts.
const SCRATCH: usize = 8192;

/// Capture and playback streams, kept alive while this lives (drop to stop).
pub struct DeviceAudio {
    _input: cpal::Stream,
    _output: cpal::Stream,
    pump: Option<JoinHandle<()>>,
    /// Stops the capture pump when the devices are dropped, whether or not the pipeline was
    /// shut down first (a caller unwinding from a panic drops the devices before the loop).
    stop: Arc<AtomicBool>,
    stats: Arc<DeviceStats>,
    pub input_name: String,
    pub output_name: String,
}

/// Counters the callbacks keep.
#[derive(Debug, Default)]
pub struct DeviceStats {
    /// Capture samples dropped because the capture ring was full.
    pub capture_overruns: AtomicU64,
    /// Set by the stream error callbacks.
    pub input_lost: AtomicBool,
    pub output_lost: AtomicBool,
    /// Other stream errors (e.g. backend hiccups) that did not stop the stream.
    pub stream_errors: AtomicU64,
    /// Callback-to-speaker delay the backend reports (µs): audio handed over in a callback is
    /// heard this much later, so a barge-in's silence is too.
    pub output_latency_us: AtomicU64,
}

impl DeviceStats {
    fn on_error(&self, err: &cpal::StreamError, input: bool) {
        match err {
            cpal::StreamError::DeviceNotAvailable => {
                let flag = if input {
                    &self.input_lost
                } else {
                    &self.output_lost
                };
                flag.store(true, Ordering::Release);
            }
            _ => {
                self.stream_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// The output rate the default output device wants (start the pipeline with it).
pub fn default_output_rate() -> Result<u32, PipelineError> {
    let host = cpal::default_host();
    let dev = host
        .default_output_device()
        .ok_or_else(|| PipelineError::Device("no output device".into()))?;
    let cfg = dev
        .default_output_config()
        .map_err(|e| PipelineError::Device(format!("output config: {e}")))?;
    Ok(cfg.sample_rate().0)
}

impl DeviceAudio {
    /// Opens the default input and output devices and attaches them to the ports. The output
    /// must run at `ports.output_rate` (see [`default_output_rate`]).
    pub fn start(ports: AudioPorts) -> Result<Self, PipelineError> {
        let AudioPorts {
            mic,
            speaker,
            output_rate,
            running,
            errors,
            ..
        } = ports;
        let host = cpal::default_host();
        let dev_err =
            |what: &str, e: &dyn std::fmt::Display| PipelineError::Device(format!("{what}: {e}"));
        let input = host
            .default_input_device()
            .ok_or_else(|| PipelineError::Device("no input device".into()))?;
        let output = host
            .default_output_device()
            .ok_or_else(|| PipelineError::Device("no output device".into()))?;
        let input_name = input.name().unwrap_or_else(|_| "input".into());
        let output_name = output.name().unwrap_or_else(|_| "output".into());
        let stats = Arc::new(DeviceStats::default());

        let out_cfg = output
            .default_output_config()
            .map_err(|e| dev_err("output config", &e))?;
        let out_format = out_cfg.sample_format();
        let mut out_stream_cfg: StreamConfig = out_cfg.into();
        out_stream_cfg.sample_rate = cpal::SampleRate(output_rate);
        let output_stream = build_output(&output, &out_stream_cfg, out_format, speaker, &stats)
            .map_err(|e| dev_err("output stream", &e))?;

        let in_cfg = input
            .default_input_config()
            .map_err(|e| dev_err("input config", &e))?;
        let in_format = in_cfg.sample_format();
        let in_stream_cfg: StreamConfig = in_cfg.into();
        let in_rate = in_stream_cfg.sample_rate.0;
        // Two seconds of capture between the callback and the pump.
        let (prod, cons) = HeapRb::<f32>::new(in_rate as usize * 2).split();
        let input_stream = build_input(&input, &in_stream_cfg, in_format, prod, &stats)
            .map_err(|e| dev_err("input stream", &e))?;

        output_stream
            .play()
            .map_err(|e| dev_err("start output", &e))?;
        input_stream
            .play()
            .map_err(|e| dev_err("start input", &e))?;
        let pump_stats = stats.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let pump_stop = stop.clone();
        let pump = std::thread::Builder::new()
            .name("pocket-capture".into())
            .spawn(move || pump(cons, in_rate, mic, running, pump_stop, pump_stats, errors))?;
        Ok(Self {
            _input: input_stream,
            _output: output_stream,
            pump: Some(pump),
            stop,
            stats,
            input_name,
            output_name,
        })
    }

    pub fn stats(&self) -> &Arc<DeviceStats> {
        &self.stats
    }
}

impl Drop for DeviceAudio {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(p) = self.pump.take() {
            let _ = p.join();
        }
    }
}

/// Moves capture audio from the ring to the pipeline at 16 kHz; reports lost devices.
fn pump(
    mut cons: HeapCons<f32>,
    rate: u32,
    mut mic: MicSender,
    running: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    stats: Arc<DeviceStats>,
    errors: ErrorReporter,
) {
    let mut resampler = Resampler::new(rate, 16_000);
    let mut raw = vec![0.0f32; 4096];
    let mut out = Vec::with_capacity(4096);
    let (mut in_reported, mut out_reported) = (false, false);
    while running.load(Ordering::Acquire) && !stop.load(Ordering::Acquire) {
        loop {
            let n = cons.pop_slice(&mut raw);
            if n == 0 {
                break;
            }
            out.clear();
            resampler.process(&raw[..n], &mut out);
            mic.push(&out);
        }
        if !in_reported && stats.input_lost.load(Ordering::Acquire) {
            in_reported = true;
            errors.device_lost("microphone", "the input device stopped or was removed");
        }
        if !out_reported && stats.output_lost.load(Ordering::Acquire) {
            out_reported = true;
            errors.device_lost("speaker", "the output device stopped or was removed");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn build_output(
    dev: &cpal::Device,
    cfg: &StreamConfig,
    format: SampleFormat,
    reader: PlaybackReader,
    stats: &Arc<DeviceStats>,
) -> Result<cpal::Stream, String> {
    match format {
        SampleFormat::F32 => output_stream::<f32>(dev, cfg, reader, stats),
        SampleFormat::I16 => output_stream::<i16>(dev, cfg, reader, stats),
        SampleFormat::U16 => output_stream::<u16>(dev, cfg, reader, stats),
        SampleFormat::I32 => output_stream::<i32>(dev, cfg, reader, stats),
        other => Err(format!("unsupported output sample format {other}")),
    }
}

fn output_stream<T>(
    dev: &cpal::Device,
    cfg: &StreamConfig,
    mut reader: PlaybackReader,
    stats: &Arc<DeviceStats>,
) -> Result<cpal::Stream, String>
where
    T: SizedSample + FromSample<f32>,
{
    let channels = cfg.channels.max(1) as usize;
    let mut mono = vec![0.0f32; SCRATCH];
    let lost = stats.clone();
    let st = stats.clone();
    dev.build_output_stream(
        cfg,
        move |data: &mut [T], info: &cpal::OutputCallbackInfo| {
            let ts = info.timestamp();
            if let Some(d) = ts.playback.duration_since(&ts.callback) {
                st.output_latency_us
                    .store(d.as_micros() as u64, Ordering::Relaxed);
            }
            for block in data.chunks_mut(SCRATCH * channels) {
                let frames = block.len() / channels;
                let m = &mut mono[..frames];
                reader.fill(m);
                for (frame, &s) in block.chunks_mut(channels).zip(m.iter()) {
                    let v = T::from_sample(s);
                    frame.fill(v);
                }
            }
        },
        move |err| lost.on_error(&err, false),
        None,
    )
    .map_err(|e| e.to_string())
}

fn build_input(
    dev: &cpal::Device,
    cfg: &StreamConfig,
    format: SampleFormat,
    prod: HeapProd<f32>,
    stats: &Arc<DeviceStats>,
) -> Result<cpal::Stream, String> {
    match format {
        SampleFormat::F32 => input_stream::<f32>(dev, cfg, prod, stats),
        SampleFormat::I16 => input_stream::<i16>(dev, cfg, prod, stats),
        SampleFormat::U16 => input_stream::<u16>(dev, cfg, prod, stats),
        SampleFormat::I32 => input_stream::<i32>(dev, cfg, prod, stats),
        other => Err(format!("unsupported input sample format {other}")),
    }
}

fn input_stream<T>(
    dev: &cpal::Device,
    cfg: &StreamConfig,
    mut prod: HeapProd<f32>,
    stats: &Arc<DeviceStats>,
) -> Result<cpal::Stream, String>
where
    T: SizedSample,
    f32: FromSample<T>,
{
    let channels = cfg.channels.max(1) as usize;
    let st = stats.clone();
    let lost = stats.clone();
    dev.build_input_stream(
        cfg,
        move |data: &[T], _| {
            let scale = 1.0 / channels as f32;
            let mut dropped = 0u64;
            for frame in data.chunks(channels) {
                let s: f32 = frame.iter().map(|&x| x.to_sample::<f32>()).sum::<f32>() * scale;
                if prod.try_push(s).is_err() {
                    dropped += 1;
                }
            }
            if dropped > 0 {
                st.capture_overruns.fetch_add(dropped, Ordering::Relaxed);
            }
        },
        move |err| lost.on_error(&err, true),
        None,
    )
    .map_err(|e| e.to_string())
}
