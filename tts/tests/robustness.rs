//! Random text (mixed scripts, digits, symbols, markdown, emoji) through the segmenter, the
//! normalizer and the fallback voice: no panic, bounded pieces, nothing but speakable output.

use pocket_tts::{FallbackVoice, Segmenter, SegmenterConfig, normalize, speak_to_vec};

const PALETTE: &[&str] = &[
    "a",
    "Z",
    "é",
    "ß",
    "я",
    "中",
    "🙂",
    "👍🏽",
    " ",
    " ",
    " ",
    "\n",
    "\t",
    "0",
    "7",
    "42",
    "3.5",
    "1,000",
    ".",
    ",",
    "!",
    "?",
    ";",
    ":",
    "-",
    "—",
    "$",
    "€",
    "%",
    "°",
    "#",
    "*",
    "_",
    "`",
    "```",
    "[",
    "](",
    ")",
    "<b>",
    ">",
    "@",
    "&",
    "/",
    "\\",
    "'",
    "\"",
    "1st",
    "3:30",
    "pm",
    "Dr.",
    "e.g.",
    "2024-01-15",
    "http://x.io/a",
    "km",
    "\u{0}",
    "\u{200b}",
    "🇺🇸",
];

/// A small deterministic generator (no dependency needed for test text).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

fn random_text(rng: &mut Lcg, len: usize) -> String {
    (0..len)
        .map(|_| PALETTE[rng.next() % PALETTE.len()])
        .collect()
}

#[test]
fn normalizer_and_segmenter_survive_random_text() {
    let mut rng = Lcg(7);
    for round in 0..400 {
        let text = random_text(&mut rng, 1 + round % 120);
        let spoken = normalize(&text);
        assert!(
            spoken
                .chars()
                .all(|c| c.is_alphabetic() || " ,.!?;:'-".contains(c)),
            "{text:?} -> {spoken:?}"
        );
        let mut seg = Segmenter::new(SegmenterConfig::default());
        let mut pieces = Vec::new();
        // Feed in random-sized pieces, split on char boundaries.
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let n = 1 + rng.next() % 7;
            let piece: String = chars[i..(i + n).min(chars.len())].iter().collect();
            pieces.extend(seg.push(&piece));
            i += n;
        }
        pieces.extend(seg.flush());
        assert!(pieces.iter().all(|p| p.len() <= 240 + 8), "{pieces:?}");
    }
}

#[test]
fn fallback_voice_survives_random_text() {
    let mut rng = Lcg(11);
    let mut voice = FallbackVoice::new();
    for _ in 0..40 {
        let text = random_text(&mut rng, 60);
        let (pcm, _) = speak_to_vec(&mut voice, &text).expect("no error");
        assert!(pcm.iter().all(|s| s.is_finite()));
    }
}
