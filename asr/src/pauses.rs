//! Long pauses inside one utterance, shortened before Whisper hears them. A turn held across a
//! pause (a VoiceBench prompt read with 1.5-2 s between its options, a user thinking mid
//! sentence) reaches the recognizer as one clip; Whisper, trained on captioned segments, often
//! ends its text at a long silence and drops the words after it ("Which of these is a source
//! of light?" and nothing of the four options). A pause of `LONG_PAUSE` or more is cut down
//! to `KEPT_PAUSE` (half of it on each side of the cut), which still reads as a sentence break.

use std::borrow::Cow;

/// 10 ms frames at 16 kHz.
const FRAME: usize = 160;
/// Silent runs at least this long (in frames) are shortened: 700 ms.
const LONG_PAUSE: usize = 70;
/// What is left of such a run (in frames): 300 ms.
const KEPT_PAUSE: usize = 30;
/// A frame is silent when its RMS is this far under the utterance's loud frames (-35 dB) ...
const QUIET_BELOW_LOUD: f32 = 0.0178;
/// ... or under this absolute floor (digital silence, a muted line).
const QUIET_FLOOR: f32 = 1e-4;

/// `samples` with every long pause shortened; borrowed unchanged when it has none.
pub(crate) fn squeeze_long_pauses(samples: &[f32]) -> Cow<'_, [f32]> {
    let rms: Vec<f32> = samples
        .chunks(FRAME)
        .map(|f| (f.iter().map(|x| x * x).sum::<f32>() / f.len() as f32).sqrt())
        .collect();
    if rms.len() < LONG_PAUSE + 2 {
        return Cow::Borrowed(samples);
    }
    // The loud level: the 90th percentile frame, so a click does not set it.
    let mut sorted = rms.clone();
    sorted.sort_by(f32::total_cmp);
    let loud = sorted[sorted.len() * 9 / 10];
    let quiet = (loud * QUIET_BELOW_LOUD).max(QUIET_FLOOR);
    // Silent runs strictly inside the clip (leading and trailing silence is the caller's).
    let mut cuts = Vec::new();
    let mut run_start = None;
    let mut heard = false;
    for (i, &r) in rms.iter().enumerate() {
        if r < quiet {
            if heard && run_start.is_none() {
                run_start = Some(i);
            }
        } else {
            if let Some(s) = run_start.take()
                && i - s >= LONG_PAUSE
            {
                let keep = KEPT_PAUSE / 2;
                cuts.push(((s + keep) * FRAME, (i - keep) * FRAME));
            }
            heard = true;
        }
    }
    if cuts.is_empty() {
        return Cow::Borrowed(samples);
    }
    let mut out = Vec::with_capacity(samples.len());
    let mut from = 0;
    for (a, b) in cuts {
        out.extend_from_slice(&samples[from..a]);
        from = b;
    }
    out.extend_from_slice(&samples[from..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(ms: usize) -> Vec<f32> {
        (0..ms * 16)
            .map(|i| 0.3 * (i as f32 * 0.07).sin())
            .collect()
    }

    fn silence(ms: usize, level: f32) -> Vec<f32> {
        (0..ms * 16)
            .map(|i| if i % 2 == 0 { level } else { -level })
            .collect()
    }

    #[test]
    fn a_long_inner_pause_is_cut_to_300_ms_and_short_ones_stay() {
        let mut clip = silence(400, 0.0);
        clip.extend(tone(800));
        clip.extend(silence(1800, 0.0005)); // a quiet room, not digital silence
        clip.extend(tone(600));
        clip.extend(silence(500, 0.0));
        clip.extend(tone(500));
        clip.extend(silence(900, 0.0));
        let out = squeeze_long_pauses(&clip);
        // 1800 ms became 300 ms; the 500 ms pause and the edges are untouched.
        assert_eq!(out.len(), clip.len() - 1500 * 16);
        assert_eq!(&out[..400 * 16], &clip[..400 * 16]);
        assert_eq!(&out[out.len() - 900 * 16..], &clip[clip.len() - 900 * 16..]);
        // The words on both sides are whole: the cut falls inside the pause.
        assert_eq!(&out[400 * 16..1350 * 16], &clip[400 * 16..1350 * 16]);
    }

    #[test]
    fn clips_without_long_pauses_are_not_copied() {
        let mut clip = tone(700);
        clip.extend(silence(600, 0.0));
        clip.extend(tone(700));
        assert!(matches!(squeeze_long_pauses(&clip), Cow::Borrowed(_)));
        assert!(matches!(squeeze_long_pauses(&[]), Cow::Borrowed(_)));
        assert!(matches!(
            squeeze_long_pauses(&silence(3000, 0.0)),
            Cow::Borrowed(_)
        ));
    }
}
