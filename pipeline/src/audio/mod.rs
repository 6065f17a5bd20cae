//! Audio in and out of a running pipeline: cpal devices, the file sink and clip-driven
//! conversations, WAV files. These drive the pipeline through its handle; the parts the actors
//! use (the playback ring, sample-rate conversion) live below, in `crate::ring` and
//! `crate::resample`.

pub mod device;
pub mod file;
pub mod wav;

/// Re-exported for code written before the split (VoiceBench's runner); new code imports
/// `pocket_pipeline::resample`.
pub use crate::resample;
/// Re-exported for code written before the split (VoiceBench's runner and the conductor); new
/// code imports `pocket_pipeline::ring`.
pub use crate::ring;
