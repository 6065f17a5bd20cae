//! `FallbackVoice`: the built-in flite diphone voice (`flite-rs`, pure Rust, data compiled in).
//! Robotic but needs no download; used when the Piper voice is not installed and in tests.

use crate::error::TtsError;
use crate::voice::{Cut, SegmentSynth, SynthStats, Voice, drive};
use flite_rs::{Engine, Flow};
use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;

/// Samples gathered before a chunk is handed on (flite produces one pitch period at a time).
const CHUNK: usize = 4096;

/// The flite `kal16` voice (16 kHz, male, US English).
pub struct FallbackVoice {
    backend: Backend,
    sample_rate: u32,
}

struct Backend {
    engine: Engine,
    buf: Vec<f32>,
}

impl FallbackVoice {
    /// Builds the voice from data compiled into the binary (parsing takes a few milliseconds).
    pub fn new() -> Self {
        // The voice data is compiled in and checked by flite-rs's own tests; it is not input.
        let mut engine = Engine::new();
        // kal16 is registered when the crate's `kal16` feature is on (it is, in this workspace).
        engine.select_voice("kal16");
        let sample_rate = engine.sample_rate();
        FallbackVoice {
            backend: Backend {
                engine,
                buf: Vec::with_capacity(CHUNK),
            },
            sample_rate,
        }
    }
}

impl Default for FallbackVoice {
    fn default() -> Self {
        Self::new()
    }
}

impl SegmentSynth for Backend {
    fn speak_segment(
        &mut self,
        text: &str,
        emit: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, TtsError> {
        let buf = &mut self.buf;
        buf.clear();
        let mut flow = ControlFlow::Continue(());
        self.engine.synthesize_streaming(text, |period| {
            buf.extend(period.iter().map(|&s| s as f32 / 32768.0));
            if buf.len() >= CHUNK {
                flow = emit(buf);
                buf.clear();
                if flow.is_break() {
                    return Flow::Stop;
                }
            }
            Flow::Continue
        });
        if flow.is_continue() && !buf.is_empty() {
            flow = emit(buf);
            buf.clear();
        }
        Ok(flow)
    }
}

impl Voice for FallbackVoice {
    fn name(&self) -> &str {
        "flite:kal16"
    }

    fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    fn synthesize_cut(
        &mut self,
        text: &str,
        cut: Cut,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<SynthStats, TtsError> {
        drive(
            &mut self.backend,
            self.sample_rate,
            cut,
            text,
            cancel,
            on_chunk,
        )
    }
}
