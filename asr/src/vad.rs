//! Frame-based voice activity detection with a frame buffer, so any chunk size can be fed.
//! Two networks: Silero (hand-written forward pass, 32 ms windows; each window's probability
//! is given to its two 16 ms frames) — the more accurate one in noise by measurement (see
//! docs/PERFORMANCE.md) and the default when its weights are configured — and `earshot`
//! (pure Rust, built in, 16 ms frames), used when no Silero weights are given.

/// Samples per VAD frame (16 ms at 16 kHz).
pub const FRAME: usize = 256;

enum Net {
    Earshot(Box<earshot::Detector>),
    Silero(Box<crate::silero::Silero>),
}

/// Speech probability per 16 ms frame.
pub struct Vad {
    net: Net,
    buf: [f32; crate::silero::WINDOW],
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
    /// The built-in earshot network.
    pub fn new() -> Self {
        Self {
            net: Net::Earshot(earshot::Detector::default_boxed()),
            buf: [0.0; crate::silero::WINDOW],
            fill: 0,
            frames: 0,
        }
    }

    /// Silero from `silero_vad_16k.safetensors`.
    pub fn silero(weights: &std::path::Path) -> Result<Self, crate::AsrError> {
        Ok(Self::from_silero(crate::silero::Silero::load(weights)?))
    }

    pub(crate) fn from_silero(s: crate::silero::Silero) -> Self {
        Self {
            net: Net::Silero(Box::new(s)),
            ..Self::new()
        }
    }

    /// Samples the network takes at a time (256 earshot, 512 Silero).
    pub fn window(&self) -> usize {
        match self.net {
            Net::Earshot(_) => FRAME,
            Net::Silero(_) => crate::silero::WINDOW,
        }
    }

    /// Feeds 16 kHz mono samples of any length; calls `on_frame(frame_index, prob)` for every
    /// 16 ms frame completed. Non-finite samples count as silence.
    pub fn accept(&mut self, samples: &[f32], mut on_frame: impl FnMut(u64, f32)) {
        let window = self.window();
        for &s in samples {
            self.buf[self.fill] = if s.is_finite() {
                s.clamp(-1.0, 1.0)
            } else {
                0.0
            };
            self.fill += 1;
            if self.fill == window {
                self.fill = 0;
                let p = match &mut self.net {
                    Net::Earshot(d) => d.predict_f32(&self.buf[..FRAME]),
                    Net::Silero(s) => s.prob(&self.buf),
                };
                let p = if p.is_finite() {
                    p.clamp(0.0, 1.0)
                } else {
                    0.0
                };
                for _ in 0..window / FRAME {
                    on_frame(self.frames, p);
                    self.frames += 1;
                }
            }
        }
    }

    /// Frames scored so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Forgets the network state and any partial frame.
    pub fn reset(&mut self) {
        match &mut self.net {
            Net::Earshot(d) => d.reset(),
            Net::Silero(s) => s.reset(),
        }
        self.fill = 0;
        self.frames = 0;
    }
}
