//! WAV output: 16-bit PCM mono, the format every player and our ASR read.

use crate::error::TtsError;
use std::path::Path;

/// Writes mono f32 samples (clipped to [-1, 1]) as a 16-bit PCM WAV file.
pub fn write_wav(path: &Path, samples: &[f32], sample_rate: u32) -> Result<(), TtsError> {
    let wav_err = |e: hound::Error| TtsError::Wav {
        path: path.to_path_buf(),
        detail: e.to_string(),
    };
    if sample_rate == 0 {
        return Err(TtsError::InvalidArgument("sample rate 0".into()));
    }
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).map_err(wav_err)?;
    for &s in samples {
        let v = if s.is_finite() {
            s.clamp(-1.0, 1.0)
        } else {
            0.0
        };
        w.write_sample((v * 32767.0).round() as i16)
            .map_err(wav_err)?;
    }
    w.finalize().map_err(wav_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.wav");
        write_wav(&p, &[0.0, 0.5, -1.0, 2.0, f32::NAN], 22050).expect("write");
        let mut r = hound::WavReader::open(&p).expect("open");
        assert_eq!(r.spec().sample_rate, 22050);
        let v: Vec<i16> = r.samples::<i16>().map(|s| s.expect("sample")).collect();
        assert_eq!(v, vec![0, 16384, -32767, 32767, 0]);
        assert!(write_wav(&dir.path().join("no/such/dir.wav"), &[0.0], 16000).is_err());
    }
}
