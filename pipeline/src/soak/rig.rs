//! The default engines started at fast pace with their history watched: the setup that
//! `pocket soak`, the soak test and the long-session test share.

use pocket_assets::Store;

use super::probe::{HistoryProbe, record_history};
use super::{SoakOptions, SoakReport};
use crate::audio::file::{FileSink, Pace};
use crate::engines::default::{EngineOptions, load_default};
use crate::handle::{MicSender, Pipeline, PipelineHandle};
use crate::{PipelineConfig, PipelineError};

/// A pipeline on the real default engines with a fast file sink (the output is taken as fast
/// as it comes and not kept) and no echo path.
pub struct FastRig {
    pub pipeline: Pipeline,
    pub handle: PipelineHandle,
    pub mic: MicSender,
    pub sink: FileSink,
    /// The chat model's history, as it changes.
    pub history: HistoryProbe,
    /// What fell back at load (e.g. no Piper voice).
    pub warnings: Vec<String>,
}

impl FastRig {
    /// Loads the default engines from `store` on `threads` threads each (no early decodes:
    /// audio arrives faster than real time) and starts the loop.
    pub fn start(store: &Store, threads: usize) -> Result<Self, PipelineError> {
        let mut loaded = load_default(
            store,
            &EngineOptions {
                threads,
                realtime: false,
                ..EngineOptions::default()
            },
        )?;
        let (chat, history) = record_history(loaded.engines.chat);
        loaded.engines.chat = chat;
        let mut config = PipelineConfig {
            output_rate: loaded.voice_rate,
            echo_cancel: false,
            ..PipelineConfig::default()
        };
        // The plan's barge-ins while the assistant thinks start the next input as soon as a
        // turn begins, each a new question: here they are barge-ins, not the user going on
        // from the turn before (which has scenario tests of its own).
        config.endpoint.continue_within = None;
        let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
        // Keeps none of the output: a long run's replies would fill memory.
        let sink = FileSink::discarding(ports.speaker, ports.output_rate, Pace::Fast)?;
        Ok(Self {
            handle: pipeline.handle(),
            pipeline,
            mic: ports.mic,
            sink,
            history,
            warnings: loaded.warnings,
        })
    }

    /// A soak run on this loop (see [`super::run`]).
    pub fn soak(
        &mut self,
        clips: &[Vec<f32>],
        texts: &[String],
        opts: &SoakOptions,
        on_turn: &mut dyn FnMut(&SoakReport),
    ) -> SoakReport {
        super::run(
            &self.handle,
            &mut self.mic,
            &self.history,
            clips,
            texts,
            opts,
            on_turn,
        )
    }

    /// Stops the loop and joins its threads.
    pub fn stop(self) {
        drop(self.sink.finish());
        drop(self.mic);
        self.pipeline.shutdown();
    }
}
