//! Writing a small file (settings, a report) so that a failure — a full disk, a crash — never
//! leaves it half written or loses the old one: a temporary file beside it is written and
//! synced, then renamed over it; on failure the temporary file is removed.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{AssetError, Result};

/// Replaces `path` with `bytes`, or leaves it as it was and says why.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| f.write_all(bytes))
}

/// [`write_atomic`] with the content written by `write` into the temporary file.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut file = File::create(&tmp).map_err(|e| AssetError::io("creating", &tmp, e))?;
        write(&mut file)
            .and_then(|()| file.sync_all())
            .map_err(|e| AssetError::io("writing", path, e))?;
        std::fs::rename(&tmp, path).map_err(|e| AssetError::io("replacing", path, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `.<name>.<pid>.tmp` beside `path` (same file system, so the rename is atomic).
fn temp_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("settings.json");
        write_atomic(&path, b"old").expect("first write");
        write_atomic(&path, b"new").expect("second write");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        assert_eq!(files(dir.path()), ["settings.json"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.json");
        write_atomic(&path, b"old report").expect("first write");
        let err = write_atomic_with(&path, |f| {
            f.write_all(b"half a rep")?;
            Err(std::io::Error::from_raw_os_error(28)) // ENOSPC
        })
        .expect_err("the write fails");
        let msg = err.to_string();
        assert!(
            msg.contains("report.json") && msg.contains("No space left on device"),
            "{msg}"
        );
        assert_eq!(std::fs::read(&path).expect("read"), b"old report");
        assert_eq!(files(dir.path()), ["report.json"]);
    }

    /// Inside `a_full_disk_keeps_the_old_file`'s mount namespace: the folder in
    /// `POCKET_TINY_FS` is an 8 KiB tmpfs.
    #[test]
    #[ignore = "run by a_full_disk_keeps_the_old_file on a tiny tmpfs"]
    fn on_a_tiny_tmpfs() {
        let Some(dir) = std::env::var_os("POCKET_TINY_FS") else {
            return;
        };
        let path = Path::new(&dir).join("settings.json");
        write_atomic(&path, b"{\"old\": true}").expect("a small file fits");
        let big = vec![b' '; 64 * 1024];
        let err = write_atomic(&path, &big).expect_err("64 KiB do not fit in 8 KiB");
        assert!(err.to_string().contains("No space left"), "{err}");
        assert_eq!(std::fs::read(&path).expect("read"), b"{\"old\": true}");
        assert_eq!(files(Path::new(&dir)), ["settings.json"]);
    }

    /// A real full disk: an 8 KiB tmpfs mounted in a user and mount namespace
    /// (`unshare -rm`, no root needed), where `on_a_tiny_tmpfs` runs. Skipped where
    /// namespaces are not allowed.
    #[test]
    fn a_full_disk_keeps_the_old_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let exe = std::env::current_exe().expect("test binary");
        let script = format!(
            "mount -t tmpfs -o size=8k tmpfs '{}' && exec '{}' --exact atomic::tests::on_a_tiny_tmpfs --ignored --test-threads 1",
            dir.path().display(),
            exe.display()
        );
        let allowed = std::process::Command::new("unshare")
            .args(["-rm", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !allowed {
            println!("skipped: no user namespaces here (unshare -rm)");
            return;
        }
        let out = std::process::Command::new("unshare")
            .args(["-rm", "sh", "-c", &script])
            .env("POCKET_TINY_FS", dir.path())
            .output()
            .expect("unshare runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
