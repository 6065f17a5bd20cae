//! Smart Turn v3 on ONNX Runtime: one `[1, 80, 800]` log-mel input, one probability out.

use std::path::{Path, PathBuf};

use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;

use crate::error::TurnError;
use crate::features::{Features, INPUT_SHAPE};

/// The model's input name.
const INPUT: &str = "input_features";

/// A loaded end-of-turn classifier.
pub struct SmartTurn {
    session: Session,
    features: Features,
    path: PathBuf,
}

impl std::fmt::Debug for SmartTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SmartTurn({})", self.path.display())
    }
}

impl SmartTurn {
    /// Loads the model file (`smart-turn-v3.2-cpu.onnx`) on `threads` compute threads.
    pub fn load(onnx: &Path, env: &Environment, threads: usize) -> Result<Self, TurnError> {
        if !onnx.is_file() {
            return Err(TurnError::Missing {
                path: onnx.to_path_buf(),
            });
        }
        let model_err = |detail: String| TurnError::Model {
            path: onnx.to_path_buf(),
            detail,
        };
        let session = Session::builder(env)
            .map_err(|e| model_err(e.to_string()))?
            .with_optimization_level(GraphOptimizationLevel::All)
            .map_err(|e| model_err(e.to_string()))?
            // The model is int8 in QDQ form. Fused into ONNX Runtime's int8 kernels its answer
            // depends on the CPU (the whole JFK sentence: P 0.26 on an AVX2 machine without
            // VNNI, 0.63 on another), so a user's turn would end differently per phone. Kept as
            // float arithmetic on the quantized values it is the same everywhere (0.72), at
            // about 40 ms more per verdict on one x86 thread.
            .with_quant_qdq(false)
            .map_err(|e| model_err(e.to_string()))?
            .with_intra_threads(threads.max(1))
            .map_err(|e| model_err(e.to_string()))?
            .with_inter_threads(1)
            .map_err(|e| model_err(e.to_string()))?
            .commit_from_file(onnx)
            .map_err(|e| model_err(e.to_string()))?;
        if !session.inputs().iter().any(|i| i.name() == INPUT) || session.outputs().is_empty() {
            return Err(TurnError::Model {
                path: onnx.to_path_buf(),
                detail: format!("not a Smart Turn v3 model: no input {INPUT:?}"),
            });
        }
        Ok(Self {
            session,
            features: Features::new(),
            path: onnx.to_path_buf(),
        })
    }

    /// The probability (0..=1) that the turn in `audio` is complete: 16 kHz mono, the turn so
    /// far including the pause it is asked in (only the last 8 s count).
    pub fn predict(&mut self, audio: &[f32]) -> Result<f32, TurnError> {
        let err = |e: ort::Error| TurnError::Inference(e.to_string());
        let feats = self.features.compute(audio);
        let input = TensorRef::from_array_view((INPUT_SHAPE, feats)).map_err(err)?;
        let outputs = self
            .session
            .run(ort::inputs![INPUT => input])
            .map_err(err)?;
        let (_, p) = outputs[0].try_extract_tensor::<f32>().map_err(err)?;
        let p = p
            .first()
            .copied()
            .ok_or_else(|| TurnError::Inference("the model returned no probability".into()))?;
        // The network ends in a sigmoid; a NaN (broken weights) counts as "not sure: wait".
        Ok(if p.is_finite() {
            p.clamp(0.0, 1.0)
        } else {
            0.0
        })
    }
}
