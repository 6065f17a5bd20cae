//! Decoding the dataset's audio cells (WAV via hound, FLAC via claxon) to mono f32.

use std::io::Cursor;

use crate::error::{Result, VoiceBenchError};

/// Mono samples in [-1, 1] at the file's sample rate.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedAudio {
    pub samples: Vec<f32>,
    pub sample_rate: u32,
}

/// Longest clip accepted: one hour at 48 kHz stereo. Bounds the allocation a corrupt header asks for.
const MAX_FRAMES: u64 = 48_000 * 3600;

fn audio_error(what: &str, message: impl std::fmt::Display) -> VoiceBenchError {
    VoiceBenchError::Audio {
        what: what.to_string(),
        message: message.to_string(),
    }
}

/// Decode a WAV or FLAC file held in memory; `what` names it in errors.
pub fn decode_audio_bytes(bytes: &[u8], what: &str) -> Result<DecodedAudio> {
    if bytes.starts_with(b"RIFF") {
        decode_wav(bytes, what)
    } else if bytes.starts_with(b"fLaC") {
        decode_flac(bytes, what)
    } else {
        Err(audio_error(
            what,
            "neither WAV (RIFF) nor FLAC (fLaC); decode other formats (e.g. MP3) to WAV first",
        ))
    }
}

fn downmix(interleaved: Vec<f32>, channels: usize) -> Vec<f32> {
    if channels <= 1 {
        return interleaved;
    }
    interleaved
        .chunks_exact(channels)
        .map(|frame| frame.iter().sum::<f32>() / channels as f32)
        .collect()
}

fn decode_wav(bytes: &[u8], what: &str) -> Result<DecodedAudio> {
    let reader = hound::WavReader::new(Cursor::new(bytes)).map_err(|e| audio_error(what, e))?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels.max(1));
    if u64::from(reader.duration()) > MAX_FRAMES {
        return Err(audio_error(what, "longer than one hour"));
    }
    let interleaved: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader
            .into_samples::<f32>()
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| audio_error(what, e))?,
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .into_samples::<i32>()
                .map(|s| s.map(|v| v as f32 * scale))
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| audio_error(what, e))?
        }
    };
    Ok(DecodedAudio {
        samples: downmix(interleaved, channels),
        sample_rate: spec.sample_rate,
    })
}

fn decode_flac(bytes: &[u8], what: &str) -> Result<DecodedAudio> {
    let mut reader =
        claxon::FlacReader::new(Cursor::new(bytes)).map_err(|e| audio_error(what, e))?;
    let info = reader.streaminfo();
    let channels = info.channels.max(1) as usize;
    if info.samples.unwrap_or(0) > MAX_FRAMES {
        return Err(audio_error(what, "longer than one hour"));
    }
    let scale = 1.0 / (1u64 << (info.bits_per_sample.clamp(1, 32) - 1)) as f32;
    let interleaved: Vec<f32> = reader
        .samples()
        .map(|s| s.map(|v| v as f32 * scale))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| audio_error(what, e))?;
    Ok(DecodedAudio {
        samples: downmix(interleaved, channels),
        sample_rate: info.sample_rate,
    })
}

/// Encode mono f32 as a 16-bit PCM WAV file in memory (what the fixture writer stores).
pub fn encode_wav_16bit(samples: &[f32], sample_rate: u32) -> Result<Vec<u8>> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut out = Cursor::new(Vec::new());
    let mut writer =
        hound::WavWriter::new(&mut out, spec).map_err(|e| audio_error("wav encoder", e))?;
    for &s in samples {
        let v = (s.clamp(-1.0, 1.0) * 32767.0).round() as i16;
        writer
            .write_sample(v)
            .map_err(|e| audio_error("wav encoder", e))?;
    }
    writer
        .finalize()
        .map_err(|e| audio_error("wav encoder", e))?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wav_round_trip_keeps_rate_and_samples() -> Result<()> {
        let tone: Vec<f32> = (0..160).map(|i| ((i as f32) * 0.1).sin() * 0.5).collect();
        let bytes = encode_wav_16bit(&tone, 16_000)?;
        let back = decode_audio_bytes(&bytes, "tone")?;
        assert_eq!(back.sample_rate, 16_000);
        assert_eq!(back.samples.len(), tone.len());
        for (a, b) in tone.iter().zip(&back.samples) {
            assert!((a - b).abs() < 1e-3);
        }
        Ok(())
    }

    #[test]
    fn unknown_and_truncated_audio_are_errors_not_panics() {
        assert!(decode_audio_bytes(b"ID3\x04junk", "mp3").is_err());
        assert!(decode_audio_bytes(b"RIFF\x10\0\0\0WAVE", "short wav").is_err());
        assert!(decode_audio_bytes(b"fLaC\0\0", "short flac").is_err());
    }
}
