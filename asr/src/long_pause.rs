//! A final that stopped at a long pause. Whisper sometimes ends its text where the speaker
//! paused for a second or more inside the window ("Is the following sentence plausible." and
//! nothing of the sentence spoken 1.2 s later; "Which planet do we live on?" and none of the
//! four options read after it; "... B. the moon shining. C. clouds moving." without "D. the
//! wind"), most often with a little silence before the speech. Such a text does not end with
//! what was said after the last long pause. [`LongPauses`] finds the pauses: where the last
//! piece of speech starts (decoded alone, it is compared with the text's end: [`ends_with`])
//! and where to cut the audio to decode each side on its own.

use pocket_stats::edit_distance;

use crate::mel::SAMPLE_RATE;
use crate::recognizer::Transcript;

/// Energy frames of 10 ms.
const FRAME: usize = SAMPLE_RATE / 100;
/// A pause at least this long (quiet frames in a row) can end Whisper's text; shorter ones are
/// the speech's own.
const MIN_PAUSE_FRAMES: usize = 50;
/// A frame is quiet when its RMS is below this fraction of the loudest frame's (-30 dB).
const QUIET_BELOW_PEAK: f32 = 0.03;
/// Speech shorter than this (long pauses left out) is never checked.
const MIN_SPEECH_SECS: f64 = 1.5;

/// The long pauses inside the speech of a window (silence before and after it left out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LongPauses {
    /// Middle of the longest pause (sample index): where to cut the window in two.
    pub longest_mid: usize,
    /// Middle of the last pause: what follows is the last piece of speech.
    pub last_mid: usize,
}

impl LongPauses {
    /// The long pauses of `samples` (16 kHz); `None` without any, or with less than
    /// `MIN_SPEECH_SECS` of speech.
    pub(crate) fn find(samples: &[f32]) -> Option<Self> {
        let quiet = quiet_frames(samples)?;
        let first = quiet.iter().position(|q| !q)?;
        let last = quiet.iter().rposition(|q| !q)?;
        let mut pause_frames = 0;
        let mut longest: Option<(usize, usize)> = None;
        let mut last_pause = None;
        let mut run_start = None;
        for (i, &q) in quiet.iter().enumerate().take(last + 1).skip(first) {
            match (q, run_start) {
                (true, None) => run_start = Some(i),
                (false, Some(s)) => {
                    let len = i - s;
                    if len >= MIN_PAUSE_FRAMES {
                        pause_frames += len;
                        if longest.is_none_or(|(_, l)| len > l) {
                            longest = Some((s, len));
                        }
                        last_pause = Some((s, len));
                    }
                    run_start = None;
                }
                _ => {}
            }
        }
        let speech_secs =
            (last + 1 - first - pause_frames) as f64 * FRAME as f64 / SAMPLE_RATE as f64;
        if speech_secs < MIN_SPEECH_SECS {
            return None;
        }
        let mid = |(s, len): (usize, usize)| (s + len / 2) * FRAME;
        Some(LongPauses {
            longest_mid: mid(longest?),
            last_mid: mid(last_pause?),
        })
    }
}

/// The joined text of the pieces is kept over the whole window's when it holds at least this
/// many more words: a missing piece of speech is a few words at least ("D, the wind"), while a
/// whole text and its pieces differ by a word or two.
pub(crate) const MIN_WORDS_GAINED: usize = 3;

/// Lower-case letters and digits only.
fn letters(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// True when `text` ends with what `tail` (the last piece of speech, decoded alone) says: the
/// tail's letters are within half their number of edits of the text's last letters. A short
/// piece decoded alone is often written differently ("D-metall." for "D metal", "G. Glorine"
/// for "Deep chlorine"); a text that stopped at a pause ends with other words altogether.
pub(crate) fn ends_with(text: &str, tail: &str) -> bool {
    let tail = letters(tail);
    if tail.is_empty() {
        return true;
    }
    let text = letters(text);
    let n = tail.len();
    // The text's end may hold a few letters more or fewer than the tail.
    (n.saturating_sub(3)..=n + 3)
        .map(|k| edit_distance(&tail, &text[text.len().saturating_sub(k)..]))
        .min()
        .is_some_and(|d| d * 2 <= n)
}

/// The transcript of two pieces of audio decoded one after the other, as one. Stage times are
/// left to the caller, which counts every decode it made ([`crate::Recognizer`]'s
/// `decode_final`).
pub(crate) fn joined(a: Transcript, b: Transcript) -> Transcript {
    let text = [a.text.as_str(), b.text.as_str()]
        .iter()
        .filter(|t| !t.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let mut tokens = a.tokens;
    tokens.extend(b.tokens);
    let mut token_logprobs = a.token_logprobs;
    token_logprobs.extend(b.token_logprobs);
    let avg_logprob = if token_logprobs.is_empty() {
        a.avg_logprob.min(b.avg_logprob)
    } else {
        token_logprobs.iter().sum::<f32>() / token_logprobs.len() as f32
    };
    let mut timings = a.timings;
    timings.decoder_passes += b.timings.decoder_passes;
    timings.beam_searched |= b.timings.beam_searched;
    Transcript {
        last_word_prob: if b.text.is_empty() {
            a.last_word_prob
        } else {
            b.last_word_prob
        },
        text,
        // Speech in either piece is speech in the whole.
        no_speech_prob: a.no_speech_prob.min(b.no_speech_prob),
        avg_logprob,
        is_silence: a.is_silence && b.is_silence,
        tokens,
        token_logprobs,
        audio_secs: a.audio_secs + b.audio_secs,
        timings,
        // Each piece's other hearings cover only that piece.
        others: Vec::new(),
    }
}

/// Per 10 ms frame, whether it is quiet against the loudest frame; `None` for silence.
fn quiet_frames(samples: &[f32]) -> Option<Vec<bool>> {
    let rms: Vec<f32> = samples
        .chunks(FRAME)
        .map(|f| (f.iter().map(|s| s * s).sum::<f32>() / f.len() as f32).sqrt())
        .collect();
    let peak = rms.iter().copied().fold(0.0f32, f32::max);
    if peak <= 1e-4 {
        return None;
    }
    Some(rms.iter().map(|&r| r < peak * QUIET_BELOW_PEAK).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `secs` of a 200 Hz tone (speech stands in), then `pause` seconds of silence.
    fn tone(secs: f64) -> Vec<f32> {
        let n = (secs * SAMPLE_RATE as f64) as usize;
        (0..n)
            .map(|i| 0.3 * (i as f32 * 200.0 * std::f32::consts::TAU / SAMPLE_RATE as f32).sin())
            .collect()
    }

    fn silence(secs: f64) -> Vec<f32> {
        vec![0.0; (secs * SAMPLE_RATE as f64) as usize]
    }

    fn clip(parts: &[(f64, f64)]) -> Vec<f32> {
        let mut out = silence(0.3);
        for &(speech, pause) in parts {
            out.extend(tone(speech));
            out.extend(silence(pause));
        }
        out
    }

    #[test]
    fn the_pauses_inside_the_speech_are_found_and_cut_in_the_middle() {
        // 2 s of speech, a 1.2 s pause, 4.5 s, a 0.8 s pause, 1 s.
        let a = clip(&[(2.0, 1.2), (4.5, 0.8), (1.0, 0.0)]);
        let p = LongPauses::find(&a).expect("pauses");
        let at = |secs: f64| secs * SAMPLE_RATE as f64;
        assert!(
            (p.longest_mid as f64 - at(0.3 + 2.6)).abs() < at(0.05),
            "{p:?}"
        );
        assert!(
            (p.last_mid as f64 - at(0.3 + 7.7 + 0.4)).abs() < at(0.05),
            "{p:?}"
        );
    }

    #[test]
    fn no_long_pause_no_speech_or_under_a_second_and_a_half_of_it_is_nothing_to_check() {
        assert_eq!(LongPauses::find(&clip(&[(2.0, 0.3), (4.5, 0.0)])), None);
        assert_eq!(LongPauses::find(&silence(3.0)), None);
        assert_eq!(LongPauses::find(&[]), None);
        assert_eq!(LongPauses::find(&clip(&[(0.6, 1.5), (0.6, 0.0)])), None);
    }

    #[test]
    fn a_text_ends_with_its_tail_when_their_last_letters_are_close() {
        let text = "Which planet do we live on? A. Earth B. Mars C. Venus D. Jupiter.";
        assert!(ends_with(text, "D, Jupiter."));
        assert!(ends_with(text, "Jupiter"));
        assert!(ends_with(text, ""));
        // Short pieces decoded alone, as Whisper tiny.en wrote them.
        assert!(ends_with(
            "A sunlight B plastic C sand D metal",
            "D-metorg."
        ));
        assert!(ends_with(
            "A carbon dioxide. Deep helium. See, neon. Deep chlorine.",
            "G. Glorine"
        ));
        assert!(ends_with("See, a cat. T, a horse.", "T-Force"));
        assert!(!ends_with("Which planet do we live on?", "D. Jupiter."));
        assert!(!ends_with(
            "is the following sentence plausible.",
            "Tom Brady hit a three pointer in the fourth quarter of the Stanley Cup."
        ));
        assert!(!ends_with("Which planet do we live on?", "Deju Petore"));
        assert!(!ends_with(
            "which of these animals can breathe under water.",
            "T-Force"
        ));
    }
}
