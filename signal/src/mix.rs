//! Interleaved multi-channel audio to mono.

/// Appends the average of each whole frame of `channels` interleaved samples to `out`; a
/// trailing partial frame is left out (callers that must refuse one check first).
pub fn downmix(interleaved: &[f32], channels: u16, out: &mut Vec<f32>) {
    let ch = usize::from(channels.max(1));
    if ch == 1 {
        out.extend_from_slice(interleaved);
        return;
    }
    let scale = 1.0 / ch as f32;
    out.extend(
        interleaved
            .chunks_exact(ch)
            .map(|f| f.iter().sum::<f32>() * scale),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_averaged_and_a_partial_one_dropped() {
        let mut out = Vec::new();
        downmix(&[1.0, 0.0, 0.5, 0.5, 0.25], 2, &mut out);
        assert_eq!(out, vec![0.5, 0.5]);
        out.clear();
        downmix(&[0.25, -0.5], 1, &mut out);
        assert_eq!(out, vec![0.25, -0.5]);
        out.clear();
        downmix(&[0.3, 0.3, 0.3], 3, &mut out);
        assert!((out[0] - 0.3).abs() < 1e-6, "{out:?}");
    }
}
