//! Flags several commands share — the audio pace, how turns end, the chat model and its
//! tuning — as clap structs that turn into the pipeline's plain choices
//! (`pocket_pipeline::{EndpointChoice, ChatChoice}`), which say what each means.

use std::time::Duration;

use clap::{Args, FromArgMatches, ValueEnum};
use pocket_assets::Store;
use pocket_llm::chat::HistoryPolicy;
use pocket_pipeline::audio::file::Pace;
use pocket_pipeline::engines::default::EngineOptions;
use pocket_pipeline::{ChatChoice, EndpointChoice};

/// A millisecond flag where 0 means off, as the pipeline's optional duration.
pub fn ms_or_off(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

/// The pipeline's optional duration as such a flag's value (`None` → 0).
pub fn off_or_ms(duration: Option<Duration>) -> u64 {
    duration.map_or(0, |d| d.as_millis() as u64)
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PaceArg {
    /// Inputs and output at real-time pace (honest latencies).
    Realtime,
    /// As fast as the engines go (quick checks; latencies compressed).
    Fast,
}

impl From<PaceArg> for Pace {
    fn from(p: PaceArg) -> Pace {
        match p {
            PaceArg::Realtime => Pace::Realtime,
            PaceArg::Fast => Pace::Fast,
        }
    }
}

/// How turns end, shared by `converse`, `talk` and `voicebench run`.
#[derive(Args, Clone, Debug)]
pub struct EndpointArgs {
    /// How the end of a turn is decided: `fixed` (a silence of --end-silence-ms), `smart`
    /// (the end-of-turn classifier on the audio, after a short pause; the fixed silence if its
    /// model is not installed) or `semantic` (the language model judges the words heard at
    /// each pause: a whole sentence ends the turn after 150 ms, an unfinished one waits up to
    /// the fallback).
    #[arg(long = "endpoint", default_value = "semantic")]
    pub mode: pocket_pipeline::EndpointMode,
    /// Smart: P(complete) at which a pause ends the turn.
    #[arg(long, default_value_t = 0.5)]
    pub turn_threshold: f32,
    /// Smart: silence at which the classifier's answer is used.
    #[arg(long, default_value_t = 200)]
    pub turn_decide_ms: u64,
    /// Smart and semantic: silence that ends the turn even when the words or the classifier
    /// say it is not complete (default 1200 ms).
    #[arg(long)]
    pub turn_fallback_ms: Option<u64>,
    /// Semantic: the language model's P(whole turn) at which the words end the turn.
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().threshold)]
    pub text_threshold: f32,
    /// Semantic: the recognizer's probability of the last word under which the words do not
    /// end the turn early (a word it may have invented to finish a fragment); 0 turns the
    /// check off.
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().min_last_word_p)]
    pub min_last_word_p: f32,
    /// Semantic: words written as a question ("...?") with P(whole turn) at least this (but
    /// under --text-threshold) end the turn after --question-wait-ms (1 turns this off).
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().question_threshold)]
    pub question_threshold: f32,
    /// Semantic: the silence after which such a question ends the turn.
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().question_wait.as_millis() as u64)]
    pub question_wait_ms: u64,
    /// Start the reply only once the turn has ended. By default it starts during the
    /// end-of-speech wait from the early transcript, held silent, and plays at the endpoint
    /// (thrown away unheard if the user goes on).
    #[arg(long)]
    pub no_speculate: bool,
    /// Silence within the user's speech after which the recognizer decodes the words so far
    /// as the final (the reply is made ahead from them, and the words judged).
    #[arg(long, default_value_t = pocket_pipeline::EndpointConfig::default().early_final_after.as_millis() as u64)]
    pub early_final_ms: u64,
    /// Speech that starts within this time of the last utterance's end of speech, while its
    /// reply is still to come or playing, goes on from it: once the words go beyond that
    /// turn's, its reply stops and both utterances are answered as one turn (no new words: the
    /// reply plays on). 0: every utterance is a turn of its own.
    #[arg(long, default_value_t = pocket_pipeline::EndpointConfig::default().continue_within.map_or(0, |d| d.as_millis() as u64))]
    pub continue_within_ms: u64,
}

impl Default for EndpointArgs {
    /// The flags' defaults, as the command line gives them.
    fn default() -> Self {
        let cmd = Self::augment_args(clap::Command::new("endpoint"));
        let matches = cmd.try_get_matches_from(["endpoint"]);
        matches
            .and_then(|m| Self::from_arg_matches(&m))
            .expect("the endpoint flags' defaults parse")
    }
}

impl EndpointArgs {
    /// The choice these flags make, with the fixed rule's `end_silence_ms`.
    pub fn choice(&self, end_silence_ms: u64) -> EndpointChoice {
        EndpointChoice {
            mode: self.mode,
            end_silence: Duration::from_millis(end_silence_ms),
            turn_threshold: self.turn_threshold,
            turn_decide: Duration::from_millis(self.turn_decide_ms),
            turn_fallback: self.turn_fallback_ms.map(Duration::from_millis),
            text_threshold: self.text_threshold,
            min_last_word_p: self.min_last_word_p,
            question_threshold: self.question_threshold,
            question_wait: Duration::from_millis(self.question_wait_ms),
            speculate: !self.no_speculate,
            early_final_after: Duration::from_millis(self.early_final_ms),
            continue_within: (self.continue_within_ms > 0)
                .then(|| Duration::from_millis(self.continue_within_ms)),
        }
    }
}

/// The chat model and its history policy, shared by `converse`, `talk`, `demo`, `ask` and
/// `voicebench run`.
#[derive(Args, Clone, Debug)]
pub struct ChatChoiceArgs {
    /// The language model: an asset id (smollm2-135m-instruct-q4_1, qwen2.5-coder-0.5b-instruct,
    /// qwen2.5-coder-1.5b-instruct-q4_k_m) or the path of a GGUF file (llama, qwen2 or qwen3).
    /// Default: the 1.5B where the machine has the memory and its file is installed, else
    /// SmolLM2 (docs/PERFORMANCE.md, "Which model answers").
    #[arg(long)]
    pub model: Option<String>,
    /// Which earlier turns the model sees: all (that fit), last:N exchanges, tokens:N.
    #[arg(long)]
    pub history: Option<HistoryPolicy>,
    /// Replace the voice system prompt (for tuning).
    #[arg(long)]
    pub system_prompt: Option<String>,
    /// Replace the repetition penalty (1 = none; for tuning).
    #[arg(long)]
    pub repeat_penalty: Option<f32>,
    /// A reply never repeats a run of this many tokens from the reply before it (0 = off).
    #[arg(long)]
    pub avoid_copy_ngram: Option<usize>,
    /// Tokens drafted from the conversation that each reply token takes with it, checked in
    /// the same pass (0 = off; the reply is the same, only passes are saved).
    #[arg(long)]
    pub draft_tokens: Option<usize>,
    /// Hypotheses of the recognizer's beam search for final transcripts (1 = greedy).
    #[arg(long, default_value_t = pocket_asr::RecognizerConfig::default().beam_size)]
    pub asr_beam: usize,
    /// Beam-search a final transcript only when greedy decoding heard a token with less than
    /// this probability (1 = always, 0 = never).
    #[arg(long, default_value_t = pocket_asr::RecognizerConfig::default().beam_below_p)]
    pub asr_beam_below: f32,
    /// Earlier text the recognizer reads before each turn spoken to a silent assistant, as the
    /// transcript so far (default none; `voicebench run` takes `--listen-for` instead). A few
    /// everyday questions, as `pocket_asr::context::QUESTION_TEXT`, make tiny.en hear more
    /// questions right at ~20 ms more to the first audio (docs/PERFORMANCE.md, "Earlier text").
    #[arg(long)]
    pub asr_earlier_text: Option<String>,
    /// Keep the recognizer's best hearing of an unsure final instead of letting the small
    /// words model pick among the beam's hearings (docs/PERFORMANCE.md, "The words judge picks
    /// the hearing").
    #[arg(long)]
    pub asr_best_hearing_only: bool,
}

impl ChatChoiceArgs {
    /// The choice these flags make.
    pub fn choice(&self) -> ChatChoice {
        ChatChoice {
            model: self.model.clone(),
            history: self.history,
            system_prompt: self.system_prompt.clone(),
            repeat_penalty: self.repeat_penalty,
            avoid_copy_ngram: self.avoid_copy_ngram,
            draft_tokens: self.draft_tokens,
            asr_plain_text: self.asr_earlier_text.clone(),
            hearing_choice: !self.asr_best_hearing_only,
            asr_search: pocket_asr::Search {
                beam: self.asr_beam,
                greedy_min_p: self.asr_beam_below,
            },
        }
    }

    /// Engine options for this choice (the rest default), saying which model answers when
    /// the device's default is not the one the rule wants.
    pub fn engine_options(&self, store: &Store, threads: usize, realtime: bool) -> EngineOptions {
        let choice = self.choice();
        let (model, note) = choice.model_id(store);
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
        choice.engine_options(model, threads, realtime)
    }
}
