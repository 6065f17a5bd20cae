//! Input hygiene shared by whole-clip and streaming recognition: repairing bad samples and
//! choosing where to cut audio longer than one encoder window.

/// Copies `src` into `dst`, replacing NaN/infinite samples by 0 and clamping to [-1, 1].
/// Returns how many samples were changed.
pub fn sanitize_into(src: &[f32], dst: &mut Vec<f32>) -> usize {
    let mut repaired = 0;
    dst.extend(src.iter().map(|&s| {
        if !s.is_finite() {
            repaired += 1;
            0.0
        } else if s.abs() > 1.0 {
            repaired += 1;
            s.clamp(-1.0, 1.0)
        } else {
            s
        }
    }));
    repaired
}

/// End of the window starting at `start`: the whole rest if it fits in `window` samples,
/// otherwise the quietest 20 ms in the last quarter of the window.
pub fn cut_point(samples: &[f32], start: usize, window: usize) -> usize {
    let rest = samples.len() - start;
    if rest <= window {
        return samples.len();
    }
    let frame = 320;
    let lo = start + window * 3 / 4;
    let hi = start + window - frame;
    let mut best = (start + window, f32::INFINITY);
    let mut at = lo;
    while at <= hi {
        let e: f32 = samples[at..at + frame].iter().map(|s| s * s).sum();
        if e < best.1 {
            best = (at + frame / 2, e);
        }
        at += frame;
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repairs_nan_and_clipping() {
        let mut out = Vec::new();
        let n = sanitize_into(&[0.5, f32::NAN, 2.0, f32::NEG_INFINITY, -0.25], &mut out);
        assert_eq!(n, 3);
        assert_eq!(out, vec![0.5, 0.0, 1.0, 0.0, -0.25]);
    }

    #[test]
    fn cuts_at_the_quiet_spot() {
        let mut s = vec![0.5f32; 10_000];
        for v in &mut s[8_000..8_320] {
            *v = 0.0;
        }
        let c = cut_point(&s, 0, 9_000);
        assert!((8_000..8_320).contains(&c), "cut at {c}");
        assert_eq!(cut_point(&s, 5_000, 9_000), 10_000);
    }
}
