//! WAV files in and out: any PCM/float WAV read as mono f32 (channels averaged) and converted to
//! the rate asked for; mono f32 written as 16-bit PCM.

use std::path::Path;

use super::resample::resample_all;
use crate::PipelineError;

fn file_err(path: &Path, message: impl std::fmt::Display) -> PipelineError {
    PipelineError::AudioFile {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// Reads `path` as mono at `rate` Hz.
pub fn read_mono(path: &Path, rate: u32) -> Result<Vec<f32>, PipelineError> {
    let mut reader = hound::WavReader::open(path).map_err(|e| file_err(path, e))?;
    let spec = reader.spec();
    if spec.channels == 0 || spec.sample_rate == 0 {
        return Err(file_err(path, "no channels or zero sample rate"));
    }
    // Bound memory: one hour of 48 kHz stereo at most.
    if reader.duration() as u64 > 3600 * 48_000 {
        return Err(file_err(path, "longer than one hour"));
    }
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
    let ch = spec.channels as usize;
    let mono: Vec<f32> = interleaved
        .chunks_exact(ch)
        .map(|f| {
            let s = f.iter().sum::<f32>() / ch as f32;
            if s.is_finite() {
                s.clamp(-1.0, 1.0)
            } else {
                0.0
            }
        })
        .collect();
    if mono.is_empty() {
        return Err(file_err(path, "no audio samples"));
    }
    Ok(resample_all(&mono, spec.sample_rate, rate))
}

/// Writes mono `samples` at `rate` as 16-bit PCM.
pub fn write_mono(path: &Path, samples: &[f32], rate: u32) -> Result<(), PipelineError> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).map_err(|e| file_err(path, e))?;
    for &s in samples {
        w.write_sample((s.clamp(-1.0, 1.0) * 32767.0) as i16)
            .map_err(|e| file_err(path, e))?;
    }
    w.finalize().map_err(|e| file_err(path, e))
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
}
