//! Silero VAD (16 kHz) forward pass written out by hand from `silero_vad_16k.safetensors`:
//! 512-sample windows with 64 samples of context, STFT as a strided convolution (256-tap
//! basis, hop 128) and magnitude, four conv+ReLU blocks (strides 1, 2, 2, 1), an LSTM cell
//! carried across windows, and a 1x1 conv + sigmoid. All buffers are preallocated.

use std::path::Path;

use crate::error::AsrError;

/// Samples per Silero window (32 ms).
pub const WINDOW: usize = 512;
const CONTEXT: usize = 64;
const HIDDEN: usize = 128;
const BINS: usize = 129;

#[derive(Clone)]
struct Conv {
    w: Vec<f32>, // [out][in][k]
    b: Vec<f32>,
    out: usize,
    inp: usize,
    k: usize,
    stride: usize,
    pad: usize,
}

impl Conv {
    /// `x` is `[inp][t]`; returns `[out][t_out]` in `y`, and `t_out`.
    fn run(&self, x: &[f32], t: usize, y: &mut Vec<f32>) -> usize {
        let t_out = (t + 2 * self.pad - self.k) / self.stride + 1;
        y.clear();
        y.resize(self.out * t_out, 0.0);
        for o in 0..self.out {
            for to in 0..t_out {
                let mut s = self.b.get(o).copied().unwrap_or(0.0);
                for c in 0..self.inp {
                    for j in 0..self.k {
                        let ti = (to * self.stride + j) as isize - self.pad as isize;
                        if (0..t as isize).contains(&ti) {
                            s += self.w[(o * self.inp + c) * self.k + j] * x[c * t + ti as usize];
                        }
                    }
                }
                y[o * t_out + to] = s;
            }
        }
        t_out
    }
}

/// Silero weights plus the recurrent state of one audio stream.
#[derive(Clone)]
pub struct Silero {
    stft: Conv,
    convs: [Conv; 4],
    w_ih: Vec<f32>,
    w_hh: Vec<f32>,
    b: Vec<f32>,
    w_out: Vec<f32>,
    b_out: f32,
    h: Vec<f32>,
    c: Vec<f32>,
    input: Vec<f32>,
    a: Vec<f32>,
    bbuf: Vec<f32>,
    gates: Vec<f32>,
    x: Vec<f32>,
}

/// Tensors by name: shape and f32 values.
type Tensors = std::collections::HashMap<String, (Vec<usize>, Vec<f32>)>;

fn load_tensors(path: &Path) -> Result<Tensors, AsrError> {
    let bad = |detail: String| AsrError::BadModel {
        path: path.to_path_buf(),
        detail,
    };
    let raw = std::fs::read(path).map_err(|source| AsrError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let n = raw
        .get(..8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as usize)
        .ok_or_else(|| bad("shorter than a safetensors header".into()))?;
    let header = raw
        .get(8..8usize.saturating_add(n))
        .ok_or_else(|| bad("truncated safetensors header".into()))?;
    let json: serde_json::Value =
        serde_json::from_slice(header).map_err(|e| bad(format!("header is not JSON: {e}")))?;
    let data = &raw[8 + n..];
    let mut out = std::collections::HashMap::new();
    for (name, v) in json.as_object().into_iter().flatten() {
        if name == "__metadata__" {
            continue;
        }
        if v["dtype"] != "F32" {
            return Err(bad(format!("{name}: dtype {} (F32 expected)", v["dtype"])));
        }
        let shape: Vec<usize> = v["shape"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|d| d.as_u64().map(|d| d as usize))
                    .collect()
            })
            .unwrap_or_default();
        let off: Vec<usize> = v["data_offsets"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|d| d.as_u64().map(|d| d as usize))
                    .collect()
            })
            .unwrap_or_default();
        let bytes = match off.as_slice() {
            [s, e] if s <= e && *e <= data.len() => &data[*s..*e],
            _ => return Err(bad(format!("{name}: data offsets out of the file"))),
        };
        let numel: usize = shape.iter().product();
        if bytes.len() != numel * 4 {
            return Err(bad(format!(
                "{name}: {} bytes for shape {shape:?}",
                bytes.len()
            )));
        }
        let vals = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        out.insert(name.clone(), (shape, vals));
    }
    Ok(out)
}

impl std::fmt::Debug for Silero {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Silero")
    }
}

impl Silero {
    /// Loads `silero_vad_16k.safetensors`.
    pub fn load(path: &Path) -> Result<Self, AsrError> {
        let mut t = load_tensors(path)?;
        let mut take = |name: &str, shape: &[usize]| -> Result<Vec<f32>, AsrError> {
            match t.remove(name) {
                Some((s, v)) if s == shape => Ok(v),
                Some((s, _)) => Err(AsrError::BadModel {
                    path: path.to_path_buf(),
                    detail: format!("{name}: shape {s:?}, expected {shape:?}"),
                }),
                None => Err(AsrError::BadModel {
                    path: path.to_path_buf(),
                    detail: format!("{name} missing"),
                }),
            }
        };
        let conv = |w, b, out, inp, stride| Conv {
            w,
            b,
            out,
            inp,
            k: 3,
            stride,
            pad: 1,
        };
        let stft = Conv {
            w: take("stft_conv.weight", &[2 * BINS, 1, 256])?,
            b: Vec::new(),
            out: 2 * BINS,
            inp: 1,
            k: 256,
            stride: 128,
            pad: 0,
        };
        let convs = [
            conv(
                take("conv1.weight", &[128, BINS, 3])?,
                take("conv1.bias", &[128])?,
                128,
                BINS,
                1,
            ),
            conv(
                take("conv2.weight", &[64, 128, 3])?,
                take("conv2.bias", &[64])?,
                64,
                128,
                2,
            ),
            conv(
                take("conv3.weight", &[64, 64, 3])?,
                take("conv3.bias", &[64])?,
                64,
                64,
                2,
            ),
            conv(
                take("conv4.weight", &[128, 64, 3])?,
                take("conv4.bias", &[128])?,
                128,
                64,
                1,
            ),
        ];
        let w_ih = take("lstm_cell.weight_ih", &[4 * HIDDEN, HIDDEN])?;
        let w_hh = take("lstm_cell.weight_hh", &[4 * HIDDEN, HIDDEN])?;
        let b_ih = take("lstm_cell.bias_ih", &[4 * HIDDEN])?;
        let b_hh = take("lstm_cell.bias_hh", &[4 * HIDDEN])?;
        let w_out = take("final_conv.weight", &[1, HIDDEN, 1])?;
        let b_out = take("final_conv.bias", &[1])?[0];
        Ok(Self {
            stft,
            convs,
            w_ih,
            w_hh,
            b: b_ih.iter().zip(&b_hh).map(|(a, b)| a + b).collect(),
            w_out,
            b_out,
            h: vec![0.0; HIDDEN],
            c: vec![0.0; HIDDEN],
            input: vec![0.0; CONTEXT + WINDOW + CONTEXT],
            a: Vec::with_capacity(2 * BINS * 4),
            bbuf: Vec::with_capacity(2 * BINS * 4),
            gates: vec![0.0; 4 * HIDDEN],
            x: vec![0.0; HIDDEN],
        })
    }

    /// Clears the recurrent state and the context.
    pub fn reset(&mut self) {
        self.h.fill(0.0);
        self.c.fill(0.0);
        self.input.fill(0.0);
    }

    /// Speech probability of the next 512-sample window.
    pub fn prob(&mut self, window: &[f32; WINDOW]) -> f32 {
        // [context 64 | window 512 | reflect pad 64]
        let n = CONTEXT + WINDOW;
        self.input.copy_within(WINDOW..n, 0);
        self.input[CONTEXT..n].copy_from_slice(window);
        for i in 0..CONTEXT {
            self.input[n + i] = self.input[n - 2 - i];
        }
        let t = self.stft.run(&self.input, n + CONTEXT, &mut self.a);
        // Magnitude of (real, imag) pairs: [129][t].
        self.bbuf.clear();
        self.bbuf.resize(BINS * t, 0.0);
        for k in 0..BINS {
            for j in 0..t {
                let re = self.a[k * t + j];
                let im = self.a[(BINS + k) * t + j];
                self.bbuf[k * t + j] = (re * re + im * im).sqrt();
            }
        }
        let mut t = t;
        for conv in &self.convs {
            t = conv.run(&self.bbuf, t, &mut self.a);
            for v in &mut self.a {
                *v = v.max(0.0);
            }
            std::mem::swap(&mut self.a, &mut self.bbuf);
        }
        // Last frame of the encoder output feeds the LSTM cell.
        for i in 0..HIDDEN {
            self.x[i] = self.bbuf[i * t + t - 1];
        }
        let x = &self.x;
        for (g, gate) in self.gates.iter_mut().enumerate() {
            let wi = &self.w_ih[g * HIDDEN..(g + 1) * HIDDEN];
            let wh = &self.w_hh[g * HIDDEN..(g + 1) * HIDDEN];
            *gate = self.b[g]
                + wi.iter().zip(x).map(|(a, b)| a * b).sum::<f32>()
                + wh.iter().zip(&self.h).map(|(a, b)| a * b).sum::<f32>();
        }
        let sig = |v: f32| 1.0 / (1.0 + (-v).exp());
        for i in 0..HIDDEN {
            let (ig, fg) = (sig(self.gates[i]), sig(self.gates[HIDDEN + i]));
            let (gg, og) = (
                self.gates[2 * HIDDEN + i].tanh(),
                sig(self.gates[3 * HIDDEN + i]),
            );
            self.c[i] = fg * self.c[i] + ig * gg;
            self.h[i] = og * self.c[i].tanh();
        }
        let s: f32 = self
            .w_out
            .iter()
            .zip(&self.h)
            .map(|(w, h)| w * h.max(0.0))
            .sum();
        sig(s + self.b_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Probabilities of the first windows of jfk.wav from the numpy re-implementation of the
    /// same network on the same weights (`bench/asr_silero_reference.py`).
    #[test]
    fn matches_the_reference_on_jfk() {
        let store = pocket_assets::Store::open_default().expect("asset store");
        let Ok(path) =
            store.require_file(pocket_assets::ids::SILERO_VAD, "silero_vad_16k.safetensors")
        else {
            panic!("silero-vad not installed: pocket assets fetch --set all");
        };
        let wav = store
            .require_file(pocket_assets::ids::JFK, "jfk.wav")
            .expect("jfk");
        let samples: Vec<f32> = hound::WavReader::open(wav)
            .expect("wav")
            .samples::<i16>()
            .map(|s| f32::from(s.expect("sample")) / 32768.0)
            .collect();
        let mut s = Silero::load(&path).expect("weights");
        let mut got = Vec::new();
        for w in samples.chunks_exact(WINDOW).take(REF.len()) {
            got.push(s.prob(w.try_into().expect("512")));
        }
        for (i, (g, r)) in got.iter().zip(REF).enumerate() {
            assert!((g - r).abs() < 1e-3, "window {i}: {g} vs {r}");
        }
        assert!(Silero::load(std::path::Path::new("/nonexistent")).is_err());
    }

    const REF: [f32; 40] = [
        0.01801, 0.06578, 0.23897, 0.06983, 0.04936, 0.02197, 0.02610, 0.02827, 0.02016, 0.02482,
        0.64560, 0.98396, 0.98183, 0.94802, 0.97935, 0.99569, 0.99692, 0.99888, 0.99940, 0.99858,
        0.99551, 0.99901, 0.99648, 0.99820, 0.99640, 0.99479, 0.99349, 0.99061, 0.97971, 0.96346,
        0.99169, 0.99827, 0.99884, 0.99828, 0.99644, 0.99193, 0.99178, 0.99553, 0.99965, 0.99948,
    ];
}
