//! What a front end lets its user choose — how turns end, which chat model answers and how it
//! is tuned — and the pipeline and engine configuration each choice means. Plain values: the
//! command line and the app each offer them their own way.

use std::time::Duration;

use pocket_assets::Store;
use pocket_llm::chat::HistoryPolicy;

use crate::config::{EndpointConfig, EndpointMode, SemanticEndpoint, SmartEndpoint};
use crate::engines::choice::default_model;
use crate::engines::default::EngineOptions;

/// How turns end.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointChoice {
    /// Fixed silence, the end-of-turn classifier, or the language model's judgement.
    pub mode: EndpointMode,
    /// Silence that ends a turn in [`EndpointMode::Fixed`] (and without a judgement).
    pub end_silence: Duration,
    /// Smart: P(complete) at which a pause ends the turn.
    pub turn_threshold: f32,
    /// Smart: silence at which the classifier's answer is used.
    pub turn_decide: Duration,
    /// Smart and semantic: silence that ends the turn whatever the words or the classifier
    /// say (`None`: each mode's default).
    pub turn_fallback: Option<Duration>,
    /// Semantic: the language model's P(whole turn) at which the words end the turn.
    pub text_threshold: f32,
    /// Semantic: the recognizer's probability of the last word under which the words do not
    /// end the turn early (0: no check).
    pub min_last_word_p: f32,
    /// Semantic: P(whole turn) from which words written as a question (but under
    /// `text_threshold`) end the turn after `question_wait` (1: never).
    pub question_threshold: f32,
    /// Semantic: the silence after which such a question ends the turn.
    pub question_wait: Duration,
    /// Start the reply during the end-of-speech wait, held silent until the endpoint
    /// (`PipelineConfig::speculative_reply`).
    pub speculate: bool,
    /// Silence at which the recognizer decodes the final early
    /// (`EndpointConfig::early_final_after`).
    pub early_final_after: Duration,
    /// Speech this soon after the last utterance's end of speech goes on from it
    /// (`EndpointConfig::continue_within`; `None`: never).
    pub continue_within: Option<Duration>,
}

impl EndpointChoice {
    /// The endpointer settings for this choice (the rest default).
    pub fn config(&self) -> EndpointConfig {
        let defaults = EndpointConfig::default();
        EndpointConfig {
            end_silence: self.end_silence,
            mode: self.mode,
            early_final_after: self.early_final_after,
            continue_within: self.continue_within,
            smart: SmartEndpoint {
                ask_after: defaults.smart.ask_after.min(self.turn_decide),
                decide_after: self.turn_decide,
                threshold: self.turn_threshold,
                fallback: self.turn_fallback.unwrap_or(defaults.smart.fallback),
            },
            semantic: SemanticEndpoint {
                threshold: self.text_threshold,
                min_last_word_p: self.min_last_word_p,
                question_threshold: self.question_threshold,
                question_wait: self.question_wait,
                fallback: self.turn_fallback.unwrap_or(defaults.semantic.fallback),
                ..defaults.semantic
            },
            ..defaults
        }
    }

    /// Whether the classifier is worth loading.
    pub fn wants_classifier(&self) -> bool {
        self.mode == EndpointMode::Smart
    }

    /// Whether this mode judges the words (a small model may then do it beside a large one).
    pub fn judges_words(&self) -> bool {
        self.mode == EndpointMode::Semantic
    }

    /// Sets which engines this choice needs loaded (the classifier, the words judge).
    pub fn apply_to(&self, opts: &mut EngineOptions) {
        opts.turn_classifier = self.wants_classifier();
        opts.words_judge = self.judges_words();
    }
}

impl Default for EndpointChoice {
    fn default() -> Self {
        let defaults = EndpointConfig::default();
        Self {
            mode: defaults.mode,
            end_silence: defaults.end_silence,
            turn_threshold: defaults.smart.threshold,
            turn_decide: defaults.smart.decide_after,
            turn_fallback: None,
            text_threshold: defaults.semantic.threshold,
            min_last_word_p: defaults.semantic.min_last_word_p,
            question_threshold: defaults.semantic.question_threshold,
            question_wait: defaults.semantic.question_wait,
            speculate: true,
            early_final_after: defaults.early_final_after,
            continue_within: defaults.continue_within,
        }
    }
}

/// The chat model, how it is tuned, and how the recognizer searches.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatChoice {
    /// An asset id or a GGUF file's path (`None`: the device's default,
    /// [`default_model`]).
    pub model: Option<String>,
    /// How the recognizer searches for final transcripts.
    pub asr_search: pocket_asr::Search,
    /// Let the words judge pick among the hearings of an unsure final
    /// (`EngineOptions::hearing_choice`).
    pub hearing_choice: bool,
    /// Which earlier turns the model sees (`None`: the voice chat's default).
    pub history: Option<HistoryPolicy>,
    /// Replaces the voice system prompt.
    pub system_prompt: Option<String>,
    /// Replaces the repetition penalty.
    pub repeat_penalty: Option<f32>,
    /// Replaces the n of the reply's no-copy rule (0: off).
    pub avoid_copy_ngram: Option<usize>,
    /// Replaces how many tokens drafted from the conversation each reply token takes with it
    /// (0: off).
    pub draft_tokens: Option<usize>,
    /// Replaces the recognizer's earlier text for turns spoken to a silent assistant
    /// (`EngineOptions::asr_plain_text`).
    pub asr_plain_text: Option<String>,
}

impl Default for ChatChoice {
    fn default() -> Self {
        Self {
            model: None,
            asr_search: pocket_asr::RecognizerConfig::default().final_search(),
            hearing_choice: true,
            history: None,
            system_prompt: None,
            repeat_penalty: None,
            avoid_copy_ngram: None,
            draft_tokens: None,
            asr_plain_text: None,
        }
    }
}

impl ChatChoice {
    /// The model asked for, or the device's default with the rule's note when the model it
    /// wants is not installed (for the user to see).
    pub fn model_id(&self, store: &Store) -> (String, Option<String>) {
        match &self.model {
            Some(m) => (m.clone(), None),
            None => {
                let choice = default_model(store);
                (choice.model.to_string(), choice.note)
            }
        }
    }

    /// Engine options for this choice with `model` answering (the rest default).
    pub fn engine_options(&self, model: String, threads: usize, realtime: bool) -> EngineOptions {
        let mut opts = EngineOptions {
            threads,
            realtime,
            model,
            asr_search: self.asr_search,
            hearing_choice: self.hearing_choice,
            ..EngineOptions::default()
        };
        if let Some(h) = self.history {
            opts.chat.history = h;
        }
        if let Some(p) = &self.system_prompt {
            opts.chat.system_prompt.clone_from(p);
        }
        if let Some(r) = self.repeat_penalty {
            opts.chat.sampler.repeat_penalty = r;
        }
        if let Some(n) = self.avoid_copy_ngram {
            opts.chat.avoid_copy_ngram = n;
        }
        if let Some(n) = self.draft_tokens {
            opts.chat.drafts.tokens = n;
        }
        if let Some(t) = &self.asr_plain_text {
            opts.asr_plain_text.clone_from(t);
        }
        opts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_choices_mean_the_default_configuration() {
        assert_eq!(
            EndpointChoice::default().config(),
            EndpointConfig::default()
        );
        let opts = ChatChoice::default().engine_options("m".into(), 2, true);
        let defaults = EngineOptions::default();
        assert_eq!(opts.asr_search, defaults.asr_search);
        assert_eq!(opts.chat.history, defaults.chat.history);
        assert!(opts.hearing_choice && defaults.hearing_choice);
        let best_only = ChatChoice {
            hearing_choice: false,
            ..ChatChoice::default()
        };
        assert!(!best_only.engine_options("m".into(), 2, true).hearing_choice);
    }

    #[test]
    fn a_fallback_sets_both_modes_and_the_decision_moves_the_first_look() {
        let c = EndpointChoice {
            turn_decide: Duration::from_millis(30),
            turn_fallback: Some(Duration::from_millis(900)),
            ..EndpointChoice::default()
        }
        .config();
        assert_eq!(c.smart.fallback, Duration::from_millis(900));
        assert_eq!(c.semantic.fallback, Duration::from_millis(900));
        assert_eq!(c.smart.ask_after, Duration::from_millis(30));
    }

    #[test]
    fn the_question_tier_is_the_semantic_judges_to_set() {
        let c = EndpointChoice {
            question_threshold: 1.0,
            question_wait: Duration::from_millis(700),
            ..EndpointChoice::default()
        }
        .config();
        assert_eq!(c.semantic.question_threshold, 1.0);
        assert_eq!(c.semantic.question_wait, Duration::from_millis(700));
    }
}
