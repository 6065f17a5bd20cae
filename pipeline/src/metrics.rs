//! Per-turn latency timestamps (as defined in docs/ARCHITECTURE.md) and the run report with
//! P50/P90 of first-audio and response latency plus the per-stage breakdown.

use serde::{Deserialize, Serialize};

/// One turn's timestamps, in ms on the pipeline clock. `None` = that stage never happened
/// (e.g. the turn was interrupted while thinking).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnMetrics {
    /// When the user's speech truly ended, where the source knows it (a clip's last speech
    /// sample going in); not a stage: the VAD's `speech_end` is the loop's own estimate.
    #[serde(default)]
    pub true_speech_end: Option<f64>,
    /// The user's last voiced sample (as the VAD saw it).
    pub speech_end: Option<f64>,
    /// The endpointer fired.
    pub eou: Option<f64>,
    /// The final transcript was ready.
    pub asr_final: Option<f64>,
    /// The language model's first text piece.
    pub llm_first_token: Option<f64>,
    /// The first speakable segment went to synthesis.
    pub first_segment: Option<f64>,
    /// Synthesis produced its first chunk.
    pub tts_first_chunk: Option<f64>,
    /// The reply's first sample reached the output device or sink.
    pub first_audio: Option<f64>,
    /// Smart endpointing: the end-of-turn classifier's time on the pause that ended the turn
    /// (it overlaps the endpoint wait: started at the pause, wanted by `decide_after`).
    #[serde(default)]
    pub turn_classifier_ms: Option<f64>,
    /// Smart endpointing: its P(complete) there (below the threshold when the fallback silence
    /// ended the turn).
    #[serde(default)]
    pub turn_complete_p: Option<f64>,
    /// The reply was made ahead of time, during the end-of-speech wait (from the early
    /// final): its model and synthesis stamps come before `eou`, and their stages are
    /// negative.
    #[serde(default)]
    pub speculative: bool,
    /// A reply made ahead: when the recognizer's early final, the words it was made from,
    /// reached the loop (so `llm_first_token` minus this is the model's share of the wait).
    #[serde(default)]
    pub early_final: Option<f64>,
    /// The turn went on from the one before: the user spoke again right after that one
    /// ended, so it was taken back and this turn's words are both utterances' (its stamps are
    /// the second one's).
    #[serde(default)]
    pub continued: bool,
}

impl TurnMetrics {
    /// `first_audio - speech_end`: what the user feels.
    pub fn first_audio_latency(&self) -> Option<f64> {
        Some(self.first_audio? - self.speech_end?)
    }

    /// `first_audio - true_speech_end`: what the user feels, from the true end of speech.
    pub fn true_first_audio_latency(&self) -> Option<f64> {
        Some(self.first_audio? - self.true_speech_end?)
    }

    /// `first_audio - eou`: what the engines cost.
    pub fn response_latency(&self) -> Option<f64> {
        Some(self.first_audio? - self.eou?)
    }

    /// Every timestamp is present.
    pub fn is_complete(&self) -> bool {
        self.stamps().iter().all(|(_, v)| v.is_some())
    }

    fn stamps(&self) -> [(&'static str, Option<f64>); 7] {
        [
            ("speech_end", self.speech_end),
            ("eou", self.eou),
            ("asr_final", self.asr_final),
            ("llm_first_token", self.llm_first_token),
            ("first_segment", self.first_segment),
            ("tts_first_chunk", self.tts_first_chunk),
            ("first_audio", self.first_audio),
        ]
    }

    /// Stage durations: each timestamp minus the previous one.
    pub fn stages(&self) -> Vec<(&'static str, Option<f64>)> {
        let s = self.stamps();
        s.windows(2)
            .map(|w| {
                let d = match (w[0].1, w[1].1) {
                    (Some(a), Some(b)) => Some(b - a),
                    _ => None,
                };
                (stage_name(w[1].0), d)
            })
            .collect()
    }
}

fn stage_name(to: &str) -> &'static str {
    match to {
        "eou" => "endpoint_wait",
        "asr_final" => "asr",
        "llm_first_token" => "llm_first_token",
        "first_segment" => "segmenter",
        "tts_first_chunk" => "tts_first_chunk",
        _ => "to_output",
    }
}

/// One turn in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub turn: u64,
    pub user_text: String,
    pub reply_text: String,
    /// What the user heard when the reply was cut off; `None` if it played to the end.
    pub heard: Option<String>,
    pub metrics: TurnMetrics,
    pub first_audio_latency_ms: Option<f64>,
    pub response_latency_ms: Option<f64>,
    /// First-audio latency from the true end of speech, where known.
    #[serde(default)]
    pub true_first_audio_latency_ms: Option<f64>,
    /// Output underruns counted since the previous turn was recorded (so: during this reply,
    /// or in the silence before it while an earlier reply was still unfinished); `None` when
    /// the output is not paced in real time.
    #[serde(default)]
    pub underruns: Option<u64>,
}

impl TurnRecord {
    /// A record of the user's words with nothing else known yet (numbered 0 until recorded).
    pub fn of_words(user_text: &str) -> Self {
        Self {
            turn: 0,
            user_text: user_text.into(),
            reply_text: String::new(),
            heard: None,
            metrics: TurnMetrics::default(),
            first_audio_latency_ms: None,
            response_latency_ms: None,
            true_first_audio_latency_ms: None,
            underruns: None,
        }
    }
}

/// P50/P90 of one quantity over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub n: usize,
    pub p50: f64,
    pub p90: f64,
}

impl Percentiles {
    /// Nearest-rank percentiles; `None` for no values.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let v = pocket_stats::sorted(values);
        Some(Self {
            n: v.len(),
            p50: nearest_rank(&v, 0.5),
            p90: nearest_rank(&v, 0.9),
        })
    }
}

/// The workspace's percentile rule (nearest rank), here for the reports built on this one.
pub use pocket_stats::nearest_rank;

/// The JSON latency report of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub turns: Vec<TurnRecord>,
    /// Turns that ended before `turns` and are no longer kept (a long session keeps the
    /// newest `PipelineConfig::kept_records`); the figures below cover `turns` only.
    #[serde(default)]
    pub earlier_turns: u64,
    /// From the true end of speech (`first_audio - true_speech_end`), for turns whose source
    /// knew it (see [`Report::attach_true_speech_ends`]).
    #[serde(default)]
    pub true_first_audio_latency_ms: Option<Percentiles>,
    pub first_audio_latency_ms: Option<Percentiles>,
    pub response_latency_ms: Option<Percentiles>,
    /// P50/P90 of each stage (see `TurnMetrics::stages`).
    pub stages_ms: Vec<(String, Option<Percentiles>)>,
    /// Barge-in stop times: user onset detected → output silent.
    pub barge_in_stop_ms: Option<Percentiles>,
    /// Output underruns (callbacks that found no audio while a reply was playing); `None` when
    /// the output was not paced in real time (then they mean nothing).
    pub underruns: Option<u64>,
}

impl Report {
    pub fn new(turns: Vec<TurnRecord>, barge_in_stops: &[f64], underruns: Option<u64>) -> Self {
        let collect = |f: &dyn Fn(&TurnRecord) -> Option<f64>| -> Vec<f64> {
            turns.iter().filter_map(f).collect()
        };
        let first = collect(&|t| t.first_audio_latency_ms);
        let resp = collect(&|t| t.response_latency_ms);
        let names: Vec<&'static str> = TurnMetrics::default()
            .stages()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let mut stages_ms: Vec<(String, Option<Percentiles>)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let vals = collect(&|t| t.metrics.stages()[i].1);
                (n.to_string(), Percentiles::of(&vals))
            })
            .collect();
        // Not a step between two stamps: it runs during the endpoint wait.
        let classifier = collect(&|t| t.metrics.turn_classifier_ms);
        stages_ms.push(("turn_classifier".to_string(), Percentiles::of(&classifier)));
        Self {
            earlier_turns: 0,
            true_first_audio_latency_ms: None,
            first_audio_latency_ms: Percentiles::of(&first),
            response_latency_ms: Percentiles::of(&resp),
            stages_ms,
            barge_in_stop_ms: Percentiles::of(barge_in_stops),
            underruns,
            turns,
        }
    }
}

impl Report {
    /// Gives each turn the true end of speech (ms, pipeline clock) of the input it answers:
    /// the nearest of `ends` to the VAD's `speech_end`, within 1.5 s (an input that made no
    /// turn matches none). Then reports first-audio latency from those ends.
    pub fn attach_true_speech_ends(&mut self, ends: &[f64]) {
        for t in &mut self.turns {
            let Some(vad) = t.metrics.speech_end else {
                continue;
            };
            let nearest = ends
                .iter()
                .copied()
                .min_by(|a, b| (a - vad).abs().total_cmp(&(b - vad).abs()))
                .filter(|e| (e - vad).abs() <= 1500.0);
            t.metrics.true_speech_end = nearest;
            t.true_first_audio_latency_ms = t.metrics.true_first_audio_latency();
        }
        let values: Vec<f64> = self
            .turns
            .iter()
            .filter_map(|t| t.true_first_audio_latency_ms)
            .collect();
        self.true_first_audio_latency_ms = Percentiles::of(&values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_nearest_rank() {
        let p =
            Percentiles::of(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0, 10.0]).expect("values");
        assert_eq!((p.n, p.p50, p.p90), (10, 5.0, 9.0));
        assert_eq!(Percentiles::of(&[]), None);
        let one = Percentiles::of(&[3.0]).expect("one");
        assert_eq!((one.p50, one.p90), (3.0, 3.0));
    }

    #[test]
    fn latencies_and_stages() {
        let m = TurnMetrics {
            true_speech_end: Some(960.0),
            speech_end: Some(1000.0),
            eou: Some(1400.0),
            asr_final: Some(1450.0),
            llm_first_token: Some(1500.0),
            first_segment: Some(1520.0),
            tts_first_chunk: Some(1560.0),
            first_audio: Some(1570.0),
            ..TurnMetrics::default()
        };
        assert!(m.is_complete());
        assert_eq!(m.first_audio_latency(), Some(570.0));
        assert_eq!(m.response_latency(), Some(170.0));
        assert_eq!(m.true_first_audio_latency(), Some(610.0));
        let stages = m.stages();
        assert_eq!(stages[0], ("endpoint_wait", Some(400.0)));
        assert_eq!(stages[5], ("to_output", Some(10.0)));
        let partial = TurnMetrics {
            first_audio: None,
            ..m
        };
        assert!(!partial.is_complete());
        assert_eq!(partial.response_latency(), None);
    }

    #[test]
    fn true_speech_ends_go_to_the_turns_they_belong_to() {
        let turn = |n: u64, vad_end: f64| TurnRecord {
            turn: n,
            user_text: String::new(),
            reply_text: String::new(),
            heard: None,
            metrics: TurnMetrics {
                speech_end: Some(vad_end),
                first_audio: Some(vad_end + 500.0),
                ..TurnMetrics::default()
            },
            first_audio_latency_ms: Some(500.0),
            response_latency_ms: None,
            true_first_audio_latency_ms: None,
            underruns: None,
        };
        let mut r = Report::new(vec![turn(1, 1050.0), turn(2, 9040.0)], &[], None);
        // Input 2 (5000) made no turn; the others end 50 and 40 ms before the VAD saw it.
        r.attach_true_speech_ends(&[1000.0, 5000.0, 9000.0]);
        assert_eq!(r.turns[0].true_first_audio_latency_ms, Some(550.0));
        assert_eq!(r.turns[1].true_first_audio_latency_ms, Some(540.0));
        let p = r.true_first_audio_latency_ms.clone().expect("percentiles");
        assert_eq!((p.n, p.p50, p.p90), (2, 540.0, 550.0));
        // Nothing within 1.5 s: no true end.
        r.attach_true_speech_ends(&[20_000.0]);
        assert_eq!(r.turns[0].true_first_audio_latency_ms, None);
        assert_eq!(r.true_first_audio_latency_ms, None);
    }
}
