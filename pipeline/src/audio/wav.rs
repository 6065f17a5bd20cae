//! WAV files in and out: any PCM/float WAV read as mono f32 (channels averaged) and converted to
//! the rate asked for; mono f32 written as 16-bit PCM.

use std::path::Path;

use crate::PipelineError;
use crate::resample::resample_all;

fn file_err(path: &Path, message: impl std::fmt::Display) -> PipelineError {
    PipelineError::AudioFile {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// Lowest sample rate accepted, in or out, in Hz.
pub const MIN_RATE: u32 = 4_000;
/// Highest sample rate accepted, in or out, in Hz.
pub const MAX_RATE: u32 = 384_000;

/// Longest file read, in seconds.
pub const MAX_SECONDS: u64 = 3600;
/// Most samples held at once, read (all channels) or written: one hour of 48 kHz stereo.
pub const MAX_SAMPLES: u64 = 2 * 3600 * 48_000;
/// Most channels in a file.
pub const MAX_CHANNELS: u16 = 64;

/// Reads `path` as mono at `rate` Hz. Refuses, before reading the samples, rates outside
/// `MIN_RATE..=MAX_RATE` (the file's or `rate`), more than `MAX_CHANNELS` channels, more
/// than `MAX_SECONDS` of audio and more than `MAX_SAMPLES` samples in or out.
pub fn read_mono(path: &Path, rate: u32) -> Result<Vec<f32>, PipelineError> {
    let file = std::fs::File::open(path).map_err(|e| file_err(path, e))?;
    decode_mono(std::io::BufReader::new(file), rate, path)
}

/// [`read_mono`] on WAV bytes from `input`; `name` is the path errors give.
pub fn decode_mono<R: std::io::Read>(
    input: R,
    rate: u32,
    name: &Path,
) -> Result<Vec<f32>, PipelineError> {
    let path = name;
    if !(MIN_RATE..=MAX_RATE).contains(&rate) {
        return Err(file_err(
            path,
            format!(
                "cannot convert to a sample rate of {rate} Hz (allowed {MIN_RATE}..={MAX_RATE})"
            ),
        ));
    }
    let mut reader = hound::WavReader::new(input).map_err(|e| file_err(path, e))?;
    let spec = reader.spec();
    check_spec(&spec, u64::from(reader.duration()), rate).map_err(|m| file_err(path, m))?;
    let interleaved: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader
            .samples::<f32>()
            .collect::<Result<_, _>>()
            .map_err(|e| file_err(path, e))?,
        hound::SampleFormat::Int => {
            if spec.bits_per_sample == 0 || spec.bits_per_sample > 32 {
                return Err(file_err(path, "unsupported bits per sample"));
            }
            let scale = 1.0 / (1u64 << (spec.bits_per_sample - 1)) as f32;
            reader
                .samples::<i32>()
                .map(|s| s.map(|v| v as f32 * scale))
                .collect::<Result<_, _>>()
                .map_err(|e| file_err(path, e))?
        }
    };
    let mut mono = Vec::with_capacity(interleaved.len() / usize::from(spec.channels));
    pocket_signal::downmix(&interleaved, spec.channels, &mut mono);
    for s in &mut mono {
        *s = if s.is_finite() {
            s.clamp(-1.0, 1.0)
        } else {
            0.0
        };
    }
    if mono.is_empty() {
        return Err(file_err(path, "no audio samples"));
    }
    let out = resample_all(&mono, spec.sample_rate, rate);
    if out.is_empty() {
        return Err(file_err(
            path,
            format!(
                "{} samples at {} Hz are not one sample at {rate} Hz",
                mono.len(),
                spec.sample_rate
            ),
        ));
    }
    Ok(out)
}

/// The limits of [`read_mono`] on a header: `frames` per channel, converted to `rate`.
fn check_spec(spec: &hound::WavSpec, frames: u64, rate: u32) -> Result<(), String> {
    let from = spec.sample_rate;
    if !(MIN_RATE..=MAX_RATE).contains(&from) {
        return Err(format!(
            "sample rate {from} Hz is outside {MIN_RATE}..={MAX_RATE} Hz"
        ));
    }
    if spec.channels == 0 || spec.channels > MAX_CHANNELS {
        return Err(format!(
            "{} channels (1..={MAX_CHANNELS} are supported)",
            spec.channels
        ));
    }
    let seconds = frames / u64::from(from);
    if seconds > MAX_SECONDS {
        return Err(format!(
            "{seconds} s of audio; at most {MAX_SECONDS} s are read"
        ));
    }
    let samples_in = frames * u64::from(spec.channels);
    let samples_out = frames * u64::from(rate) / u64::from(from);
    if samples_in.max(samples_out) > MAX_SAMPLES {
        return Err(format!(
            "{samples_in} samples in, {samples_out} out: at most {MAX_SAMPLES}"
        ));
    }
    Ok(())
}

/// Writes mono `samples` at `rate` as 16-bit PCM.
pub fn write_mono(path: &Path, samples: &[f32], rate: u32) -> Result<(), PipelineError> {
    let mut w = MonoWavWriter::create(path, rate)?;
    w.write(samples)?;
    w.finish()
}

/// A mono 16-bit PCM file written as the samples come, so a long recording is never held
/// in memory; [`finish`](Self::finish) writes the final lengths into its header.
pub struct MonoWavWriter {
    w: hound::WavWriter<std::io::BufWriter<std::fs::File>>,
    path: std::path::PathBuf,
}

impl MonoWavWriter {
    /// Creates (or truncates) `path` for audio at `rate` Hz.
    pub fn create(path: &Path, rate: u32) -> Result<Self, PipelineError> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let w = hound::WavWriter::create(path, spec).map_err(|e| file_err(path, e))?;
        Ok(Self {
            w,
            path: path.to_path_buf(),
        })
    }

    /// Appends `samples` (clamped to [-1, 1]).
    pub fn write(&mut self, samples: &[f32]) -> Result<(), PipelineError> {
        for &s in samples {
            self.w
                .write_sample((s.clamp(-1.0, 1.0) * 32767.0) as i16)
                .map_err(|e| file_err(&self.path, e))?;
        }
        Ok(())
    }

    /// Completes the header; the file is whole once this returns.
    pub fn finish(self) -> Result<(), PipelineError> {
        let path = self.path;
        self.w.finalize().map_err(|e| file_err(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bad_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.wav");
        let x: Vec<f32> = (0..1600).map(|i| 0.5 * (i as f32 * 0.1).sin()).collect();
        write_mono(&p, &x, 16_000).expect("write");
        let y = read_mono(&p, 16_000).expect("read");
        assert_eq!(y.len(), x.len());
        assert!(x.iter().zip(&y).all(|(a, b)| (a - b).abs() < 1e-3));
        let z = read_mono(&p, 48_000).expect("read at 48k");
        assert_eq!(z.len(), 4800);
        let bad = dir.path().join("bad.wav");
        std::fs::write(&bad, b"RIFF....WAVEjunk").expect("write junk");
        assert!(matches!(
            read_mono(&bad, 16_000),
            Err(PipelineError::AudioFile { .. })
        ));
        assert!(read_mono(&dir.path().join("missing.wav"), 16_000).is_err());
    }

    fn message(r: Result<Vec<f32>, PipelineError>) -> String {
        match r {
            Err(PipelineError::AudioFile { message, .. }) => message,
            Err(e) => panic!("unexpected error {e}"),
            Ok(v) => panic!("accepted, {} samples", v.len()),
        }
    }

    #[test]
    fn sample_rates_outside_the_range_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        // 1 Hz: 100 samples would become 1.6 M at 16 kHz (4 M samples: 6.4e10).
        let p = dir.path().join("slow.wav");
        write_mono(&p, &[0.1; 100], 1).expect("write");
        assert!(message(read_mono(&p, 16_000)).contains("sample rate 1 Hz"));
        let ok = dir.path().join("ok.wav");
        write_mono(&ok, &[0.1; 100], 16_000).expect("write");
        for to in [0, 1, MAX_RATE + 1] {
            assert!(message(read_mono(&ok, to)).contains("rate"), "to {to}");
        }
        assert_eq!(read_mono(&ok, MIN_RATE).expect("4 kHz").len(), 25);
        // Found by the wav_in fuzz target: 2 samples at 16 kHz are no sample at 4 kHz; that
        // was an empty Ok, now an error like an empty file.
        let short = dir.path().join("short.wav");
        write_mono(&short, &[0.1; 2], 16_000).expect("write");
        assert!(message(read_mono(&short, MIN_RATE)).contains("not one sample"));
    }

    #[test]
    fn files_longer_than_an_hour_are_refused_by_their_header() {
        // A 4 kHz header that claims 5000 s of samples (the data itself is missing): the
        // limit is in seconds, so it is refused before anything is read.
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("long.wav");
        write_mono(&p, &[0.1; 8], MIN_RATE).expect("write");
        let mut b = std::fs::read(&p).expect("read");
        let at = b.windows(4).position(|w| w == b"data").expect("data chunk") + 4;
        let claimed = (5000 * MIN_RATE * 2).to_le_bytes();
        b[at..at + 4].copy_from_slice(&claimed);
        std::fs::write(&p, &b).expect("write");
        let m = message(read_mono(&p, 16_000));
        assert!(m.contains("3600 s"), "{m}");
    }
}
