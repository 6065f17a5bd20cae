//! Frame-based voice activity detection: the `earshot` network (pure Rust, 16 ms frames of
//! 256 samples at 16 kHz) wrapped with a frame buffer, so any chunk size can be fed.
//! Chosen over Silero v6 by measurement (see docs/PERFORMANCE.md, "VAD choice").

/// Samples per VAD frame (16 ms at 16 kHz).
pub const FRAME: usize = 256;

/// Speech probability per 16 ms frame.
pub struct Vad {
    det: Box<earshot::Detector>,
    buf: [f32; FRAME],
    fill: usize,
    /// Frames scored so far (frame `i` covers samples `i*256 .. (i+1)*256`).
    frames: u64,
}

impl std::fmt::Debug for Vad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vad").field("frames", &self.frames).finish()
    }
}

impl Default for Vad {
    fn default() -> Self {
        Self::new()
    }
}

impl Vad {
    pub fn new() -> Self {
        Self {
            det: earshot::Detector::default_boxed(),
            buf: [0.0; FRAME],
            fill: 0,
            frames: 0,
        }
    }

    /// Scores one full frame of 16 kHz mono samples in [-1, 1].
    pub fn frame_prob(&mut self, frame: &[f32; FRAME]) -> f32 {
        self.frames += 1;
        let p = self.det.predict_f32(frame);
        if p.is_finite() {
            p.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Feeds 16 kHz mono samples of any length; calls `on_frame(frame_index, prob)` for every
    /// frame completed. Non-finite samples count as silence.
    pub fn accept(&mut self, samples: &[f32], mut on_frame: impl FnMut(u64, f32)) {
        for &s in samples {
            self.buf[self.fill] = if s.is_finite() {
                s.clamp(-1.0, 1.0)
            } else {
                0.0
            };
            self.fill += 1;
            if self.fill == FRAME {
                self.fill = 0;
                let frame = self.buf;
                let idx = self.frames;
                let p = self.frame_prob(&frame);
                on_frame(idx, p);
            }
        }
    }

    /// Frames scored so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Forgets the network state and any partial frame.
    pub fn reset(&mut self) {
        self.det.reset();
        self.fill = 0;
        self.frames = 0;
    }
}
