//! Small typed arguments of `voicebench run`: the modality and how a turn ends (the shard
//! `i/n` is `pocket_voicebench::Shard`).

use clap::ValueEnum;

/// What a sample goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Modality {
    /// The sample's audio through the whole voice loop (VAD, ASR, LLM, TTS, output).
    Audio,
    /// The sample's prompt text straight to the voice chat (no speech).
    Text,
    /// Like `audio`, but the reply is stopped as soon as its first audio plays: the latency
    /// of the whole loop without waiting for the rest of the answer (responses are partial).
    Ttft,
}

/// How a sample's turn ends (audio, ttft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TurnEnd {
    /// The whole sample is one user turn: the loop is told where its speech ends, as a
    /// push-to-talk release would, so no pause inside it ends the turn.
    Sample,
    /// The loop's own endpointing (`--endpoint`) decides, as in hands-free use: a long pause
    /// inside a sample may end a turn there (the record then counts and joins every turn).
    Natural,
}
