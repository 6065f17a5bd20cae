//! Run-time choice of the instruction set the kernels use. The binary is built for plain
//! x86-64 / aarch64; the fastest kernels the CPU supports are picked once, at first use.

use std::sync::OnceLock;

/// Kernel families. Each SIMD family has a scalar twin and parity tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable Rust, the reference for every kernel.
    Scalar,
    /// x86-64 with AVX2, FMA and F16C.
    Avx2,
    /// [`Isa::Avx2`] plus AVX-512 F/BW/VL and VNNI: the AVX2 kernels, except the interleaved
    /// integer tiles, which use `vpdpbusd` on 256-bit registers (32-bit sums, no 16-bit
    /// partial sums, 32 registers).
    Avx512Vnni,
    /// aarch64 with NEON (always present on aarch64).
    Neon,
    /// aarch64 with NEON and the dot-product extension (`sdot`).
    NeonDot,
}

impl Isa {
    /// The best family this CPU runs. The environment variable `POCKET_KERNELS=scalar`
    /// forces the scalar kernels (for debugging and comparisons); `POCKET_KERNELS=avx2` keeps
    /// an AVX-512 VNNI CPU to the AVX2 kernels, to measure what an AVX2-only machine gets.
    pub fn detect() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| Isa::capped(std::env::var("POCKET_KERNELS").ok().as_deref()))
    }

    /// [`Isa::best_supported`], held down to the family `cap` names (`scalar`, `avx2`; any
    /// other value, or one this CPU lacks, changes nothing).
    fn capped(cap: Option<&str>) -> Isa {
        let best = Isa::best_supported();
        match cap.map(str::to_ascii_lowercase).as_deref() {
            Some("scalar") => Isa::Scalar,
            Some("avx2") if best == Isa::Avx512Vnni => Isa::Avx2,
            _ => best,
        }
    }

    /// The best family the CPU supports, ignoring the environment.
    pub fn best_supported() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("f16c")
            {
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512vnni")
                {
                    return Isa::Avx512Vnni;
                }
                return Isa::Avx2;
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("dotprod") {
                return Isa::NeonDot;
            }
            return Isa::Neon;
        }
        #[allow(unreachable_code)]
        Isa::Scalar
    }

    /// Every family this CPU can run (the scalar one first); parity tests walk this list.
    pub fn available() -> Vec<Isa> {
        let mut v = vec![Isa::Scalar];
        match Isa::best_supported() {
            Isa::Avx2 => v.push(Isa::Avx2),
            Isa::Avx512Vnni => v.extend([Isa::Avx2, Isa::Avx512Vnni]),
            Isa::Neon => v.push(Isa::Neon),
            Isa::NeonDot => v.extend([Isa::Neon, Isa::NeonDot]),
            Isa::Scalar => {}
        }
        v
    }

    /// Whether this CPU has a SIMD family, found apart from [`Isa::best_supported`]
    /// (the parity tests' check that detection did not miss it):
    /// AVX2+FMA+F16C on x86-64, NEON on every aarch64 CPU.
    pub fn cpu_has_simd() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("f16c")
        }
        #[cfg(target_arch = "aarch64")]
        {
            true
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            false
        }
    }
}

#[cfg(test)]
impl Isa {
    /// The SIMD families parity tests check (`available()` without the scalar one). Where
    /// the CPU has SIMD the list may not be empty, so a parity test cannot pass having
    /// compared only scalar code with itself; where it has none, a note says so.
    pub(crate) fn simd_under_test() -> Vec<Isa> {
        let simd: Vec<Isa> = Isa::available()
            .into_iter()
            .filter(|&i| i != Isa::Scalar)
            .collect();
        if Isa::cpu_has_simd() {
            assert!(
                !simd.is_empty(),
                "this CPU has SIMD, but no SIMD kernel family is available to test"
            );
        } else {
            eprintln!("no SIMD on this CPU: only the scalar kernels are checked");
        }
        simd
    }

    /// Every family parity tests run: the scalar one, then [`Isa::simd_under_test`].
    pub(crate) fn under_test() -> Vec<Isa> {
        std::iter::once(Isa::Scalar)
            .chain(Isa::simd_under_test())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_tests_see_this_cpus_simd() {
        let simd = Isa::simd_under_test();
        assert_eq!(simd.is_empty(), !Isa::cpu_has_simd());
        assert_eq!(Isa::under_test()[0], Isa::Scalar);
    }

    #[test]
    fn the_environment_can_only_hold_the_family_down() {
        let best = Isa::best_supported();
        assert_eq!(Isa::capped(None), best);
        assert_eq!(Isa::capped(Some("SCALAR")), Isa::Scalar);
        assert_eq!(Isa::capped(Some("neon-fast")), best);
        let avx2 = Isa::capped(Some("avx2"));
        if best == Isa::Avx512Vnni {
            assert_eq!(avx2, Isa::Avx2);
        } else {
            assert_eq!(avx2, best, "never a family the CPU lacks");
        }
    }
}
