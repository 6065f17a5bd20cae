//! Loading a model costs no more resident memory than the loaded model holds: a detaching
//! load reads the file with `pread`, never through its mapping, so no file pages join the
//! repacked copy on the way. Through the mapping, reading the ~100 small norm vectors mapped
//! the whole page-cache folio each one sits in (up to 2 MB on kernels with large folios),
//! and the MNN-Pocket shape in Q8_0 peaked at 442 MB while loading for 345 MB loaded.
//! Its own test binary: the peak (VmHWM) is the whole process's.

use std::io::{BufWriter, Write};

use pocket_llm::synth::{SynthQuant, SynthShape, write_synth};
use pocket_llm::{LoadOptions, Model};

/// A `/proc/self/status` field in bytes (Linux).
fn status_bytes(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
#[cfg(target_os = "linux")]
fn loading_peaks_at_what_the_loaded_model_holds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("mnn-pocket-0.3b-q8_0.gguf");
    {
        let file = std::fs::File::create(&path).expect("create");
        let mut out = BufWriter::new(file);
        write_synth(&mut out, SynthShape::MnnPocket03b, SynthQuant::Q8_0, 7).expect("synth");
        out.flush().expect("flush");
        let file = out.into_inner().expect("written");
        file.sync_all().expect("sync");
        // Out of the page cache, then read back in: as a downloaded file read once before
        // sits there (readahead makes the large folios; pages just written are small ones).
        // SAFETY: a valid open descriptor; the call only advises the kernel.
        let rc = unsafe {
            use std::os::fd::AsRawFd;
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED)
        };
        assert_eq!(rc, 0, "posix_fadvise");
    }
    std::io::copy(
        &mut std::fs::File::open(&path).expect("open"),
        &mut std::io::sink(),
    )
    .expect("read the file once");
    // Reset the peak so it measures the load alone ("5" sets VmHWM to the current RSS).
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    let before = status_bytes("VmRSS:").expect("VmRSS");
    let model = Model::load_with(
        &path,
        LoadOptions {
            repack: true,
            detach: true,
            speakable_only: false,
        },
    );
    let peak = status_bytes("VmHWM:").expect("VmHWM");
    let after = status_bytes("VmRSS:").expect("VmRSS");
    drop(model.expect("the model loads"));
    let (held, transient) = (after.saturating_sub(before), peak.saturating_sub(after));
    println!(
        "load: {} MB held, {} MB more at the peak",
        held >> 20,
        transient >> 20
    );
    // Measured: 314 MB held, 3 MB more (reading the norms through the mapping: 112 MB more).
    assert!(
        held > 250 << 20,
        "the weights are resident: {} MB",
        held >> 20
    );
    assert!(
        transient <= held / 20 + (8 << 20),
        "loading peaked {} MB above the {} MB the model holds",
        transient >> 20,
        held >> 20
    );
}
