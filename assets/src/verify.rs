//! Size and sha256 checks of files on disk.

use crate::error::{AssetError, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// What a file on disk is, compared with its manifest entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// Present with the expected size and sha256.
    Verified,
    /// Not there at all.
    Missing,
    /// Present with the wrong size (often an interrupted copy).
    WrongSize { actual: u64 },
    /// Right size, wrong content.
    WrongHash { actual: String },
}

impl FileState {
    pub fn is_verified(&self) -> bool {
        matches!(self, FileState::Verified)
    }

    /// A short phrase for listings and error messages.
    pub fn describe(&self) -> String {
        match self {
            FileState::Verified => "verified".into(),
            FileState::Missing => "missing".into(),
            FileState::WrongSize { actual } => format!("corrupt: size {actual}"),
            FileState::WrongHash { actual } => format!("corrupt: sha256 {}…", &actual[..12]),
        }
    }
}

/// The lowercase hex sha256 and byte length of a file.
pub fn sha256_file(path: &Path) -> Result<(String, u64)> {
    let mut file = File::open(path).map_err(|e| AssetError::io("opening", path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| AssetError::io("reading", path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        len += n as u64;
    }
    let digest = hasher.finalize();
    let hex = digest.iter().map(|b| format!("{b:02x}")).collect();
    Ok((hex, len))
}

/// Checks a file against its expected size and sha256, reading it whole only if the size fits.
pub fn check_file(path: &Path, size: u64, sha256: &str) -> Result<FileState> {
    let meta = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m,
        Ok(_) => return Ok(FileState::Missing),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileState::Missing),
        Err(e) => return Err(AssetError::io("inspecting", path, e)),
    };
    if meta.len() != size {
        return Ok(FileState::WrongSize { actual: meta.len() });
    }
    let (actual, _) = sha256_file(path)?;
    if actual.eq_ignore_ascii_case(sha256) {
        Ok(FileState::Verified)
    } else {
        Ok(FileState::WrongHash { actual })
    }
}

/// Checks only that a file exists with the expected size: cheap enough for every model load.
pub fn quick_check(path: &Path, size: u64) -> FileState {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() == size => FileState::Verified,
        Ok(m) if m.is_file() => FileState::WrongSize { actual: m.len() },
        _ => FileState::Missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_missing_truncated_and_altered_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        let sha_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(
            check_file(&path, 3, sha_abc).expect("ok"),
            FileState::Missing
        );
        std::fs::write(&path, b"abc").expect("write");
        assert_eq!(
            check_file(&path, 3, sha_abc).expect("ok"),
            FileState::Verified
        );
        assert_eq!(sha256_file(&path).expect("hash"), (sha_abc.to_string(), 3));
        std::fs::write(&path, b"ab").expect("write");
        assert_eq!(
            check_file(&path, 3, sha_abc).expect("ok"),
            FileState::WrongSize { actual: 2 }
        );
        assert_eq!(quick_check(&path, 3), FileState::WrongSize { actual: 2 });
        std::fs::write(&path, b"abd").expect("write");
        assert!(matches!(
            check_file(&path, 3, sha_abc).expect("ok"),
            FileState::WrongHash { .. }
        ));
        assert!(
            quick_check(&path, 3).is_verified(),
            "quick check looks at size only"
        );
    }
}
