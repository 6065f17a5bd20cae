//! What the recognizer is told to expect before it hears an utterance. Whisper reads earlier
//! text (after `<|startofprev|>`) as the transcript so far, and writes what follows in its
//! style. Over the assistant's speech a user mostly says a backchannel or a short command; the
//! plain prompt lets tiny models write a hum as words ("Amen", "Bye bye", "M and H and M"),
//! which would cut the reply off. Told that hums and commands came before, they write
//! "Mm-hm." and "Stop." (docs/PERFORMANCE.md, "Backchannels").

use crate::vocab::Vocab;

/// Which prompt an utterance is decoded with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Context {
    /// The user speaks to a silent assistant: no earlier text.
    #[default]
    Plain,
    /// The user speaks while the assistant's reply is playing.
    OverReply,
}

/// Earlier text given for [`Context::OverReply`]: the backchannels and the interruptions a
/// user says over a reply, so both are spelt as such.
pub const OVER_REPLY_TEXT: &str = " Mm-hmm. Uh-huh. Hmm. Yeah. Wait. Stop.";

/// Earlier text for turns spoken to a silent assistant, given as
/// [`crate::RecognizerConfig::plain_text`] (`pocket talk --asr-earlier-text`): a few everyday
/// questions, so tiny.en writes what it hears as a question put to an assistant. Chosen on
/// `bench/questions.tsv` spoken in three voices the product does not speak with (whole clips
/// heard word for word: 227 of 336 with no earlier text, 237 with this one; its words name no
/// topic of either question set), then checked once on the held-out set: 203 → 211 of 360.
/// Not the loop's default: it cost ~20 ms to the first audio at the median in a 120-turn
/// session (docs/PERFORMANCE.md, "Earlier text").
pub const QUESTION_TEXT: &str =
    " What is the weather like today? How long does it take to get there? Which one is bigger?";

/// Earlier text for prompts that are a question and lettered options (VoiceBench's openbookqa
/// and mmsu), given as [`crate::RecognizerConfig::plain_text`]. tiny.en writes a spoken option
/// letter as a word ("Be scissors", "Sea oil. Tea water."), which loses the options to the
/// model and to the word error rate; after a lettered list it writes "B. scissors". Written
/// once, before any run, and not tuned (docs/VOICEBENCH.md, "Option letters"). Not for the
/// voice loop's own turns: there it leaked ordinals into short questions ("What is eight
/// doubled?" → "B. the eighth time old.").
pub const CHOICES_TEXT: &str =
    " Which one? A. the first. B. the second. C. the third. D. the fourth.";

/// The texts that would be an echo of an earlier text: any run of its whole sentences, compared
/// without case or punctuation. Whisper sometimes writes unclear speech as the earlier text
/// itself (in the held-out session, "How many eggs are in a dozen?" came out as "What is the
/// weather like today?"); a final like that is decoded again without the earlier text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Echoes(Vec<String>);

impl Echoes {
    /// The echoes of `text`.
    pub fn of(text: &str) -> Self {
        let sentences: Vec<String> = text
            .split_inclusive(['.', '?', '!'])
            .map(normalize)
            .filter(|s| !s.is_empty())
            .collect();
        let mut runs = Vec::new();
        for i in 0..sentences.len() {
            for j in i + 1..=sentences.len() {
                runs.push(sentences[i..j].join(" "));
            }
        }
        Self(runs)
    }

    /// Whether `heard` is one of them.
    pub fn echo(&self, heard: &str) -> bool {
        let h = normalize(heard);
        !h.is_empty() && self.0.contains(&h)
    }
}

/// Lower case words of `text`, single spaces, no punctuation.
fn normalize(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `prompt` (whose start-of-transcript token is at `sot_index`) preceded by `<|startofprev|>`
/// and `text`, and the new index of its start-of-transcript token. `None` when the vocabulary
/// has no `<|startofprev|>` token or `text` has no tokens.
pub fn with_previous_text(
    vocab: &Vocab,
    text: &str,
    prompt: &[u32],
    sot_index: usize,
) -> Option<(Vec<u32>, usize)> {
    let prev = vocab.id("<|startofprev|>")?;
    let tokens = vocab.encode_longest(text);
    if tokens.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(1 + tokens.len() + prompt.len());
    out.push(prev);
    out.extend(tokens);
    let at = out.len() + sot_index;
    out.extend_from_slice(prompt);
    Some((out, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_is_a_run_of_whole_sentences_of_the_earlier_text() {
        let e = Echoes::of(QUESTION_TEXT);
        assert!(e.echo("What is the weather like today?"));
        assert!(e.echo(" what is the weather like today"));
        assert!(e.echo("How long does it take to get there? Which one is bigger?"));
        assert!(e.echo(QUESTION_TEXT));
        // A question that begins or ends like one of them is the user's own.
        assert!(!e.echo("What is the weather like today in Paris?"));
        assert!(!e.echo("What is the"));
        assert!(!e.echo("Which one is bigger, the sun or the moon?"));
        assert!(!e.echo(""));
        assert!(!Echoes::of("").echo("anything"));
    }

    fn vocab() -> Vocab {
        // Bytes are spelt with GPT-2's printable map: a space is 'Ġ'.
        let mut lines: Vec<String> = ["M", "m", "-", "h", ".", "Ġ", "ĠMm", "hmm", "ĠStop"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for special in [
            "<|endoftext|>",
            "<|startoftranscript|>",
            "<|transcribe|>",
            "<|translate|>",
            "<|startofprev|>",
            "<|nospeech|>",
            "<|notimestamps|>",
            "<|0.00|>",
        ] {
            lines.push(special.to_string());
        }
        Vocab::parse(&lines.join("\n")).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn previous_text_goes_before_the_prompt_and_moves_the_sot_index() {
        let v = vocab();
        let sot = v.specials.sot;
        let prompt = [sot, v.specials.no_timestamps];
        let (p, at) = with_previous_text(&v, " Mm-hmm. Stop", &prompt, 0)
            .unwrap_or_else(|| panic!("the text has tokens"));
        let prev = v.id("<|startofprev|>").unwrap_or(u32::MAX);
        let id = |t: &str| v.id(t).unwrap_or(u32::MAX);
        assert_eq!(
            p,
            vec![
                prev,
                id("ĠMm"),
                id("-"),
                id("hmm"),
                id("."),
                id("ĠStop"),
                sot,
                v.specials.no_timestamps
            ]
        );
        assert_eq!(p[at], sot);
    }

    #[test]
    fn no_text_no_prompt() {
        let v = vocab();
        assert!(with_previous_text(&v, "", &[v.specials.sot], 0).is_none());
    }
}
