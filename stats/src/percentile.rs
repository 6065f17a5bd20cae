//! Percentiles by nearest rank: the value at rank `ceil(p * n)` of the sorted values, always
//! one of the values (no interpolation), the rule every latency report here uses.

/// The nearest-rank `p` percentile (0 < p <= 1) of `sorted` (ascending, not empty).
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    sorted[((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// `values` in ascending order (NaN last), ready for [`nearest_rank`].
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_picks_a_value() {
        let v = sorted(&[5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 9.0, 8.0, 7.0, 6.0]);
        assert_eq!(nearest_rank(&v, 0.5), 5.0);
        assert_eq!(nearest_rank(&v, 0.9), 9.0);
        assert_eq!(nearest_rank(&v, 0.99), 10.0);
        assert_eq!(nearest_rank(&v, 0.01), 1.0);
        assert_eq!(nearest_rank(&[42.0], 0.5), 42.0);
    }
}
