//! Numbers the workspace's tools draw and summarize: one seeded random generator ([`Rng`],
//! SplitMix64: a run follows from one printed seed, the same on every machine) and one
//! percentile rule ([`nearest_rank`]), and one edit distance ([`edit_distance`], for word
//! error rates and spellings). Pure, no dependencies.

mod edits;
mod percentile;
mod rng;

pub use edits::edit_distance;
pub use percentile::{nearest_rank, sorted};
pub use rng::Rng;
