//! The playback ring: synthesized audio in turn-tagged frames from the TTS actor to the output
//! callback (SPSC, lock-free), and the atomics through which the callback reports what it played.
//!
//! `PlaybackReader::fill` is the whole real-time path: no allocation, no lock, no logging. It
//! drops frames of stale turns (turn != epoch), outputs silence on underrun and counts it, and
//! copies what it outputs into the echo-reference ring for the echo canceller.

use ringbuf::traits::{Consumer, Observer, Producer, Split};
use ringbuf::{HeapCons, HeapProd, HeapRb};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::clock::Clock;

/// Samples per frame at most: 10 ms at 48 kHz.
pub const FRAME_CAP: usize = 480;

/// One frame of reply audio, tagged with its turn.
#[derive(Clone, Copy)]
pub struct PlayFrame {
    turn: u64,
    len: u16,
    /// The turn's last frame.
    last: bool,
    samples: [f32; FRAME_CAP],
}

impl PlayFrame {
    const EMPTY: Self = Self {
        turn: 0,
        len: 0,
        last: false,
        samples: [0.0; FRAME_CAP],
    };
}

/// What the output reports, read by the playback monitor and the conductor.
#[derive(Debug, Default)]
pub struct PlaybackState {
    /// Turn whose audio is (or was last) playing; 0 = none yet.
    pub cur_turn: AtomicU64,
    /// Samples of `cur_turn` handed to the output.
    pub cur_samples: AtomicU64,
    /// Clock time (µs) at which `cur_turn`'s first sample went out.
    pub first_audio_us: AtomicU64,
    /// Last turn whose final frame was played.
    pub done_turn: AtomicU64,
    /// The epoch the output has applied (stale audio is gone once this equals the epoch).
    pub applied_epoch: AtomicU64,
    /// Set when applying an epoch cut a turn off: that turn, its played samples, and when.
    pub stopped_turn: AtomicU64,
    pub stopped_samples: AtomicU64,
    pub stopped_at_us: AtomicU64,
    /// Output callbacks that found the ring empty while a reply was playing (real-time
    /// outputs only).
    pub underruns: AtomicU64,
    /// Set by an output that is not paced in real time (a fast file sink): an empty ring is
    /// then no glitch anyone hears, so underruns are not counted.
    pub unpaced: AtomicBool,
    /// Samples output in total (silence included).
    pub total_samples: AtomicU64,
    /// The output is lost or stopped consuming (set by the playback monitor or on a lost
    /// device, cleared when it plays again): synthesis does not wait for ring space then.
    pub output_down: AtomicBool,
    /// Set by the conductor when the user starts speaking over a reply: the output plays
    /// silence and keeps its place until the conductor resumes it (a backchannel) or cuts the
    /// reply off (an epoch bump, then this cleared).
    pub hold: AtomicBool,
    /// Clock time (µs) of the first silent fill of the current hold; 0 when not holding.
    pub held_at_us: AtomicU64,
}

impl PlaybackState {
    /// The underrun count, where it means something: `None` for an output not paced in real
    /// time.
    pub fn paced_underruns(&self) -> Option<u64> {
        (!self.unpaced.load(Ordering::Acquire)).then(|| self.underruns.load(Ordering::Relaxed))
    }

    /// A reply is under way at the output: its audio started and it neither played to its end
    /// nor was cut off (it may be paused by a hold).
    pub fn reply_under_way(&self) -> bool {
        let cur = self.cur_turn.load(Ordering::Acquire);
        cur != 0
            && self.done_turn.load(Ordering::Acquire) < cur
            && self.stopped_turn.load(Ordering::Acquire) != cur
    }
}

/// Creates the ring (`frames` frames of `rate / 100` samples) and its two ends.
pub fn playback_ring(
    frames: usize,
    rate: u32,
    epoch: Arc<AtomicU64>,
    clock: Clock,
    reference: Option<HeapProd<f32>>,
) -> (PlaybackWriter, PlaybackReader, Arc<PlaybackState>) {
    let (prod, cons) = HeapRb::<PlayFrame>::new(frames.max(2)).split();
    let state = Arc::new(PlaybackState::default());
    let frame_len = ((rate / 100) as usize).clamp(1, FRAME_CAP);
    (
        PlaybackWriter {
            prod,
            frame: PlayFrame::EMPTY,
            frame_len,
            rate,
        },
        PlaybackReader {
            cons,
            cur: PlayFrame::EMPTY,
            pos: 0,
            applied: 0,
            epoch,
            state: state.clone(),
            clock,
            reference,
        },
        state,
    )
}

/// The TTS side: cuts audio into frames and pushes them, waiting for room.
pub struct PlaybackWriter {
    prod: HeapProd<PlayFrame>,
    frame: PlayFrame,
    frame_len: usize,
    rate: u32,
}

impl PlaybackWriter {
    /// Sample rate the output expects.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Appends `samples` of `turn`. `wait` is called while the ring is full; it returns
    /// `false` to give up (the turn was cancelled). Returns `false` if it gave up.
    pub fn write(&mut self, turn: u64, samples: &[f32], wait: &mut dyn FnMut() -> bool) -> bool {
        if self.frame.len > 0 && self.frame.turn != turn {
            self.frame.len = 0; // leftovers of a dropped turn
        }
        self.frame.turn = turn;
        let mut rest = samples;
        while !rest.is_empty() {
            let at = self.frame.len as usize;
            let n = (self.frame_len - at).min(rest.len());
            self.frame.samples[at..at + n].copy_from_slice(&rest[..n]);
            self.frame.len += n as u16;
            rest = &rest[n..];
            if self.frame.len as usize == self.frame_len && !self.push(wait) {
                return false;
            }
        }
        true
    }

    /// Ends `turn`: pushes the partial frame marked last.
    pub fn finish(&mut self, turn: u64, wait: &mut dyn FnMut() -> bool) -> bool {
        if self.frame.turn != turn {
            self.frame.len = 0;
        }
        self.frame.turn = turn;
        self.frame.last = true;
        self.push(wait)
    }

    /// Drops a partly filled frame (barge-in).
    pub fn discard(&mut self) {
        self.frame.len = 0;
        self.frame.last = false;
    }

    fn push(&mut self, wait: &mut dyn FnMut() -> bool) -> bool {
        while self.prod.is_full() {
            if !wait() {
                self.discard();
                return false;
            }
        }
        let _ = self.prod.try_push(self.frame);
        self.discard();
        true
    }

    /// Frames waiting to be played.
    pub fn queued_frames(&self) -> usize {
        self.prod.occupied_len()
    }
}

/// The output side, owned by the audio callback (or a file sink, or a test harness).
pub struct PlaybackReader {
    cons: HeapCons<PlayFrame>,
    cur: PlayFrame,
    pos: usize,
    applied: u64,
    epoch: Arc<AtomicU64>,
    state: Arc<PlaybackState>,
    clock: Clock,
    reference: Option<HeapProd<f32>>,
}

impl PlaybackReader {
    /// Fills `out` (mono) with reply audio or silence; returns how many samples at the start of
    /// `out` are reply audio (the rest is silence). Real-time safe.
    pub fn fill(&mut self, out: &mut [f32]) -> usize {
        let st = &*self.state;
        // Read before the epoch: a cut bumps the epoch and then releases the hold, so output
        // that sees the hold gone also sees the cut.
        let holding = st.hold.load(Ordering::Acquire);
        let epoch = self.epoch.load(Ordering::Acquire);
        let held_at = st.held_at_us.load(Ordering::Relaxed);
        if epoch != self.applied {
            let cur_turn = st.cur_turn.load(Ordering::Relaxed);
            let in_progress = cur_turn != 0 && cur_turn != epoch;
            if in_progress && st.done_turn.load(Ordering::Relaxed) != cur_turn {
                st.stopped_turn.store(cur_turn, Ordering::Relaxed);
                st.stopped_samples
                    .store(st.cur_samples.load(Ordering::Relaxed), Ordering::Relaxed);
                // Held first: the reply went silent when the hold began.
                let stopped = if held_at != 0 {
                    held_at
                } else {
                    self.clock.now().as_micros() as u64
                };
                st.stopped_at_us.store(stopped, Ordering::Relaxed);
            }
            if self.cur.turn != epoch {
                self.pos = self.cur.len as usize; // drop the frame in progress
            }
            self.applied = epoch;
            st.applied_epoch.store(epoch, Ordering::Release);
        }
        if holding {
            if held_at == 0 {
                let now = (self.clock.now().as_micros() as u64).max(1);
                st.held_at_us.store(now, Ordering::Relaxed);
            }
            out.fill(0.0);
            return self.finish_fill(out, 0, false);
        }
        if held_at != 0 {
            st.held_at_us.store(0, Ordering::Relaxed);
        }
        let mut underrun = false;
        let mut i = 0;
        while i < out.len() {
            if self.pos >= self.cur.len as usize {
                if self.cur.last && self.cur.turn == epoch {
                    self.state.done_turn.store(self.cur.turn, Ordering::Release);
                    self.cur.last = false;
                }
                if !self.next_frame(epoch) {
                    let st = &*self.state;
                    let playing = st.cur_turn.load(Ordering::Relaxed) == epoch
                        && st.done_turn.load(Ordering::Relaxed) != epoch;
                    underrun |= playing;
                    out[i..].fill(0.0);
                    return self.finish_fill(out, i, underrun);
                }
                continue;
            }
            let n = (self.cur.len as usize - self.pos).min(out.len() - i);
            out[i..i + n].copy_from_slice(&self.cur.samples[self.pos..self.pos + n]);
            self.pos += n;
            i += n;
            self.state
                .cur_samples
                .fetch_add(n as u64, Ordering::Relaxed);
        }
        self.finish_fill(out, out.len(), underrun)
    }

    fn finish_fill(&mut self, out: &[f32], audio: usize, underrun: bool) -> usize {
        let st = &*self.state;
        if underrun && !st.unpaced.load(Ordering::Relaxed) {
            st.underruns.fetch_add(1, Ordering::Relaxed);
        }
        st.total_samples
            .fetch_add(out.len() as u64, Ordering::Relaxed);
        if let Some(r) = &mut self.reference {
            r.push_slice(out);
        }
        audio
    }

    /// Pops the next frame of the current turn, dropping stale ones.
    fn next_frame(&mut self, epoch: u64) -> bool {
        while let Some(f) = self.cons.try_pop() {
            if f.turn != epoch {
                continue;
            }
            let st = &*self.state;
            if st.cur_turn.load(Ordering::Relaxed) != f.turn {
                st.cur_samples.store(0, Ordering::Relaxed);
                st.first_audio_us
                    .store(self.clock.now().as_micros() as u64, Ordering::Relaxed);
                st.cur_turn.store(f.turn, Ordering::Release);
            }
            self.cur = f;
            self.pos = 0;
            if f.len == 0 && f.last {
                st.done_turn.store(f.turn, Ordering::Release);
                self.cur.last = false;
            }
            return true;
        }
        false
    }

    /// Shared state (for tests and the monitor).
    pub fn state(&self) -> &Arc<PlaybackState> {
        &self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(
        epoch: u64,
    ) -> (
        PlaybackWriter,
        PlaybackReader,
        Arc<PlaybackState>,
        Arc<AtomicU64>,
    ) {
        let e = Arc::new(AtomicU64::new(epoch));
        let (w, r, s) = playback_ring(8, 16_000, e.clone(), Clock::real(), None);
        (w, r, s, e)
    }

    #[test]
    fn plays_in_order_then_marks_done_then_silence() {
        let (mut w, mut r, s, _) = setup(1);
        let audio: Vec<f32> = (0..400).map(|i| i as f32).collect();
        assert!(w.write(1, &audio, &mut || false));
        assert!(w.finish(1, &mut || false));
        let mut out = vec![-1.0; 500];
        assert_eq!(r.fill(&mut out), 400);
        assert_eq!(&out[..400], &audio[..]);
        assert!(out[400..].iter().all(|&x| x == 0.0));
        assert_eq!(s.cur_turn.load(Ordering::Relaxed), 1);
        assert_eq!(s.cur_samples.load(Ordering::Relaxed), 400);
        assert_eq!(s.done_turn.load(Ordering::Relaxed), 1);
        assert_eq!(s.underruns.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn epoch_bump_drops_queued_audio_and_records_the_cut() {
        let (mut w, mut r, s, e) = setup(1);
        assert!(w.write(1, &[0.5; 480], &mut || false));
        let mut out = vec![0.0; 100];
        r.fill(&mut out);
        assert!(out.iter().all(|&x| x == 0.5));
        e.store(2, Ordering::Release);
        r.fill(&mut out);
        assert!(out.iter().all(|&x| x == 0.0), "stale audio must not play");
        assert_eq!(s.applied_epoch.load(Ordering::Relaxed), 2);
        assert_eq!(s.stopped_turn.load(Ordering::Relaxed), 1);
        assert_eq!(s.stopped_samples.load(Ordering::Relaxed), 100);
        // Stale frames still arriving after the bump are dropped too.
        assert!(w.write(1, &[0.7; 160], &mut || false));
        r.fill(&mut out);
        assert!(out.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn a_reply_is_under_way_from_its_first_sample_until_it_ends_or_is_cut() {
        // Played to its end.
        let (mut w, mut r, s, _) = setup(1);
        assert!(!s.reply_under_way(), "nothing played yet");
        assert!(w.write(1, &[0.5; 320], &mut || false));
        s.hold.store(true, Ordering::Release);
        let mut out = vec![0.0; 100];
        r.fill(&mut out);
        assert!(
            !s.reply_under_way(),
            "held before its first sample: not audible yet"
        );
        s.hold.store(false, Ordering::Release);
        r.fill(&mut out);
        assert!(s.reply_under_way());
        s.hold.store(true, Ordering::Release);
        r.fill(&mut out);
        assert!(s.reply_under_way(), "paused by a hold, still under way");
        s.hold.store(false, Ordering::Release);
        assert!(w.finish(1, &mut || false));
        let mut rest = vec![0.0; 400];
        r.fill(&mut rest);
        r.fill(&mut out);
        assert!(!s.reply_under_way(), "played to its end");
        // Cut off.
        let (mut w, mut r, s, e) = setup(1);
        assert!(w.write(1, &[0.5; 480], &mut || false));
        r.fill(&mut out);
        assert!(s.reply_under_way());
        e.store(2, Ordering::Release);
        r.fill(&mut out);
        assert!(!s.reply_under_way(), "cut off");
    }

    #[test]
    fn underrun_while_playing_is_counted_and_full_ring_waits() {
        let (mut w, mut r, s, _) = setup(3);
        assert!(w.write(3, &[0.1; 160], &mut || false));
        let mut out = vec![0.0; 320];
        r.fill(&mut out);
        assert_eq!(s.underruns.load(Ordering::Relaxed), 1);
        // 8 frames fit; the 9th makes the writer wait, and giving up returns false.
        let mut waits = 0;
        let ok = w.write(3, &[0.1; 160 * 9], &mut || {
            waits += 1;
            false
        });
        assert!(!ok);
        assert_eq!(waits, 1);
    }
}
