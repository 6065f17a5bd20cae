//! cpal capture and playback on the default devices. Callbacks only move samples through
//! shared SPSC rings (no allocation, blocking or logging); a pump thread converts the capture
//! rate to 16 kHz for the pipeline; a supervisor thread re-opens a lost device on the current
//! default one and reports the loss and the return as events, never a crash.

mod pump;
mod stream;
mod supervisor;
mod watchdog;

use cpal::traits::{DeviceTrait, HostTrait};
use ringbuf::HeapRb;
use ringbuf::traits::Split;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::PipelineError;
use crate::handle::AudioPorts;
use supervisor::Supervisor;

/// Capture samples buffered between the input callback and the pump: 2 s at 96 kHz.
const CAPTURE_RING: usize = 192_000;

/// The audio devices, kept open (and re-opened when lost) while this lives; drop to stop.
pub struct DeviceAudio {
    supervisor: Option<JoinHandle<()>>,
    pump: Option<JoinHandle<()>>,
    /// Stops the supervisor and the capture pump when the devices are dropped, whether or not
    /// the pipeline was shut down first (a caller unwinding from a panic drops the devices
    /// before the loop).
    stop: Arc<AtomicBool>,
    stats: Arc<DeviceStats>,
    /// The devices opened at start (a re-opened one is named in its `DeviceRestored` event).
    pub input_name: String,
    pub output_name: String,
}

/// Counters the callbacks and the supervisor keep.
#[derive(Debug, Default)]
pub struct DeviceStats {
    /// Capture samples dropped because the capture ring was full.
    pub capture_overruns: AtomicU64,
    /// Set while the device is lost (until it is re-opened).
    pub input_lost: AtomicBool,
    pub output_lost: AtomicBool,
    /// Times a lost device was re-opened.
    pub input_reopens: AtomicU64,
    pub output_reopens: AtomicU64,
    /// Stream errors other than "device not available" (backend hiccups, or the error loop
    /// of a stream the sound server dropped).
    pub stream_errors: AtomicU64,
    /// Callback-to-speaker delay the backend reports (µs): audio handed over in a callback is
    /// heard this much later, so a barge-in's silence is too.
    pub output_latency_us: AtomicU64,
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
    /// runs at `ports.output_rate` (see [`default_output_rate`]), also when re-opened.
    pub fn start(ports: AudioPorts) -> Result<Self, PipelineError> {
        let AudioPorts {
            mic,
            speaker,
            output_rate,
            running,
            errors,
            ..
        } = ports;
        let stats = Arc::new(DeviceStats::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (prod, cons) = HeapRb::<f32>::new(CAPTURE_RING).split();
        let capture_rate = Arc::new(AtomicU32::new(16_000));
        let supervisor = Supervisor {
            output_rate,
            playback: speaker.state().clone(),
            reader: Arc::new(Mutex::new(speaker)),
            capture: Arc::new(Mutex::new(prod)),
            capture_rate: capture_rate.clone(),
            stats: stats.clone(),
            errors,
            stop: stop.clone(),
            running: running.clone(),
        };
        let (ready, opened) = std::sync::mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("pocket-devices".into())
            .spawn(move || supervisor.run(ready))?;
        let names = match opened.recv() {
            Ok(Ok(names)) => names,
            failed => {
                let _ = thread.join();
                let why = match failed {
                    Ok(Err(e)) => e.to_string(),
                    _ => "the device thread ended before opening the devices".into(),
                };
                return Err(PipelineError::Device(why));
            }
        };
        let mut devices = Self {
            supervisor: Some(thread),
            pump: None,
            stop,
            stats,
            input_name: names.input,
            output_name: names.output,
        };
        let pump_stop = devices.stop.clone();
        devices.pump = Some(
            std::thread::Builder::new()
                .name("pocket-capture".into())
                .spawn(move || pump::run(cons, capture_rate, mic, running, pump_stop))?,
        );
        Ok(devices)
    }

    pub fn stats(&self) -> &Arc<DeviceStats> {
        &self.stats
    }
}

impl Drop for DeviceAudio {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for t in [self.supervisor.take(), self.pump.take()]
            .into_iter()
            .flatten()
        {
            let _ = t.join();
        }
    }
}
