//! Audio in and out of a running pipeline: cpal devices, the file sink and clip-driven
//! conversations, WAV files. These drive the pipeline through its handle; the parts the actors
//! use (the playback ring, sample-rate conversion) live below, in `crate::ring` and
//! `crate::resample`.

pub mod device;
pub mod file;
mod held;
mod sink;
pub mod wav;
