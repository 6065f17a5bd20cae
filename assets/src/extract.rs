//! Copies one member out of a package archive: a wheel (zip), an npm tarball or a Debian package.

use crate::error::{AssetError, Result};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// Streams `member` of the archive at `archive` into `out`; returns the bytes copied, or
/// `Ok(None)` when the archive has no such member.
pub fn extract_member(archive: &Path, member: &str, out: &mut dyn Write) -> Result<Option<u64>> {
    let name = archive
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name.ends_with(".whl") || name.ends_with(".zip") {
        from_zip(archive, member, out)
    } else if name.ends_with(".tgz") || name.ends_with(".tar.gz") {
        let file =
            std::fs::File::open(archive).map_err(|e| AssetError::io("opening", archive, e))?;
        from_tar(archive, flate2::read::GzDecoder::new(file), member, out)
    } else if name.ends_with(".deb") {
        from_deb(archive, member, out)
    } else {
        Err(bad(archive, "unknown archive type".into()))
    }
}

fn bad(path: &Path, detail: String) -> AssetError {
    AssetError::BadArchive {
        path: path.to_path_buf(),
        detail,
    }
}

fn from_zip(archive: &Path, member: &str, out: &mut dyn Write) -> Result<Option<u64>> {
    let file = std::fs::File::open(archive).map_err(|e| AssetError::io("opening", archive, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad(archive, e.to_string()))?;
    let mut entry = match zip.by_name(member) {
        Ok(e) => e,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(bad(archive, e.to_string())),
    };
    let n = std::io::copy(&mut entry, out).map_err(|e| bad(archive, e.to_string()))?;
    Ok(Some(n))
}

fn from_tar(
    archive: &Path,
    reader: impl Read,
    member: &str,
    out: &mut dyn Write,
) -> Result<Option<u64>> {
    let mut tar = tar::Archive::new(reader);
    let entries = tar.entries().map_err(|e| bad(archive, e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| bad(archive, e.to_string()))?;
        let path = entry.path().map_err(|e| bad(archive, e.to_string()))?;
        let path = path.to_string_lossy();
        if path.trim_start_matches("./") == member {
            let n = std::io::copy(&mut entry, out).map_err(|e| bad(archive, e.to_string()))?;
            return Ok(Some(n));
        }
    }
    Ok(None)
}

fn from_deb(archive: &Path, member: &str, out: &mut dyn Write) -> Result<Option<u64>> {
    // dpkg-deb knows every compression a .deb may use; it ships wherever apt-get does.
    let mut child = match Command::new("dpkg-deb")
        .arg("--fsys-tarfile")
        .arg(archive)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(AssetError::ClientMissing {
                client: "dpkg-deb".into(),
                hint: "a Debian or Ubuntu system".into(),
            });
        }
        Err(e) => return Err(AssetError::io("running dpkg-deb on", archive, e)),
    };
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| bad(archive, "dpkg-deb gave no output".into()))?;
    let found = from_tar(archive, stdout, member, out);
    // Stop reading early once found; dpkg-deb then exits on a closed pipe, which is fine.
    let _ = child.kill();
    let status = child
        .wait_with_output()
        .map_err(|e| AssetError::io("running dpkg-deb on", archive, e))?;
    match found {
        Ok(None) if !status.status.success() => Err(bad(
            archive,
            String::from_utf8_lossy(&status.stderr).trim().to_string(),
        )),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_members_from_tgz_and_zip_and_reports_absent_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        // An npm-style tarball.
        let tgz = dir.path().join("p.tgz");
        {
            let gz = flate2::write::GzEncoder::new(
                std::fs::File::create(&tgz).expect("create"),
                flate2::Compression::fast(),
            );
            let mut builder = tar::Builder::new(gz);
            let data = b"hello tar";
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder
                .append_data(&mut header, "package/a/b.wav", &data[..])
                .expect("append");
            builder.into_inner().expect("finish").finish().expect("gz");
        }
        let mut out = Vec::new();
        assert_eq!(
            extract_member(&tgz, "package/a/b.wav", &mut out).expect("ok"),
            Some(9)
        );
        assert_eq!(out, b"hello tar");
        assert_eq!(
            extract_member(&tgz, "package/none", &mut Vec::new()).expect("ok"),
            None
        );

        // A wheel-style zip.
        let whl = dir.path().join("p.whl");
        {
            let mut zip = zip::ZipWriter::new(std::fs::File::create(&whl).expect("create"));
            zip.start_file("pkg/data/x.bin", zip::write::SimpleFileOptions::default())
                .expect("start");
            zip.write_all(b"zip data").expect("write");
            zip.finish().expect("finish");
        }
        let mut out = Vec::new();
        assert_eq!(
            extract_member(&whl, "pkg/data/x.bin", &mut out).expect("ok"),
            Some(8)
        );
        assert_eq!(out, b"zip data");
        assert_eq!(
            extract_member(&whl, "nope", &mut Vec::new()).expect("ok"),
            None
        );

        // Garbage is a clear error.
        let junk = dir.path().join("junk.whl");
        std::fs::write(&junk, b"not a zip").expect("write");
        assert!(matches!(
            extract_member(&junk, "x", &mut Vec::new()),
            Err(AssetError::BadArchive { .. })
        ));
    }
}
