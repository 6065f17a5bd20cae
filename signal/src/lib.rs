//! Audio signal code that the recognizer, the synthesizer and the voice loop share: the one
//! sample-rate converter of the workspace ([`Resampler`], streaming; [`resample`], a whole
//! clip) and channel down-mixing ([`downmix`]). Pure, synchronous, no dependencies.
//!
//! Each caller keeps the filter it was tuned with ([`Filter`]): the recognizer's
//! `pocket_asr::resample`, the synthesizer's `pocket_tts::resample` and the voice loop's
//! `pocket_pipeline::resample` each name theirs.

mod filter;
mod mix;
mod resample;

pub use filter::Filter;
pub use mix::downmix;
pub use resample::{MAX_RATE, MIN_RATE, Resampler, resample};
