//! Echo cancellation on the capture path: WebRTC AEC3 (the `aec3` crate) at 16 kHz, fed with
//! what the output actually played (the reference ring), so our own voice leaking from the
//! loudspeaker into the microphone is removed before speech detection and recognition.

use aec3::nodes::audio::AudioFormat;
use aec3::pipelines::linear::{self, LinearPipeline};
use ringbuf::HeapCons;
use ringbuf::traits::Consumer;

use crate::resample::{Resampler, new_resampler};

/// Samples per 10 ms frame at 16 kHz.
pub(crate) const FRAME: usize = 160;

/// What the capture thread needs to build its echo canceller (AEC3 is not `Send`, so it is
/// built on the thread that uses it).
pub(crate) struct EchoSetup {
    pub(crate) reference: HeapCons<f32>,
    pub(crate) output_rate: u32,
}

/// AEC3 plus the reference stream it needs.
pub(crate) struct EchoCanceller {
    aec: LinearPipeline,
    reference: HeapCons<f32>,
    resampler: Resampler,
    raw: Vec<f32>,
    pending: Vec<f32>,
    out: [f32; FRAME],
}

impl EchoCanceller {
    /// `reference` carries the output's samples at `output_rate`.
    pub(crate) fn new(setup: EchoSetup) -> Result<Self, String> {
        let EchoSetup {
            reference,
            output_rate,
        } = setup;
        let format = AudioFormat::ten_ms(16_000, 1);
        let aec = linear::builder(format, format)
            .enable_high_pass_filter(true)
            .build()
            .map_err(|e| format!("echo canceller: {e}"))?;
        Ok(Self {
            aec,
            reference,
            resampler: new_resampler(output_rate, 16_000),
            raw: vec![0.0; 4096],
            pending: Vec::with_capacity(8192),
            out: [0.0; FRAME],
        })
    }

    /// Cleans one 10 ms capture frame in place, after feeding the reference played so far.
    pub(crate) fn process(&mut self, frame: &mut [f32; FRAME]) {
        loop {
            let n = self.reference.pop_slice(&mut self.raw);
            if n == 0 {
                break;
            }
            self.resampler.process(&self.raw[..n], &mut self.pending);
        }
        let mut used = 0;
        while self.pending.len() - used >= FRAME {
            // Errors here mean a wrong frame size, which cannot happen with FRAME samples.
            let _ = self
                .aec
                .handle_render_frame(&self.pending[used..used + FRAME]);
            used += FRAME;
        }
        self.pending.drain(..used);
        if let Ok(true) = self.aec.process_capture_frame(&frame[..], &mut self.out) {
            frame.copy_from_slice(&self.out);
        }
    }
}
