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
    /// [`Isa::Avx2`] plus AVX-VNNI (Intel's cores without AVX-512 since Alder Lake): the
    /// AVX2 kernels, except the interleaved integer tiles, which are the VNNI ones in the
    /// instruction's VEX encoding (16 registers, so 4 tokens at a time).
    AvxVnni,
    /// [`Isa::Avx2`] plus AVX-512 F/BW/VL and VNNI: the AVX2 kernels, except the interleaved
    /// integer tiles, which use `vpdpbusd` on 256-bit registers (32-bit sums, no 16-bit
    /// partial sums, 32 registers).
    Avx512Vnni,
    /// [`Isa::Avx512Vnni`] plus AMX-INT8 tiles, with the OS's permission to use them: the
    /// VNNI kernels, except the prefill tile of interleaved Q4_K, whose `tdpbsud` multiplies
    /// 16 tokens by 16 rows over a 32-element sub-block at once.
    Amx,
    /// aarch64 with NEON (always present on aarch64).
    Neon,
    /// aarch64 with NEON and the dot-product extension (`sdot`).
    NeonDot,
}

impl Isa {
    /// The best family this CPU runs. The environment variable `POCKET_KERNELS=scalar`
    /// forces the scalar kernels (for debugging and comparisons); `POCKET_KERNELS=avx2` keeps
    /// any VNNI CPU to the AVX2 kernels, to measure what an AVX2-only machine gets;
    /// `POCKET_KERNELS=avxvnni` a CPU that also has AVX-512 VNNI to the AVX-VNNI ones (what an
    /// Intel core without AVX-512 gets); `POCKET_KERNELS=vnni` an AMX CPU to the VNNI ones.
    pub fn detect() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| Isa::capped(std::env::var("POCKET_KERNELS").ok().as_deref()))
    }

    /// [`Isa::best_supported`], held down to the family `cap` names (`scalar`, `avx2`,
    /// `avxvnni`, `vnni`; any other value, or one this CPU lacks, changes nothing).
    fn capped(cap: Option<&str>) -> Isa {
        let best = Isa::best_supported();
        let held = match cap.map(str::to_ascii_lowercase).as_deref() {
            Some("scalar") => Isa::Scalar,
            Some("avx2") => Isa::Avx2,
            Some("avxvnni") => Isa::AvxVnni,
            Some("vnni") => Isa::Avx512Vnni,
            _ => return best,
        };
        // Every family this CPU can run is the best one or below it.
        if Isa::available().contains(&held) {
            held
        } else {
            best
        }
    }

    /// Whether `self` is a lesser family than `other` (the order of [`Isa::available`]).
    #[cfg(test)]
    fn below(self, other: Isa) -> bool {
        let rank = |isa: Isa| match isa {
            Isa::Scalar => 0,
            Isa::Avx2 | Isa::Neon => 1,
            Isa::AvxVnni | Isa::NeonDot => 2,
            Isa::Avx512Vnni => 3,
            Isa::Amx => 4,
        };
        rank(self) < rank(other)
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
                    if amx::usable() {
                        return Isa::Amx;
                    }
                    return Isa::Avx512Vnni;
                }
                if std::arch::is_x86_feature_detected!("avxvnni") {
                    return Isa::AvxVnni;
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
            Isa::AvxVnni => v.extend([Isa::Avx2, Isa::AvxVnni]),
            best @ (Isa::Avx512Vnni | Isa::Amx) => {
                v.push(Isa::Avx2);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avxvnni") {
                    v.push(Isa::AvxVnni);
                }
                v.push(Isa::Avx512Vnni);
                if best == Isa::Amx {
                    v.push(Isa::Amx);
                }
            }
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
        for (name, family) in [
            ("avx2", Isa::Avx2),
            ("avxvnni", Isa::AvxVnni),
            ("vnni", Isa::Avx512Vnni),
        ] {
            let held = Isa::capped(Some(name));
            if Isa::available().contains(&family) {
                assert_eq!(held, family, "{name} on a CPU with it");
            } else {
                assert_eq!(held, best, "never a family the CPU lacks ({name})");
            }
        }
    }

    #[test]
    fn every_family_of_this_cpu_is_offered_in_order() {
        let all = Isa::available();
        assert_eq!(all.last(), Some(&Isa::best_supported()));
        assert!(all.windows(2).all(|w| w[0].below(w[1])), "{all:?}");
    }
}

/// Whether AMX-INT8 can run: the CPU has it and (Linux) the kernel grants this process the
/// tile data state. Asked once; elsewhere than Linux it is never used.
#[cfg(target_arch = "x86_64")]
mod amx {
    use std::sync::OnceLock;

    pub(super) fn usable() -> bool {
        static OK: OnceLock<bool> = OnceLock::new();
        *OK.get_or_init(|| cpu_has_amx_int8() && os_grants_tile_data())
    }

    /// CPUID leaf 7: AMX-TILE (EDX bit 24) and AMX-INT8 (bit 25).
    fn cpu_has_amx_int8() -> bool {
        // Leaf 0 tells whether leaf 7 exists.
        if std::arch::x86_64::__cpuid(0).eax < 7 {
            return false;
        }
        std::arch::x86_64::__cpuid_count(7, 0).edx & (3 << 24) == 3 << 24
    }

    /// `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`: without it the first tile
    /// instruction faults. The permission holds for the whole process.
    #[cfg(target_os = "linux")]
    fn os_grants_tile_data() -> bool {
        const SYS_ARCH_PRCTL: i64 = 158;
        const ARCH_REQ_XCOMP_PERM: u64 = 0x1023;
        const XFEATURE_XTILEDATA: u64 = 18;
        let ret: i64;
        // SAFETY: a plain system call that only changes this process's permissions.
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") SYS_ARCH_PRCTL => ret,
                in("rdi") ARCH_REQ_XCOMP_PERM,
                in("rsi") XFEATURE_XTILEDATA,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        ret == 0
    }

    #[cfg(not(target_os = "linux"))]
    fn os_grants_tile_data() -> bool {
        false
    }
}
