//! Which answering model a device runs when the user names none: the rule that follows from the
//! measured table in docs/PERFORMANCE.md ("Which model answers"). Qwen2.5-Coder-1.5B answers
//! far more easy questions right than SmolLM2-135M, and with its end of turn judged by SmolLM2
//! beside it, at a first-audio latency a conversation bears; its whole loop needs ~1.6 GiB of
//! memory. So: the 1.5B on a device with the memory for it, SmolLM2 below.

use pocket_assets::{Store, ids};

/// Installed memory from which the 1.5B is the default: a "6 GB" phone reports ~5.5 GiB, and
/// the loop's ~1.6 GiB is then under a third of it. Below, SmolLM2 (the loop needs ~0.9 GiB).
pub const LARGE_MODEL_MIN_MEMORY: u64 = 5 * 1024 * 1024 * 1024 + 512 * 1024 * 1024;

/// The model the rule picks, and why (for the user to see when it is not installed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    /// Asset id of the model to run.
    pub model: &'static str,
    /// The model the rule wants, when it is not the one run (not installed: the command that
    /// fetches it).
    pub note: Option<String>,
}

/// The rule for a device with `memory` bytes installed (`None`: unknown, taken as small), given
/// whether the 1.5B's file is installed.
pub fn choose_model(memory: Option<u64>, large_installed: bool) -> ModelChoice {
    let roomy = memory.is_some_and(|m| m >= LARGE_MODEL_MIN_MEMORY);
    match (roomy, large_installed) {
        (true, true) => ModelChoice {
            model: ids::QWEN25_CODER_15B,
            note: None,
        },
        (true, false) => ModelChoice {
            model: ids::SMOLLM2,
            note: Some(format!(
                "answering with the small model {}: for far better answers on this machine, \
                 run `pocket assets fetch --set large` ({}, 1.1 GB)",
                ids::SMOLLM2,
                ids::QWEN25_CODER_15B
            )),
        },
        (false, _) => ModelChoice {
            model: ids::SMOLLM2,
            note: None,
        },
    }
}

/// The rule applied to this device and `store`.
pub fn default_model(store: &Store) -> ModelChoice {
    let installed = store
        .require_file(ids::QWEN25_CODER_15B, ids::QWEN25_CODER_15B_FILE)
        .is_ok();
    choose_model(installed_memory(), installed)
}

/// Whether the rule picks the 1.5B on this device (so a setup step fetches its set).
pub fn wants_large_model() -> bool {
    choose_model(installed_memory(), true).model == ids::QWEN25_CODER_15B
}

/// Bytes of physical memory, if the system says.
pub fn installed_memory() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads system constants; it has no memory-safety preconditions.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1024 * 1024 * 1024;

    #[test]
    fn the_large_model_where_there_is_memory_and_its_file() {
        assert_eq!(
            choose_model(Some(16 * GIB), true).model,
            ids::QWEN25_CODER_15B
        );
        // A "6 GB" phone reports a little less than 6 GiB.
        assert_eq!(
            choose_model(Some(5 * GIB + 700 * 1024 * 1024), true).model,
            ids::QWEN25_CODER_15B
        );
        let small = choose_model(Some(4 * GIB), true);
        assert_eq!(
            small,
            ModelChoice {
                model: ids::SMOLLM2,
                note: None
            }
        );
        assert_eq!(choose_model(None, true).model, ids::SMOLLM2);
    }

    #[test]
    fn without_its_file_the_small_model_answers_and_says_how_to_get_the_large_one() {
        let c = choose_model(Some(16 * GIB), false);
        assert_eq!(c.model, ids::SMOLLM2);
        assert!(
            c.note.as_deref().is_some_and(|n| n.contains("--set large")),
            "{c:?}"
        );
    }

    #[test]
    fn this_machine_reports_its_memory() {
        let m = installed_memory();
        #[cfg(unix)]
        assert!(m.is_some_and(|m| m > 256 * 1024 * 1024), "{m:?}");
        #[cfg(not(unix))]
        assert!(m.is_none());
    }
}
