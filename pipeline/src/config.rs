//! Tunables of the voice loop, validated once when the pipeline starts.

use std::time::Duration;

use crate::PipelineError;

/// How speech is detected and cut into utterances (all at 16 kHz, 10 ms frames).
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointConfig {
    /// Speech probability at or above which a frame counts as voiced.
    pub threshold: f32,
    /// Voiced time before an utterance counts (and may barge in): shorter bursts — a cough, a
    /// click — are dropped.
    pub min_speech: Duration,
    /// Silence after speech that ends the utterance.
    pub end_silence: Duration,
    /// Audio kept from before the detected onset and given to the recognizer.
    pub preroll: Duration,
    /// An utterance is cut here even if the user keeps talking.
    pub max_utterance: Duration,
    /// Silence within an utterance after which the recognizer decodes the final at once (the
    /// reply is made ahead from it, and the words judged); speech after such a pause is
    /// reported as resumed and voids both. Every turn's early final, and so its reply, comes
    /// this long after the end of speech plus the decode. 60 ms rather than the earlier 100:
    /// in the 120-turn held-out session the first audio came 30-40 ms sooner at the median
    /// with the 1.5B and with SmolLM2 (AVX2 kernels), with no more false cuts on
    /// `bench/turn-taking.sh`; the price is more pauses heard between synthetic voices'
    /// phonemes (gaps of 60-100 ms), each a decode and a reply made ahead and thrown away; the
    /// recognizer is as sure of the last word after 60 ms as after 100 (offline, 9 of 360
    /// held-out clips doubted with either; docs/PERFORMANCE.md, "Which model answers").
    pub early_final_after: Duration,
    /// Speech that starts within this time of the last utterance's end of speech, while that
    /// turn's reply is still to come or playing, goes on from it: the recognizer hears it as
    /// that utterance's continuation, and the reply pauses as at any onset. Once the words go
    /// beyond the turn's, that turn ended at a pause the user meant as one ("What game has
    /// kings, | queens, bishops and pawns?"): its reply stops, its exchange leaves the
    /// conversation, and both utterances are answered as one turn. No new words (a cough, the
    /// reply's echo): the reply plays on. `None`: every utterance is a turn of its own (speech
    /// over a reply is a barge-in). 1200 ms, the semantic endpoint's fallback: a pause shorter
    /// than that is one the endpointer would have waited out, had the words not seemed whole.
    pub continue_within: Option<Duration>,
    /// How the end of a turn is decided: a fixed silence, the end-of-turn classifier, or the
    /// language model's judgement of the words (the default).
    pub mode: EndpointMode,
    /// The classifier's timings and threshold (used in [`EndpointMode::Smart`]).
    pub smart: SmartEndpoint,
    /// The language model's judgement of the words (used in [`EndpointMode::Semantic`]).
    pub semantic: SemanticEndpoint,
}

/// How the end of the user's turn is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EndpointMode {
    /// `end_silence` of silence ends the turn, whatever was said: it cuts every pause longer
    /// than that (all 40 paused sentences of the turn-taking run in docs/PERFORMANCE.md).
    Fixed,
    /// After a short silence the end-of-turn classifier decides (see [`SmartEndpoint`]); a
    /// pipeline started without a classifier (its model not installed) uses `Fixed`. Cuts
    /// fewer mid-sentence pauses (50% vs 95% measured) at the cost of a longer wait when the
    /// classifier is unsure.
    Smart,
    /// At each pause the recognizer decodes what was said so far and the language model
    /// judges whether those words are a whole turn (see [`SemanticEndpoint`]): "What is the
    /// capital of" waits, "What is the capital of France" ends the turn at once. Without a
    /// judgement (a model that cannot tell, or one too late) the fixed rule decides. The
    /// default: on the turn-taking set, first audio 327 vs 498 ms P50 from the true end of
    /// speech and 1 vs 40 of 40 paused sentences cut, compared with `Fixed`
    /// (docs/PERFORMANCE.md, "Voice loop: first-audio latency").
    #[default]
    Semantic,
}

impl std::str::FromStr for EndpointMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "fixed" => Ok(Self::Fixed),
            "smart" => Ok(Self::Smart),
            "semantic" => Ok(Self::Semantic),
            _ => Err(format!(
                "endpoint must be \"fixed\", \"smart\" or \"semantic\", not {s:?}"
            )),
        }
    }
}

/// Smart (classifier) endpointing: at each pause in the user's speech the end-of-turn
/// classifier (Smart Turn, on the audio) is asked on its own thread whether the turn is
/// complete, early at `ask_after` of silence and again at `decide_after` (the model is surer
/// with ~200 ms of silence in its input). An answer of at least `threshold` ends the turn, from
/// `decide_after` on; otherwise the loop keeps listening, asks again at the next pause, and
/// `fallback` of silence ends the turn regardless.
#[derive(Debug, Clone, PartialEq)]
pub struct SmartEndpoint {
    /// Silence after which the classifier first looks at the turn's audio (shorter gaps
    /// between words are not worth a call), so its answer is ready by `decide_after`.
    pub ask_after: Duration,
    /// No turn ends on a "complete" before this much silence; the classifier is asked again
    /// here unless the first answer already said "complete".
    pub decide_after: Duration,
    /// P(complete) at or above which the turn ends at `decide_after`.
    pub threshold: f32,
    /// Silence that ends the turn even when the classifier said "not done".
    pub fallback: Duration,
}

impl Default for SmartEndpoint {
    fn default() -> Self {
        Self {
            ask_after: Duration::from_millis(50),
            decide_after: Duration::from_millis(200),
            threshold: 0.5,
            fallback: Duration::from_millis(1200),
        }
    }
}

/// Semantic endpointing: after `EndpointConfig::early_final_after` of silence the recognizer
/// decodes the turn so far and the language model gives the probability that those words are
/// the whole turn (the chance that its next token would close the user's message or the
/// sentence). At or above `threshold` the turn ends once `decide_after` of silence has
/// passed; below it the loop keeps listening up to `fallback`; with no judgement by
/// `EndpointConfig::end_silence` that fixed rule ends the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct SemanticEndpoint {
    /// P(whole turn) at or above which the words end the turn. Measured with SmolLM2-135M
    /// on `bench/turn-taking.txt` as text: sentences cut at a phrase boundary score at most
    /// 0.033, whole ones at least 0.068 (6 of the 112 whole questions of
    /// `bench/questions.tsv` score under 0.05: they wait for `fallback`); in the voice loop
    /// the recognizer's guess at a fragment ("... ideas for about date") scored up to 0.032,
    /// hence 0.05 (docs/PERFORMANCE.md).
    pub threshold: f32,
    /// The recognizer's probability of the last word heard, under which the words are not
    /// trusted to end the turn (it waits as for unfinished words). At a mid-sentence pause
    /// Whisper sometimes finishes the fragment with a word nobody said ("What time does the
    /// sun" -> "... sun sound?", the word at 0.19; "What should I" -> "... I do?", 0.22), and
    /// the model then rightly judges the invented sentence whole. Of 336 whole spoken
    /// questions (`bench/questions.tsv`, three voices) 11 have a last word under 0.25, mostly
    /// misheard ones (docs/PERFORMANCE.md). Those wait for `fallback` too: ending a doubted
    /// question judged whole at `question_wait` instead doubled `bench/turn-taking.sh`'s false
    /// cuts ("When did the second world | ..." heard as "... world war?").
    pub min_last_word_p: f32,
    /// Words the recognizer wrote as a question ("In which month is Christmas?") whose P is
    /// under `threshold` but at least this wait `question_wait` instead of `fallback`. SmolLM2
    /// gives some whole questions under 0.05 (that one 0.023) and most unfinished words under
    /// 0.005 ("What is the capital of"); the recognizer's "?" says the pitch rose or the words
    /// make a question. 1.0 turns the tier off.
    pub question_threshold: f32,
    /// The silence after which such a question ends the turn. With 500 ms,
    /// `bench/turn-taking.sh` (20 sentences paused 500-900 ms at a phrase boundary) had 2 of
    /// them cut where the tier off had none: "How do I convert? | ten miles ..." at a 540 ms
    /// pause, and "How much water should I drink? | every day" at 809 ms, a whole question
    /// itself; hence 600 ms. In the 120-turn session it took 5 of the 12 waits of 1.2 s away
    /// (docs/PERFORMANCE.md).
    pub question_wait: Duration,
    /// No turn ends on a judgement before this much silence.
    pub decide_after: Duration,
    /// Silence that ends the turn even when the words sound unfinished.
    pub fallback: Duration,
}

impl Default for SemanticEndpoint {
    fn default() -> Self {
        Self {
            threshold: 0.05,
            min_last_word_p: 0.25,
            question_threshold: 0.01,
            question_wait: Duration::from_millis(600),
            decide_after: Duration::from_millis(150),
            fallback: Duration::from_millis(1200),
        }
    }
}

impl Default for EndpointConfig {
    fn default() -> Self {
        Self {
            threshold: 0.5,
            min_speech: Duration::from_millis(250),
            end_silence: Duration::from_millis(400),
            preroll: Duration::from_millis(300),
            max_utterance: Duration::from_secs(20),
            early_final_after: Duration::from_millis(60),
            continue_within: Some(Duration::from_millis(1200)),
            mode: EndpointMode::default(),
            smart: SmartEndpoint::default(),
            semantic: SemanticEndpoint::default(),
        }
    }
}

/// Everything the pipeline needs besides its engines.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineConfig {
    pub endpoint: EndpointConfig,
    /// Sample rate of the output (device or file sink).
    pub output_rate: u32,
    /// Reply audio the playback ring holds (backpressure on synthesis beyond it).
    pub playback_buffer: Duration,
    /// Cancel the echo of our own voice in the capture path (needs the output reference).
    pub echo_cancel: bool,
    /// How often the recognizer re-decodes for a partial transcript (`None`: never).
    pub partial_interval: Option<Duration>,
    /// While synthesis works on a reply segment and less than 1.5 s of the reply's audio is
    /// queued for the output (so always from the first segment to the first chunk), the
    /// language model pauses, up to this long per wait, so on few cores it does not starve
    /// the first audio or let the output run dry. The model decodes far faster than speech
    /// plays, so the wait costs nothing later (`None`: never pause). See docs/PERFORMANCE.md.
    pub first_audio_gate: Option<Duration>,
    /// The first spoken piece of a reply normally ends at a clause mark or before a
    /// phrase-opening word; a model that takes longer than this from its first token to get
    /// there has the piece cut at the next word instead (never after fewer than two words, nor
    /// on "the", "of", "is", ...). On a 1.5B model at ~23 tokens/s a first piece runs to 6-9
    /// tokens; on SmolLM2 this never comes into play (`None`: no cut). docs/PERFORMANCE.md.
    pub first_piece_due: Option<Duration>,
    /// A later piece is due when less than this much of the reply's audio is left to play,
    /// every piece before it is synthesized, and the model has not reached its phrase boundary
    /// yet: it is cut at the next word as a due first piece is, so the output does not run dry
    /// behind a short first phrase while a slow model writes a whole sentence ("We are" then
    /// "in the same family for 10 years."). The margin covers a token or two and the next
    /// piece's first chunk. `None`: later pieces wait for their boundary.
    pub later_piece_due_below: Option<Duration>,
    /// How often the playback monitor looks at the output.
    pub monitor_period: Duration,
    /// An output that has played before and then consumes nothing for this long counts as
    /// lost: the reply ends with what was heard, and replies are text only until it plays
    /// again. A backend that reports its loss (cpal's error callback) is handled at once; this
    /// catches one that silently stops calling back. A device callback runs every few ms
    /// (Bluetooth's every ~100 ms), but on a saturated CPU the callbacks through ALSA and
    /// PulseAudio were seen to pause for over 500 ms and then go on, so the default is 2 s.
    pub output_timeout: Duration,
    /// Backchannels do not interrupt: when the user starts speaking over a reply, the reply
    /// pauses at once (the barge-in stop time) and the recognizer decides. Words other than a
    /// backchannel ("mm-hm", "yeah", "okay", "right"), or speech going on this long, cut the
    /// reply off; no words (a cough, a laugh) or only a backchannel resume it where it
    /// paused. `None`: every onset cuts the reply off at once.
    pub backchannel_hold: Option<Duration>,
    /// Start the reply during the end-of-speech wait, as soon as the recognizer's early final
    /// is there: the model writes and synthesis speaks its first phrase into the held output,
    /// which plays it the moment the turn is confirmed (the final transcript is the same
    /// words). If the user goes on speaking, or the final differs, the reply is thrown away
    /// unheard and leaves the conversation as it was. `false`: the model only pre-runs the
    /// early words (prefill) and the reply starts at the endpoint.
    pub speculative_reply: bool,
    /// Run each partial transcript through the model while the user still speaks (a prefill:
    /// nothing joins the history), so at the pause only the words since the last partial are
    /// left to run. It matters for a large model, whose prefill of a whole question takes a
    /// noticeable part of the wait; the next partial or final reuses the common prefix.
    pub prefill_partials: bool,
    /// Turn records kept for `PipelineHandle::report` and `records_since`: the newest this
    /// many (a record is ~0.5 KB; a session left running for days must not grow). A finite
    /// run whose report lists every turn (`pocket converse`) sets `usize::MAX`.
    pub kept_records: usize,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            endpoint: EndpointConfig::default(),
            output_rate: 48_000,
            playback_buffer: Duration::from_secs(4),
            echo_cancel: true,
            partial_interval: Some(Duration::from_millis(600)),
            first_audio_gate: Some(Duration::from_millis(1500)),
            first_piece_due: Some(Duration::from_millis(150)),
            later_piece_due_below: Some(Duration::from_millis(300)),
            monitor_period: Duration::from_millis(5),
            output_timeout: Duration::from_millis(2000),
            backchannel_hold: Some(Duration::from_millis(1500)),
            speculative_reply: true,
            prefill_partials: true,
            kept_records: 500,
        }
    }
}

impl PipelineConfig {
    /// Checks every field once, so the actors can trust them.
    pub fn validate(&self) -> Result<(), PipelineError> {
        let bad = |what: &str| Err(PipelineError::Config(what.to_string()));
        let e = &self.endpoint;
        if !(0.0..=1.0).contains(&e.threshold) {
            return bad("endpoint threshold must be within 0..=1");
        }
        if e.end_silence < Duration::from_millis(10) {
            return bad("end_silence must be at least 10 ms");
        }
        if e.max_utterance < e.min_speech + e.end_silence {
            return bad("max_utterance must exceed min_speech + end_silence");
        }
        if e.preroll > Duration::from_secs(2) {
            return bad("preroll must be at most 2 s");
        }
        if !(Duration::from_millis(20)..=Duration::from_secs(1)).contains(&e.early_final_after) {
            return bad("early_final_after must be within 20 ms and 1 s");
        }
        let sm = &e.smart;
        if !(0.0..=1.0).contains(&sm.threshold) {
            return bad("smart endpoint threshold must be within 0..=1");
        }
        if !(sm.ask_after >= Duration::from_millis(10)
            && sm.ask_after <= sm.decide_after
            && sm.decide_after < sm.fallback)
        {
            return bad(
                "smart endpoint timings must satisfy 10 ms <= ask_after <= decide_after < fallback",
            );
        }
        if e.max_utterance < e.min_speech + sm.fallback {
            return bad("max_utterance must exceed min_speech + the smart fallback silence");
        }
        let se = &e.semantic;
        if !(0.0..=1.0).contains(&se.threshold) {
            return bad("semantic endpoint threshold must be within 0..=1");
        }
        if !(se.decide_after < se.fallback && se.decide_after <= e.end_silence) {
            return bad(
                "semantic endpoint timings must satisfy decide_after <= end_silence and decide_after < fallback",
            );
        }
        if !(0.0..=1.0).contains(&se.question_threshold) {
            return bad("semantic endpoint question threshold must be within 0..=1");
        }
        if se.question_wait > se.fallback {
            return bad("semantic endpoint question_wait must not exceed the fallback");
        }
        if e.max_utterance < e.min_speech + se.fallback {
            return bad("max_utterance must exceed min_speech + the semantic fallback silence");
        }
        if !(8_000..=48_000).contains(&self.output_rate) {
            return bad("output_rate must be within 8000..=48000 Hz");
        }
        if self.playback_buffer < Duration::from_millis(50) {
            return bad("playback_buffer must be at least 50 ms");
        }
        if self.monitor_period.is_zero() {
            return bad("monitor_period must be positive");
        }
        if self.output_timeout < self.monitor_period * 4 {
            return bad("output_timeout must be at least four monitor periods");
        }
        if self
            .backchannel_hold
            .is_some_and(|h| h < Duration::from_millis(200))
        {
            return bad("backchannel_hold must be at least 200 ms");
        }
        if self.kept_records == 0 {
            return bad("kept_records must be at least 1");
        }
        Ok(())
    }

    /// Longest hold of a new turn while the reply it cut off is truncated: the output confirms
    /// a cut at its next callback, or is declared lost after `output_timeout`.
    pub(crate) fn cut_wait(&self) -> Duration {
        self.output_timeout + self.monitor_period * 4 + Duration::from_millis(200)
    }

    /// Frames of 10 ms in the playback ring.
    pub(crate) fn ring_frames(&self) -> usize {
        (self.playback_buffer.as_millis() / 10).max(5) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_bad_values_are_named() {
        PipelineConfig::default()
            .validate()
            .expect("defaults are valid");
        let c = PipelineConfig {
            output_rate: 96_000,
            ..PipelineConfig::default()
        };
        let err = c.validate().expect_err("rate out of range");
        assert!(err.to_string().contains("output_rate"));
        let mut c = PipelineConfig::default();
        c.endpoint.threshold = 1.5;
        assert!(c.validate().is_err());
        let mut c = PipelineConfig::default();
        c.endpoint.smart.decide_after = c.endpoint.smart.fallback;
        let err = c.validate().expect_err("decision after the fallback");
        assert!(err.to_string().contains("smart endpoint timings"));
        assert_eq!("fixed".parse(), Ok(EndpointMode::Fixed));
        assert_eq!("semantic".parse(), Ok(EndpointMode::Semantic));
        assert!("sometimes".parse::<EndpointMode>().is_err());
        let mut c = PipelineConfig::default();
        c.endpoint.semantic.decide_after = c.endpoint.end_silence + Duration::from_millis(10);
        let err = c.validate().expect_err("decision after the fixed rule");
        assert!(err.to_string().contains("semantic endpoint timings"));
        for ms in [10, 1500] {
            let mut c = PipelineConfig::default();
            c.endpoint.early_final_after = Duration::from_millis(ms);
            let err = c.validate().expect_err("early final pause out of range");
            assert!(err.to_string().contains("early_final_after"), "{ms} ms");
        }
    }
}
