//! Text modality: the prompt goes straight to the voice chat (same model, system prompt,
//! sampler and reply limits as the voice loop); one chat per worker on one shared model.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use pocket_llm::Model;
use pocket_pipeline::engines::ChatEngine;
use pocket_pipeline::engines::llm::{LlmChat, VoiceChatConfig};
use pocket_voicebench::{Record, Sample};

use super::worker::Answerer;

pub struct TextAnswerer {
    chat: LlmChat,
}

impl TextAnswerer {
    pub fn new(model: Arc<Model>, cfg: VoiceChatConfig) -> Result<Self> {
        Ok(Self {
            chat: LlmChat::new(model, cfg)?,
        })
    }
}

impl Answerer for TextAnswerer {
    /// Timings: `llm_first_token` (prompt in → first reply piece, the system prompt already
    /// prefilled as the voice loop does while idle) and `total` (whole reply).
    fn answer(&mut self, sample: &Sample) -> Result<Record> {
        self.chat.reset();
        self.chat.prepare()?;
        let never = AtomicBool::new(false);
        let start = Instant::now();
        let mut first = None;
        let mut reply = String::new();
        self.chat.reply(&sample.prompt, &never, &mut |piece| {
            first.get_or_insert_with(|| start.elapsed());
            reply.push_str(piece);
            ControlFlow::Continue(())
        })?;
        let total = start.elapsed();
        let mut r = Record::from_sample(sample, reply.trim());
        if let Some(f) = first {
            r.timings
                .insert("llm_first_token".into(), f.as_secs_f64() * 1e3);
        }
        r.timings.insert("total".into(), total.as_secs_f64() * 1e3);
        Ok(r)
    }
}
