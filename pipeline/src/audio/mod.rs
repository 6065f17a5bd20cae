//! Audio in and out: the playback ring, sample-rate conversion, cpal devices and file I/O.

pub mod device;
pub mod file;
mod held;
pub mod resample;
pub mod ring;
pub mod wav;
