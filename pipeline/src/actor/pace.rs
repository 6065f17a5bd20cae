//! `SynthPace`: how far synthesis is ahead of playback, written by the synthesis actor and read
//! by the language-model actor, so that on few cores the model yields the CPU to synthesis
//! while the reply audio queued for the output runs low (before the first chunk: none).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::ring::PlaybackState;

pub(crate) struct SynthPace {
    /// Output sample rate (what `pushed` counts in).
    rate: u32,
    /// The output's side: which turn plays and how many of its samples went out.
    playback: Arc<PlaybackState>,
    /// Last turn whose first synthesized chunk was produced.
    first_chunk_turn: AtomicU64,
    /// Turn whose segment is being synthesized right now (0: none).
    busy_turn: AtomicU64,
    /// Turn that `pushed` belongs to.
    pushed_turn: AtomicU64,
    /// Samples of `pushed_turn` written into the playback ring.
    pushed: AtomicU64,
    /// The turn synthesis last finished a segment of, and how many of its segments it has
    /// finished (spoken, failed or cancelled): one lock, so the two are never read apart.
    done: Mutex<(u64, u64)>,
}

impl SynthPace {
    pub(crate) fn new(rate: u32, playback: Arc<PlaybackState>) -> Self {
        SynthPace {
            rate: rate.max(1),
            playback,
            first_chunk_turn: AtomicU64::new(0),
            busy_turn: AtomicU64::new(0),
            pushed_turn: AtomicU64::new(0),
            pushed: AtomicU64::new(0),
            done: Mutex::new((0, 0)),
        }
    }

    /// Synthesis starts (`Some(turn)`) or ends (`None`) a segment.
    pub(crate) fn set_busy(&self, turn: Option<u64>) {
        self.busy_turn.store(turn.unwrap_or(0), Ordering::Release);
    }

    /// The model has just handed `turn`'s first segment to synthesis: counts as synthesizing
    /// from now (unless the output is down, when nothing is synthesized), so the model yields
    /// at once instead of decoding on until the synthesis thread has woken up and said so.
    pub(crate) fn expect_synthesis(&self, turn: u64) {
        if !self.playback.output_down.load(Ordering::Acquire) {
            self.set_busy(Some(turn));
        }
    }

    /// Synthesis has finished one more segment of `turn`.
    pub(crate) fn segment_done(&self, turn: u64) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *done = if done.0 == turn {
            (turn, done.1 + 1)
        } else {
            (turn, 1)
        };
    }

    /// All `handed` segments of `turn` are synthesized and less than `low_water` of its audio
    /// waits to play: unless the next segment comes now, the output runs dry. Never while the
    /// output is down (nothing plays then).
    pub(crate) fn running_dry(&self, turn: u64, handed: u64, low_water: Duration) -> bool {
        let (done_turn, done) = *self.done.lock().unwrap_or_else(|e| e.into_inner());
        !self.playback.output_down.load(Ordering::Acquire)
            && done_turn == turn
            && done >= handed
            && self.queued(turn) < low_water
    }

    /// Marks `turn`'s first chunk; true if this was it.
    pub(crate) fn mark_first_chunk(&self, turn: u64) -> bool {
        self.first_chunk_turn.swap(turn, Ordering::AcqRel) != turn
    }

    /// `turn` has `samples` written into the playback ring in all.
    pub(crate) fn set_pushed(&self, turn: u64, samples: u64) {
        self.pushed.store(samples, Ordering::Release);
        self.pushed_turn.store(turn, Ordering::Release);
    }

    /// Synthesis is working on `turn` while less than `low_water` of its audio waits to play.
    pub(crate) fn starved(&self, turn: u64, low_water: Duration) -> bool {
        self.busy_turn.load(Ordering::Acquire) == turn && self.queued(turn) < low_water
    }

    /// Reply audio of `turn` written but not yet played.
    fn queued(&self, turn: u64) -> Duration {
        if self.pushed_turn.load(Ordering::Acquire) != turn {
            return Duration::ZERO;
        }
        let pushed = self.pushed.load(Ordering::Acquire);
        let played = if self.playback.cur_turn.load(Ordering::Acquire) == turn {
            self.playback.cur_samples.load(Ordering::Acquire)
        } else {
            0
        };
        Duration::from_secs_f64(pushed.saturating_sub(played) as f64 / f64::from(self.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starved_only_while_busy_with_little_audio_queued() {
        let state = Arc::new(PlaybackState::default());
        let pace = SynthPace::new(1000, state.clone());
        let low = Duration::from_millis(500);
        assert!(!pace.starved(3, low), "not busy");
        pace.set_busy(Some(3));
        assert!(pace.starved(3, low), "busy, nothing queued");
        assert!(!pace.starved(4, low), "another turn");
        pace.set_pushed(3, 800);
        assert!(!pace.starved(3, low), "800 ms queued");
        state.cur_turn.store(3, Ordering::Release);
        state.cur_samples.store(400, Ordering::Release);
        assert!(pace.starved(3, low), "400 ms left");
        pace.set_busy(None);
        assert!(!pace.starved(3, low));
        assert!(pace.mark_first_chunk(3));
        assert!(!pace.mark_first_chunk(3));
    }

    #[test]
    fn running_dry_once_every_handed_segment_is_spoken_and_little_audio_is_left() {
        let state = Arc::new(PlaybackState::default());
        let pace = SynthPace::new(1000, state.clone());
        let low = Duration::from_millis(300);
        assert!(
            !pace.running_dry(3, 1, low),
            "the segment is not synthesized yet"
        );
        pace.set_pushed(3, 500);
        pace.segment_done(3);
        assert!(!pace.running_dry(3, 1, low), "500 ms queued");
        assert!(
            !pace.running_dry(3, 2, low),
            "the second segment is not done"
        );
        state.cur_turn.store(3, Ordering::Release);
        state.cur_samples.store(300, Ordering::Release);
        assert!(pace.running_dry(3, 1, low), "200 ms left");
        assert!(!pace.running_dry(4, 1, low), "another turn");
        pace.segment_done(4);
        assert!(!pace.running_dry(3, 1, low), "the count moved on to turn 4");
        pace.segment_done(3);
        assert!(
            pace.running_dry(3, 1, low),
            "counted again from turn 3's next segment"
        );
        state.output_down.store(true, Ordering::Release);
        assert!(
            !pace.running_dry(3, 1, low),
            "nothing plays while the output is down"
        );
    }

    #[test]
    fn a_first_segment_handed_over_counts_as_synthesis_unless_the_output_is_down() {
        let state = Arc::new(PlaybackState::default());
        let pace = SynthPace::new(1000, state.clone());
        let low = Duration::from_millis(500);
        pace.expect_synthesis(5);
        assert!(pace.starved(5, low));
        pace.set_busy(None);
        state.output_down.store(true, Ordering::Release);
        pace.expect_synthesis(6);
        assert!(
            !pace.starved(6, low),
            "nothing is synthesized while the output is down"
        );
    }
}
