//! The synthesis actor: speaks each segment as it arrives, converts to the output rate and
//! writes turn-tagged frames into the playback ring, recording the spoken timeline. While the
//! output is down it never waits for ring space, and a reply that starts then is not spoken.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::pace::SynthPace;
use super::{Report, Speak, Turn};
use crate::chan::Rx;
use crate::chan::Tx;
use crate::clock::Clock;
use crate::engines::Speaker;
use crate::heard::Timeline;
use crate::resample::{Resampler, new_resampler};
use crate::ring::{PlaybackState, PlaybackWriter};

/// How long the writer sleeps while the ring is full.
const RING_WAIT: Duration = Duration::from_millis(5);

pub(crate) struct Mouth {
    pub(crate) speaker: Box<dyn Speaker>,
    pub(crate) writer: PlaybackWriter,
    pub(crate) report: Tx<Report>,
    pub(crate) epoch: Arc<AtomicU64>,
    pub(crate) clock: Clock,
    pub(crate) timeline: Arc<Mutex<Timeline>>,
    pub(crate) pace: Arc<SynthPace>,
    /// The output's state (is it down?).
    pub(crate) playback: Arc<PlaybackState>,
}

impl Mouth {
    pub(crate) fn run(mut self, inbox: Rx<Speak>) {
        let mut resampler = new_resampler(self.speaker.sample_rate(), self.writer.rate());
        let mut buf: Vec<f32> = Vec::with_capacity(16_384);
        let mut turn_id = 0u64;
        let mut pushed = 0u64;
        // A reply that began while the output was down stays text only, whole.
        let mut muted = 0u64;
        while let Some(msg) = inbox.recv() {
            match msg {
                Speak::Segment { turn, text } => {
                    if !turn.is_live(&self.epoch) || turn.id.0 == muted {
                        continue;
                    }
                    if turn.id.0 != turn_id && self.playback.output_down.load(Ordering::Acquire) {
                        muted = turn.id.0;
                        self.report.send(Report::Muted { turn: turn.id });
                        continue;
                    }
                    if turn.id.0 != turn_id {
                        turn_id = turn.id.0;
                        pushed = 0;
                        resampler.reset();
                        self.writer.discard();
                    }
                    self.lock_timeline().begin(turn_id, &text, pushed);
                    self.speak(&turn, &text, &mut resampler, &mut buf, &mut pushed);
                }
                Speak::EndOfReply { turn } => {
                    if turn.is_live(&self.epoch) && turn.id.0 == turn_id {
                        // Flush the resampler's look-ahead, then mark the end.
                        buf.clear();
                        resampler.process(&[0.0; 64], &mut buf);
                        let clock = self.clock.clone();
                        let down = &self.playback.output_down;
                        let mut wait = || {
                            if !turn.is_live(&self.epoch) || down.load(Ordering::Acquire) {
                                return false;
                            }
                            clock.sleep(RING_WAIT);
                            true
                        };
                        if self.writer.write(turn_id, &buf, &mut wait) {
                            pushed += buf.len() as u64;
                            self.writer.finish(turn_id, &mut wait);
                        }
                        lock(&self.timeline).extend(turn_id, pushed);
                    }
                }
            }
        }
    }

    fn lock_timeline(&self) -> std::sync::MutexGuard<'_, Timeline> {
        lock(&self.timeline)
    }

    fn speak(
        &mut self,
        turn: &Turn,
        text: &str,
        resampler: &mut Resampler,
        buf: &mut Vec<f32>,
        pushed: &mut u64,
    ) {
        let Self {
            speaker,
            writer,
            report,
            epoch,
            clock,
            timeline,
            pace,
            playback,
        } = self;
        let id = turn.id;
        let mut on_chunk = |chunk: &[f32]| -> ControlFlow<()> {
            if !turn.is_live(epoch) {
                return ControlFlow::Break(());
            }
            if pace.mark_first_chunk(id.0) {
                report.send(Report::TtsFirstChunk {
                    turn: id,
                    at: clock.now(),
                });
            }
            buf.clear();
            resampler.process(chunk, buf);
            let mut wait = || {
                if !turn.is_live(epoch) || playback.output_down.load(Ordering::Acquire) {
                    return false;
                }
                clock.sleep(RING_WAIT);
                true
            };
            if !writer.write(id.0, buf, &mut wait) {
                return ControlFlow::Break(());
            }
            *pushed += buf.len() as u64;
            pace.set_pushed(id.0, *pushed);
            lock(timeline).extend(id.0, *pushed);
            ControlFlow::Continue(())
        };
        pace.set_busy(Some(id.0));
        let result = speaker.synthesize(text, &turn.cancel, &mut on_chunk);
        pace.set_busy(None);
        pace.segment_done(id.0);
        if let Err(e) = result {
            report.send(Report::Error {
                message: format!("speech synthesis failed: {e}"),
            });
        }
    }
}

fn lock(t: &Mutex<Timeline>) -> std::sync::MutexGuard<'_, Timeline> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}
