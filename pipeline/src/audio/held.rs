//! A clip played as a push-to-talk turn: the button is pressed before the clip and released
//! as soon as its last speech sample is in, so the loop is told where the speech ends and no
//! pause inside the clip ends the turn (a benchmark prompt is one turn, whatever it holds).

use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};

use super::file::{Feeder, speech_end_sample};
use crate::PipelineError;
use crate::handle::{MicSender, PipelineHandle};
use crate::types::{Event, Stamped};

/// One 10 ms frame at 16 kHz: the microphone port sends whole frames only.
const FRAME: usize = 160;

/// Press, the clip up to the end of its speech ([`speech_end_sample`]), release. Returns
/// when the last speech sample went in (ms, pipeline clock), which is also where the turn
/// ends: its `speech_end` and `eou` are the release's moment, just after. `None` (nothing
/// pressed) for a clip without speech.
pub(super) fn play_held(
    feeder: &mut Feeder,
    mic: &mut MicSender,
    handle: &PipelineHandle,
    events: &Receiver<Stamped>,
    clip: &[f32],
    timeout: Duration,
) -> Result<Option<f64>, PipelineError> {
    let Some(end) = speech_end_sample(clip) else {
        return Ok(None);
    };
    handle.push_to_talk(true);
    let fed = feed_pressed(feeder, mic, events, &clip[..=end], timeout);
    // Released on every path: a button left pressed would hold the next clip's press (the
    // ears are still in this utterance and give no onset).
    handle.push_to_talk(false);
    fed.map(Some)
}

/// With the button pressed: the speech, then wait until the ears have taken it all.
fn feed_pressed(
    feeder: &mut Feeder,
    mic: &mut MicSender,
    events: &Receiver<Stamped>,
    speech: &[f32],
    timeout: Duration,
) -> Result<f64, PipelineError> {
    // The press reaches the ears through the conductor: no audio of the clip may get there
    // before the utterance is open (at fast pace it would race ahead).
    wait_for_onset(events, timeout)?;
    for chunk in speech.chunks(FRAME) {
        feeder.feed(mic, chunk)?;
    }
    let true_end = mic.now().as_secs_f64() * 1e3;
    // One frame more flushes the frame holding the last speech sample.
    feeder.feed(mic, &[0.0; FRAME])?;
    // The release is a control message, which overtakes audio: wait until the ears have
    // taken every frame.
    let since = Instant::now();
    while mic.queued_frames() > 0 {
        if since.elapsed() > timeout {
            return Err(PipelineError::Timeout(
                "the capture actor did not take the clip's audio".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(true_end)
}

/// Waits for the `SpeechStarted` a press gives.
fn wait_for_onset(events: &Receiver<Stamped>, timeout: Duration) -> Result<(), PipelineError> {
    let since = Instant::now();
    loop {
        match events.recv_timeout(timeout.saturating_sub(since.elapsed())) {
            Ok(e) if e.event == Event::SpeechStarted => return Ok(()),
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => {
                return Err(PipelineError::Timeout(
                    "push-to-talk did not open an utterance".into(),
                ));
            }
            Err(RecvTimeoutError::Disconnected) => return Err(PipelineError::Stopped),
        }
    }
}
