//! Reference attention: plain loops, the vector exp of `crate::vec`.

use super::GroupAttention;

pub(super) fn attend(a: &GroupAttention<'_>, scores: &mut [f32], out: &mut [f32]) {
    let (g, hd, len) = (a.heads, a.head_dim, a.len);
    for j in 0..g {
        let q = &a.q[j * hd..(j + 1) * hd];
        let s = &mut scores[j * len..(j + 1) * len];
        s.fill(0.0);
        for (d, &qd) in q.iter().enumerate() {
            let k = &a.keys_t[d * a.stride..d * a.stride + len];
            for (sp, kp) in s.iter_mut().zip(k) {
                *sp += qd * kp.to_f32();
            }
        }
        let mut max = f32::NEG_INFINITY;
        for v in s.iter_mut() {
            *v *= a.scale;
            max = max.max(*v);
        }
        let inv = 1.0 / crate::vec::exp_sub(s, max);
        let o = &mut out[j * hd..(j + 1) * hd];
        o.fill(0.0);
        for (p, &w) in s.iter().enumerate() {
            let v = &a.values[p * hd..(p + 1) * hd];
            for (od, vd) in o.iter_mut().zip(v) {
                *od += w * vd.to_f32();
            }
        }
        for od in o.iter_mut() {
            *od *= inv;
        }
    }
}
