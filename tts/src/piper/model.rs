//! The Piper VITS network on ONNX Runtime (loaded at run time from a shared library).

use crate::error::TtsError;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The process's one ONNX Runtime environment (ONNX Runtime allows one per process).
static ENVIRONMENT: Mutex<Option<(PathBuf, ort::environment::Environment)>> = Mutex::new(None);

/// Loads ONNX Runtime from `library` once per process and returns the environment. Every
/// ONNX model of the process (the end-of-turn classifier too) takes its sessions from this
/// one: ONNX Runtime allows a single environment per process.
pub fn environment(library: &Path) -> Result<ort::environment::Environment, TtsError> {
    let runtime_err = |detail: String| TtsError::Runtime {
        path: library.to_path_buf(),
        detail,
    };
    let mut guard = ENVIRONMENT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, env)) = guard.as_ref() {
        // The library is process-global once loaded; later paths reuse it.
        return Ok(env.clone());
    }
    if !library.is_file() {
        return Err(runtime_err("file not found".into()));
    }
    disable_runtime_telemetry();
    let env = ort::init_from(library)
        .map_err(|e| runtime_err(e.to_string()))?
        .with_name("pocket-tts")
        // Microsoft's builds (the PyPI wheel we ship) send usage events to
        // mobile.events.data.microsoft.com when telemetry is on, and `ort` turns it on by
        // default: nothing leaves the device.
        .with_telemetry(false)
        .build()
        .map_err(|e| runtime_err(e.to_string()))?;
    *guard = Some((library.to_path_buf(), env.clone()));
    Ok(env)
}

/// The switch Microsoft's ONNX Runtime builds read when the library starts: without it they
/// start a telemetry uploader (1DS) that queues events before any session option can turn it
/// off and looks up mobile.events.data.microsoft.com a minute or so into a session.
pub const ORT_TELEMETRY_SWITCH: &str = "ORT_DISABLE_TELEMETRY";

/// Sets [`ORT_TELEMETRY_SWITCH`] for this process unless it is set already. Binaries call this
/// first thing in `main` (one thread); the library calls it again before loading ONNX Runtime
/// for embedders that did not.
pub fn disable_runtime_telemetry() {
    if std::env::var_os(ORT_TELEMETRY_SWITCH).is_none() {
        // SAFETY: the Pocket binaries set it at the start of `main`, before any other thread
        // exists, so this call changes nothing later; an embedder that skipped that reaches
        // here once, under the environment lock, before ONNX Runtime is loaded.
        unsafe { std::env::set_var(ORT_TELEMETRY_SWITCH, "1") };
    }
}

/// A loaded Piper network: phoneme ids in, f32 PCM out.
pub struct PiperModel {
    session: Session,
    has_sid: bool,
    path: PathBuf,
}

impl PiperModel {
    /// Builds an ONNX Runtime session for the model with `intra_threads` threads.
    pub fn load(onnx: &Path, ort_library: &Path, intra_threads: usize) -> Result<Self, TtsError> {
        let model_err = |detail: String| TtsError::Model {
            path: onnx.to_path_buf(),
            detail,
        };
        if !onnx.is_file() {
            return Err(TtsError::Io {
                path: onnx.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "model file not found"),
            });
        }
        let env = environment(ort_library)?;
        let session = Session::builder(&env)
            .map_err(|e| model_err(e.to_string()))?
            .with_optimization_level(GraphOptimizationLevel::All)
            .map_err(|e| model_err(e.to_string()))?
            .with_intra_threads(intra_threads.max(1))
            .map_err(|e| model_err(e.to_string()))?
            .with_inter_threads(1)
            .map_err(|e| model_err(e.to_string()))?
            // No arena: its size follows the longest sentence ever spoken and it never
            // shrinks (see `release_freed_memory`). The memory pattern needs the arena.
            .with_memory_pattern(false)
            .map_err(|e| model_err(e.to_string()))?
            .with_execution_providers([ort::ep::CPU::default().with_arena_allocator(false).build()])
            .map_err(|e| model_err(e.to_string()))?
            .commit_from_file(onnx)
            .map_err(|e| model_err(e.to_string()))?;
        let names: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
        for needed in ["input", "input_lengths", "scales"] {
            if !names.contains(&needed) {
                return Err(model_err(format!(
                    "not a Piper model: no input {needed:?} (inputs: {names:?})"
                )));
            }
        }
        let has_sid = names.contains(&"sid");
        Ok(PiperModel {
            session,
            has_sid,
            path: onnx.to_path_buf(),
        })
    }

    /// Runs the network on one utterance's ids and hands the samples to `sink`.
    pub fn infer(
        &mut self,
        ids: &[i64],
        scales: [f32; 3],
        sink: &mut dyn FnMut(&[f32]),
    ) -> Result<(), TtsError> {
        let err = |e: ort::Error| TtsError::Inference(format!("{}: {e}", self.path.display()));
        let len = [ids.len() as i64];
        let input = TensorRef::from_array_view(([1usize, ids.len()], ids)).map_err(err)?;
        let lengths = TensorRef::from_array_view(([1usize], &len[..])).map_err(err)?;
        let scales_t = TensorRef::from_array_view(([3usize], &scales[..])).map_err(err)?;
        let sid = [0i64];
        let _long = LongRunTensors::own_pages(ids.len());
        let outputs = if self.has_sid {
            let sid_t = TensorRef::from_array_view(([1usize], &sid[..])).map_err(err)?;
            self.session.run(ort::inputs![
                "input" => input,
                "input_lengths" => lengths,
                "scales" => scales_t,
                "sid" => sid_t,
            ])
        } else {
            self.session.run(ort::inputs![
                "input" => input,
                "input_lengths" => lengths,
                "scales" => scales_t,
            ])
        }
        .map_err(|e| TtsError::Inference(e.to_string()))?;
        let (_, samples) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| TtsError::Inference(e.to_string()))?;
        sink(samples);
        drop(outputs);
        release_freed_memory();
        Ok(())
    }
}

/// Gives the memory a run freed back to the system. A run's tensors grow with the sentence
/// (hundreds of MB for a 10 s one: the decoder works at the audio rate). ONNX Runtime's CPU
/// arena kept the largest run's worth for good and fragmented on top (a soak's resident memory
/// rose by 40% over 1000 turns, in steps at each new longest sentence); without the arena the
/// tensors come from malloc, and glibc, having raised its mmap threshold after the first large
/// free, keeps them in its heaps. `malloc_trim` hands the free pages back: resident memory
/// returns to where it was before the run (116 MB for the process that holds only the voice,
/// against 377 MB with the arena after 18 sentences of 3-40 words). The price is that each run
/// faults its tensors' pages in afresh (the trim itself costs nothing measurable): in a
/// release build on 2 threads a 3-word phrase takes 71 ms instead of 53, a 40-word sentence
/// (11 s of audio) 823 ms instead of 571 — still 13x faster than it plays. Other C libraries
/// (Android's scudo, Apple's malloc) return large blocks on their own.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only walks glibc's own heaps under their locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Phoneme ids above which a run's tensors get pages of their own (about 40 characters, 2.5 s
/// of audio; Piper interleaves a pad id with each phoneme). A two-word first phrase and most
/// clauses stay below it, so the pieces whose synthesis time is heard keep the heap's speed.
const LONG_RUN_IDS: usize = 80;

/// The mmap threshold while a long run's tensors are allocated: each tensor of 1 MiB or more
/// is mapped on its own and unmapped when freed.
const LONG_RUN_MMAP_THRESHOLD: i32 = 1 << 20;

/// The mmap threshold between long runs: glibc's ceiling for the threshold it raises by itself
/// (32 MiB on 64-bit; left alone, it rises to the largest mapping freed so far), so the
/// allocations between long runs stay on the heap as they did before a long run set it.
const USUAL_MMAP_THRESHOLD: i32 = 32 << 20;

/// For the length of one long run, makes glibc map every large tensor on its own, so that
/// resident memory follows the run's live tensors instead of the heap's high-water mark.
///
/// Why: a 120-character piece's tensors, freed and re-allocated node after node, fragment the
/// heap. `malloc_trim` hands the pages back after the run, but during it they add up: in the
/// 120-turn session with the 1.5B model the loop's peak came from such a run, 120 MiB above
/// what it is with this guard. A 1 MiB threshold for the whole process lowered the peak as much
/// but slowed the short first phrase (first TTS chunk 92 ms instead of 67), whose tensors are
/// small and many; so only long pieces, synthesized while earlier ones play, pay for the
/// mappings. The threshold is global, so other threads' large allocations during the run are
/// mapped too (the engines allocate nothing per token; a recognizer pass allocates little).
/// Other C libraries (Android's scudo, Apple's malloc) map large blocks on their own, so the
/// guard does nothing there.
struct LongRunTensors {
    active: bool,
}

impl LongRunTensors {
    fn own_pages(ids: usize) -> Self {
        let active = cfg!(all(target_os = "linux", target_env = "gnu")) && ids > LONG_RUN_IDS;
        if active {
            set_mmap_threshold(LONG_RUN_MMAP_THRESHOLD);
        }
        LongRunTensors { active }
    }
}

impl Drop for LongRunTensors {
    fn drop(&mut self) {
        if self.active {
            set_mmap_threshold(USUAL_MMAP_THRESHOLD);
        }
    }
}

fn set_mmap_threshold(bytes: i32) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` sets a glibc tunable under the main arena's lock; glibc refuses a value
    // above its maximum (returning 0, which leaves the old one).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, bytes);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bytes;
}
