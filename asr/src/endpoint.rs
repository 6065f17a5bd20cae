//! Endpointing on VAD frame probabilities: speech starts after `min_speech_ms` of voiced
//! frames, ends after `end_silence_ms` of unvoiced frames, and is cut at
//! `max_utterance_ms`. Events carry sample positions (16 kHz) so callers can compute
//! `speech_end` (the last voiced sample) and `eou` (when the end was decided).

use crate::error::AsrError;
use crate::vad::FRAME;

/// Endpointer settings.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointConfig {
    /// A frame is voiced at or above this probability...
    pub speech_threshold: f32,
    /// ...and unvoiced below this one (hysteresis in between keeps the current state).
    pub silence_threshold: f32,
    /// Voiced time needed before speech counts as started.
    pub min_speech_ms: u32,
    /// Unvoiced time after speech that ends the utterance.
    pub end_silence_ms: u32,
    /// Longest utterance; at this length an end is forced.
    pub max_utterance_ms: u32,
    /// Audio kept before the detected speech start (covers the VAD's onset delay).
    pub pre_roll_ms: u32,
}

impl Default for EndpointConfig {
    fn default() -> Self {
        Self {
            speech_threshold: 0.5,
            silence_threshold: 0.35,
            min_speech_ms: 100,
            end_silence_ms: 400,
            max_utterance_ms: 20_000,
            pre_roll_ms: 300,
        }
    }
}

impl EndpointConfig {
    pub fn validate(&self) -> Result<(), AsrError> {
        let ok = (0.0..=1.0).contains(&self.speech_threshold)
            && (0.0..=self.speech_threshold).contains(&self.silence_threshold);
        if !ok {
            return Err(AsrError::BadConfig(
                "thresholds must satisfy 0 <= silence_threshold <= speech_threshold <= 1".into(),
            ));
        }
        if self.end_silence_ms < 16
            || self.max_utterance_ms < 1000
            || self.max_utterance_ms > 30_000
        {
            return Err(AsrError::BadConfig(
                "end_silence_ms must be >= 16 and max_utterance_ms within 1000..=30000".into(),
            ));
        }
        if self.pre_roll_ms > 2000 || self.min_speech_ms > 5000 {
            return Err(AsrError::BadConfig(
                "pre_roll_ms must be <= 2000 and min_speech_ms <= 5000".into(),
            ));
        }
        Ok(())
    }
}

/// What the endpointer decided at a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointEvent {
    /// Speech began at sample `start` (first voiced frame); decided at sample `at`.
    SpeechStart { start: u64, at: u64 },
    /// Speech ended: `speech_end` is one past the last voiced sample; decided at sample `at`
    /// (`at - speech_end` is the end-silence wait). `forced` when max length cut it.
    SpeechEnd {
        speech_end: u64,
        at: u64,
        forced: bool,
    },
}

/// Speech start/end detector over frame probabilities.
#[derive(Clone, Debug)]
pub struct Endpointer {
    cfg: EndpointConfig,
    in_speech: bool,
    voiced_run: u32,
    run_start: u64,
    silence_run: u32,
    last_voiced_end: u64,
    utt_start: u64,
}

fn frames_for(ms: u32) -> u32 {
    (ms as usize * 16).div_ceil(FRAME) as u32
}

impl Endpointer {
    pub fn new(cfg: EndpointConfig) -> Result<Self, AsrError> {
        cfg.validate()?;
        Ok(Self {
            cfg,
            in_speech: false,
            voiced_run: 0,
            run_start: 0,
            silence_run: 0,
            last_voiced_end: 0,
            utt_start: 0,
        })
    }

    pub fn config(&self) -> &EndpointConfig {
        &self.cfg
    }

    pub fn in_speech(&self) -> bool {
        self.in_speech
    }

    /// While in speech: one past the last voiced sample and the unvoiced time since, in ms.
    pub fn trailing_silence(&self) -> Option<(u64, u32)> {
        self.in_speech
            .then(|| (self.last_voiced_end, self.silence_run * FRAME as u32 / 16))
    }

    /// Feeds the probability of frame `index` (covering samples `index*256 .. +256`).
    pub fn push(&mut self, index: u64, prob: f32) -> Option<EndpointEvent> {
        let start = index * FRAME as u64;
        let end = start + FRAME as u64;
        let voiced = prob >= self.cfg.speech_threshold;
        let unvoiced = prob < self.cfg.silence_threshold;
        if !self.in_speech {
            if voiced {
                if self.voiced_run == 0 {
                    self.run_start = start;
                }
                self.voiced_run += 1;
                if self.voiced_run >= frames_for(self.cfg.min_speech_ms).max(1) {
                    self.in_speech = true;
                    self.silence_run = 0;
                    self.last_voiced_end = end;
                    self.utt_start = self.run_start;
                    return Some(EndpointEvent::SpeechStart {
                        start: self.run_start,
                        at: end,
                    });
                }
            } else if unvoiced {
                self.voiced_run = 0;
            }
            return None;
        }
        if voiced {
            self.silence_run = 0;
            self.last_voiced_end = end;
        } else if unvoiced {
            self.silence_run += 1;
        } else {
            // In between: neither ends nor extends the voiced region.
            self.silence_run += 1;
        }
        if self.silence_run >= frames_for(self.cfg.end_silence_ms) {
            self.in_speech = false;
            self.voiced_run = 0;
            return Some(EndpointEvent::SpeechEnd {
                speech_end: self.last_voiced_end,
                at: end,
                forced: false,
            });
        }
        let max = self.cfg.max_utterance_ms as u64 * 16;
        if end - self.utt_start >= max {
            self.in_speech = false;
            self.voiced_run = 0;
            return Some(EndpointEvent::SpeechEnd {
                speech_end: end,
                at: end,
                forced: true,
            });
        }
        None
    }

    /// Back to silence, keeping the configuration.
    pub fn reset(&mut self) {
        self.in_speech = false;
        self.voiced_run = 0;
        self.silence_run = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ep: &mut Endpointer, probs: &[f32]) -> Vec<EndpointEvent> {
        probs
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| ep.push(i as u64, p))
            .collect()
    }

    #[test]
    fn start_end_and_min_speech() {
        let cfg = EndpointConfig {
            min_speech_ms: 48,
            end_silence_ms: 160,
            ..Default::default()
        };
        let mut ep = Endpointer::new(cfg).expect("cfg");
        // A 2-frame blip is too short; then 20 voiced frames and 10 silent.
        let mut p = vec![0.0; 5];
        p.extend([0.9, 0.9, 0.0]);
        p.extend([0.9; 20]);
        p.extend([0.1; 12]);
        let ev = run(&mut ep, &p);
        assert_eq!(
            ev,
            vec![
                EndpointEvent::SpeechStart {
                    start: 8 * 256,
                    at: 11 * 256
                },
                EndpointEvent::SpeechEnd {
                    speech_end: 28 * 256,
                    at: 38 * 256,
                    forced: false
                },
            ]
        );
    }

    #[test]
    fn max_utterance_forces_an_end_and_restarts() {
        let cfg = EndpointConfig {
            min_speech_ms: 16,
            max_utterance_ms: 1000,
            ..Default::default()
        };
        let mut ep = Endpointer::new(cfg).expect("cfg");
        let ev = run(&mut ep, &[0.9; 200]);
        let forced = ev
            .iter()
            .filter(|e| matches!(e, EndpointEvent::SpeechEnd { forced: true, .. }))
            .count();
        assert_eq!(forced, 3, "{ev:?}");
        assert!(
            Endpointer::new(EndpointConfig {
                max_utterance_ms: 60_000,
                ..Default::default()
            })
            .is_err()
        );
    }
}
