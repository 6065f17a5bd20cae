//! Spoken user turns for long runs: everyday words, each asked for ("Say the word apple.") by
//! the built-in voice — not the assistant's Piper voice — so a reply that says the word
//! provably answers its own turn.

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;

use pocket_tts::{FallbackVoice, Voice};

use crate::PipelineError;

/// 200 everyday words, each a turn's answer.
pub const WORDS: &str = "apple banana carrot table window garden river mountain pencil rabbit \
orange guitar candle pillow bottle basket hammer ladder mirror jacket bread butter cheese \
coffee cookie dinner forest island jungle kitten lemon melon monkey onion parrot peanut \
pepper pirate planet potato puppy rocket salad school shadow silver spider spoon \
summer sunset teacher tiger tomato tractor turtle violin wallet winter yellow zebra anchor \
bamboo beach blanket bridge bubble button camera castle cherry circle cloud copper cotton \
dragon engine farmer feather flower garlic ginger glove honey horse jelly kettle \
kitchen letter lizard magnet marble meadow mitten needle noodle ocean olive oyster paddle \
palace panda paper pebble pickle pigeon pizza pocket puzzle rainbow ribbon saddle sailor \
shovel singer sister soccer spinach statue sugar sweater thunder ticket toaster towel \
trumpet tunnel velvet village wagon walnut water whistle wizard wolf yogurt acorn almond \
arrow badge bagel barrel beaver biscuit blossom bucket cabbage cactus camel canoe carpet \
cereal clover compass cricket crystal cupcake daisy desert donkey \
eagle elbow falcon fiddle goose harbor helmet hippo igloo jaguar kayak koala lantern \
lobster mango muffin napkin nickel orchard otter pancake peach pelican \
penguin pillar plum pony pumpkin radish robot salmon scarf seal sheep \
shrimp skunk sparrow squirrel stool swan tulip";

/// The words of [`WORDS`], in order.
pub fn words() -> Vec<&'static str> {
    WORDS.split_whitespace().collect()
}

/// The question that asks for `word`.
pub fn question(word: &str) -> String {
    format!("Say the word {word}.")
}

/// `text` spoken by the built-in voice, with 250 ms of silence either side, at 16 kHz mono
/// (what the microphone port takes).
pub fn spoken(voice: &mut FallbackVoice, text: &str) -> Result<Vec<f32>, PipelineError> {
    let rate = voice.sample_rate();
    let pad = rate as usize / 4;
    let mut pcm = vec![0.0f32; pad];
    voice
        .synthesize(text, &AtomicBool::new(false), &mut |chunk| {
            pcm.extend_from_slice(chunk);
            ControlFlow::Continue(())
        })
        .map_err(|e| PipelineError::Engine(format!("built-in voice: {e}")))?;
    pcm.extend(std::iter::repeat_n(0.0, pad));
    pocket_tts::resample(&pcm, rate, 16_000)
        .map_err(|e| PipelineError::Engine(format!("resampling a spoken question: {e}")))
}

/// [`question`] for each of `words`, spoken (see [`spoken`]).
pub fn spoken_questions(words: &[&str]) -> Result<Vec<Vec<f32>>, PipelineError> {
    let mut voice = FallbackVoice::new();
    words
        .iter()
        .map(|w| spoken(&mut voice, &question(w)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_hundred_distinct_words() {
        let w = words();
        assert_eq!(w.len(), 200);
        let mut sorted = w.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 200);
    }
}
