//! Headless audio: a conversation driver that plays input clips as the microphone, one turn per
//! clip, at real-time pace or as fast as the loop goes; the output goes to a [`FileSink`].

use std::time::{Duration, Instant};

use crate::PipelineError;
use crate::handle::{MicSender, PipelineHandle};
use crate::types::{Event, Stamped, State};
use crossbeam_channel::Receiver;

pub use super::sink::FileSink;

/// How headless audio is paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// 10 ms of audio every 10 ms, like a device.
    Realtime,
    /// As fast as the pipeline produces and consumes.
    Fast,
}

/// Silence fed after a clip at fast pace (the endpointer needs its end silence).
const FAST_TRAILING: Duration = Duration::from_millis(3000);

/// How one input clip's turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    /// The assistant answered (its audio played to the end).
    Answered,
    /// Speech was heard but the transcript was empty, or the reply had nothing to say.
    NoReply,
    /// No speech was detected in the clip.
    NoSpeech,
}

/// Plays `clips` (16 kHz mono) as the microphone, one turn per clip: each clip, then silence
/// until the assistant's reply has played, then the next. Returns each turn's outcome.
pub fn converse(
    mic: &mut MicSender,
    handle: &PipelineHandle,
    clips: &[Vec<f32>],
    pace: Pace,
    turn_timeout: Duration,
) -> Result<Vec<TurnOutcome>, PipelineError> {
    Ok(
        converse_timed(mic, handle, clips, (pace, turn_timeout), ClipEnd::Natural)?
            .into_iter()
            .map(|c| c.outcome)
            .collect(),
    )
}

/// One clip's turn in [`converse_timed`].
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTurn {
    pub outcome: TurnOutcome,
    /// When the clip's last speech sample ([`speech_end_sample`]) went into the microphone,
    /// in ms on the pipeline clock: the true end of speech (at real-time pace).
    pub true_speech_end_ms: Option<f64>,
    /// The words of the newest turn the clip made (its `FinalTranscript`), the one whose reply
    /// answered it: a clip the endpointer cut at a pause makes more than one turn, so the
    /// turn records do not follow the clips one to one.
    pub heard: Option<String>,
}

/// How a clip's turn ends in [`converse_timed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipEnd {
    /// The loop's endpointing decides, as hands-free: a long pause inside a clip may end a
    /// turn there (the wait then follows the newest turn).
    Natural,
    /// Each clip is one push-to-talk turn, released where its speech ends (see `held`).
    Held,
}

/// [`converse`], also returning when each clip's speech truly ended; `timing` is the pace
/// and the longest a turn may take, `end` how each clip's turn ends.
pub fn converse_timed(
    mic: &mut MicSender,
    handle: &PipelineHandle,
    clips: &[Vec<f32>],
    (pace, turn_timeout): (Pace, Duration),
    end: ClipEnd,
) -> Result<Vec<ClipTurn>, PipelineError> {
    let events = handle.subscribe();
    let silence = [0.0f32; 160];
    let mut outcomes = Vec::new();
    for clip in clips {
        // Drain what earlier turns left behind.
        while events.try_recv().is_ok() {}
        let mut feeder = Feeder::new(pace);
        let played = match end {
            ClipEnd::Natural => Some((play(&mut feeder, mic, clip)?, false)),
            ClipEnd::Held => {
                super::held::play_held(&mut feeder, mic, handle, &events, clip, turn_timeout)?
                    .map(|true_end| (Some(true_end), true))
            }
        };
        // Then silence until the turn is over.
        let (outcome, heard, true_end) = match played {
            Some((true_end, onset_seen)) => {
                let timing = (pace, turn_timeout);
                let n = outcomes.len();
                let (outcome, heard) =
                    await_turn(&mut feeder, mic, (handle, &events), timing, n, onset_seen)?;
                (outcome, heard, true_end)
            }
            None => (TurnOutcome::NoSpeech, None, None),
        };
        outcomes.push(ClipTurn {
            outcome,
            true_speech_end_ms: true_end,
            heard,
        });
        for _ in 0..30 {
            feeder.feed(mic, &silence)?;
        }
    }
    Ok(outcomes)
}

/// Feeds the whole clip; returns when its last speech sample went in (ms, pipeline clock).
fn play(
    feeder: &mut Feeder,
    mic: &mut MicSender,
    clip: &[f32],
) -> Result<Option<f64>, PipelineError> {
    let end = speech_end_sample(clip);
    let mut true_end = None;
    let mut at = 0;
    for chunk in clip.chunks(160) {
        match end {
            Some(e) if (at..at + chunk.len()).contains(&e) => {
                let (head, tail) = chunk.split_at(e - at + 1);
                feeder.feed(mic, head)?;
                true_end = Some(mic.now().as_secs_f64() * 1e3);
                if !tail.is_empty() {
                    feeder.feed(mic, tail)?;
                }
            }
            _ => feeder.feed(mic, chunk)?,
        }
        at += chunk.len();
    }
    Ok(true_end)
}

/// Feeds silence until the turn a clip made is over (turn `done` clips before it;
/// `heard_speech` when its onset was already seen). The turn that counts is the newest: a
/// turn begun later (the clip went on after a pause) replaces an earlier one, so an answer to
/// an earlier fragment does not end the wait. Returns how it ended and the newest turn's words.
///
/// At fast pace the clip is queued faster than the capture actor takes it, so the reply to
/// the part before a pause can finish before the capture actor has even reached the part
/// after it. An outcome therefore stands only once the loop has heard a mark sent after the
/// clip and some silence (every event that audio made is then among those read), and the
/// onset of a newer utterance voids it.
pub(super) fn await_turn(
    feeder: &mut Feeder,
    mic: &mut MicSender,
    (handle, events): (&PipelineHandle, &Receiver<Stamped>),
    (pace, turn_timeout): (Pace, Duration),
    done: usize,
    mut heard_speech: bool,
) -> Result<(TurnOutcome, Option<String>), PipelineError> {
    let silence = [0.0f32; 160];
    let started = Instant::now();
    let mut replying = None;
    let mut heard = None;
    // The user is speaking, and utterances that ended but whose final has not come yet: the
    // return to listening that interrupting `replying` brings ends nothing while a newer
    // utterance is under way (its final decides).
    let (mut speaking, mut finals_due) = (false, 0usize);
    let mut trailing = Duration::ZERO;
    // How the turn ended, as far as the events so far tell.
    let mut outcome = None;
    let mut mark = None;
    loop {
        if started.elapsed() > turn_timeout {
            return Err(PipelineError::Timeout(format!(
                "turn {} did not finish within {} s",
                done + 1,
                turn_timeout.as_secs()
            )));
        }
        // Fast pace: enough silence for the endpointer, then just wait.
        let feeding = pace == Pace::Realtime || trailing < FAST_TRAILING;
        if feeding {
            feeder.feed(mic, &silence)?;
            trailing += Duration::from_millis(10);
        }
        let wait = if feeding {
            Duration::ZERO
        } else {
            Duration::from_millis(20)
        };
        if pace == Pace::Fast && mark.is_none() {
            mark = Some(mic.mark().ok_or(PipelineError::Stopped)?);
        }
        // Read before the events: everything the audio before the mark made is among them.
        let heard_all = mark.is_none_or(|m| handle.heard_mark() >= m);
        let mut next = events.recv_timeout(wait).ok();
        while let Some(ev) = next {
            match ev.event {
                Event::SpeechStarted => {
                    heard_speech = true;
                    speaking = true;
                    outcome = None;
                }
                Event::SpeechStopped => {
                    speaking = false;
                    finals_due += 1;
                }
                Event::FinalTranscript { turn: None, .. } => {
                    finals_due = finals_due.saturating_sub(1);
                    outcome = Some(TurnOutcome::NoReply);
                }
                Event::FinalTranscript {
                    turn: Some(t),
                    text,
                } => {
                    finals_due = finals_due.saturating_sub(1);
                    replying = Some(t);
                    heard = Some(text);
                    outcome = None;
                }
                Event::AudioFinished { turn } if Some(turn) == replying => {
                    outcome = Some(TurnOutcome::Answered);
                }
                Event::State {
                    state: State::Listening,
                } if replying.is_some() && !speaking && finals_due == 0 => {
                    outcome.get_or_insert(TurnOutcome::NoReply);
                }
                _ => {}
            }
            next = events.try_recv().ok();
        }
        if !heard_all {
            continue;
        }
        if let Some(o) = outcome {
            return Ok((o, heard));
        }
        // No speech in the clip: nothing is coming (the endpointer had its silence and
        // more; in fast pace, a second of wall time passed after it).
        let waited = started.elapsed() > Duration::from_secs(1);
        if !heard_speech && trailing >= FAST_TRAILING.min(Duration::from_millis(1500)) && waited {
            return Ok((TurnOutcome::NoSpeech, heard));
        }
    }
}

/// The index of a clean clip's last speech sample: the end of the last 5 ms window whose RMS
/// is within 40 dB of the clip's loudest window. Meant for clips with silence around the
/// speech (synthesized or studio-recorded), where it is the true end; `None` for silence.
pub fn speech_end_sample(clip: &[f32]) -> Option<usize> {
    const WINDOW: usize = 80;
    let rms: Vec<f32> = clip
        .chunks(WINDOW)
        .map(|w| (w.iter().map(|x| x * x).sum::<f32>() / w.len() as f32).sqrt())
        .collect();
    let loudest = rms.iter().copied().fold(0.0f32, f32::max);
    if loudest < 1e-4 {
        return None;
    }
    let last = rms.iter().rposition(|&r| r >= loudest * 0.01)?;
    // Within the window, the last sample above the same level.
    let from = last * WINDOW;
    let to = (from + WINDOW).min(clip.len());
    let floor = loudest * 0.01;
    Some(
        (from..to)
            .rev()
            .find(|&i| clip[i].abs() >= floor)
            .unwrap_or(to - 1),
    )
}

/// Pushes audio at the chosen pace.
pub(super) struct Feeder {
    pace: Pace,
    start: Instant,
    fed: u64,
}

impl Feeder {
    pub(super) fn new(pace: Pace) -> Self {
        Self {
            pace,
            start: Instant::now(),
            fed: 0,
        }
    }

    pub(super) fn feed(
        &mut self,
        mic: &mut MicSender,
        samples: &[f32],
    ) -> Result<(), PipelineError> {
        match self.pace {
            Pace::Realtime => {
                self.fed += samples.len() as u64;
                let due = self.start + Duration::from_micros(self.fed * 1_000_000 / 16_000);
                let now = Instant::now();
                if due > now {
                    std::thread::sleep(due - now);
                }
                mic.push(samples);
                Ok(())
            }
            Pace::Fast => {
                if mic.push_blocking(samples) {
                    Ok(())
                } else {
                    Err(PipelineError::Stopped)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::speech_end_sample;

    #[test]
    fn a_clean_clip_ends_where_its_sound_does() {
        let mut clip = vec![0.0f32; 4000];
        // A tone that fades to 1/200 of its peak (a soft word ending), then silence.
        let tone = 8000;
        clip.extend((0..tone).map(|i| {
            let fade = if i < tone - 800 {
                1.0
            } else {
                (tone - i) as f32 / 800.0
            };
            0.5 * fade * (i as f32 * 0.3).sin()
        }));
        clip.extend(std::iter::repeat_n(0.0, 6000));
        let end = speech_end_sample(&clip).expect("speech");
        // Within the fade's last 5% (under 1% of the peak is not speech).
        assert!((4000 + tone - 40..=4000 + tone).contains(&end), "{end}");
        assert_eq!(speech_end_sample(&[0.0; 1600]), None);
        assert_eq!(speech_end_sample(&[]), None);
    }
}
