//! Adapter over `pocket-turn`: Smart Turn v3 as the pipeline's end-of-turn classifier, loaded
//! through the asset store on the process's ONNX Runtime environment.

use pocket_assets::{Store, ids};

use super::{EngineError, EngineResult, TurnClassifier};

/// Pipecat Smart Turn v3.2 on ONNX Runtime.
pub struct SmartTurnClassifier(pub pocket_turn::SmartTurn);

impl SmartTurnClassifier {
    /// Loads the `smart-turn-v3` asset on `threads` threads; the error says what is missing.
    pub fn load(store: &Store, threads: usize) -> EngineResult<Self> {
        let model = store
            .require_file(ids::SMART_TURN, ids::SMART_TURN_FILE)
            .map_err(EngineError::new)?;
        let library = store
            .require_file(ids::ONNXRUNTIME, pocket_tts::ORT_LIBRARY)
            .map_err(EngineError::new)?;
        let env = pocket_tts::onnx_environment(&library).map_err(EngineError::new)?;
        pocket_turn::SmartTurn::load(&model, &env, threads)
            .map(Self)
            .map_err(EngineError::new)
    }
}

impl TurnClassifier for SmartTurnClassifier {
    fn complete_probability(&mut self, audio: &[f32]) -> EngineResult<f32> {
        self.0.predict(audio).map_err(EngineError::new)
    }
}
