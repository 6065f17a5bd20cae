//! Numbers the workspace's tools draw and summarize: one seeded random generator ([`Rng`],
//! SplitMix64: a run follows from one printed seed, the same on every machine) and one
//! percentile rule ([`nearest_rank`]). Pure, no dependencies.

mod percentile;
mod rng;

pub use percentile::{nearest_rank, sorted};
pub use rng::Rng;
