//! Downloads one registry package with its ordinary client: pip, apt-get or npm.

use crate::error::{AssetError, Result};
use crate::manifest::{Registry, WheelTags};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A package to download.
#[derive(Debug, Clone)]
pub struct PackageRef<'a> {
    pub registry: Registry,
    pub package: &'a str,
    pub version: &'a str,
    pub wheel: Option<&'a WheelTags>,
}

/// Whether the client's own progress output reaches the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientOutput {
    /// The client's progress bar is shown (stdout inherited).
    Show,
    /// Nothing but errors (tests, `--quiet`).
    Quiet,
}

/// Downloads the package into `dir` (which must be empty) and returns the archive's path.
pub fn download(pkg: &PackageRef<'_>, dir: &Path, output: ClientOutput) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| AssetError::io("creating", dir, e))?;
    match pkg.registry {
        Registry::Pypi => download_pypi(pkg, dir, output),
        Registry::Apt => download_apt(pkg, dir, output),
        Registry::Npm => download_npm(pkg, dir, output),
    }
}

fn download_pypi(pkg: &PackageRef<'_>, dir: &Path, output: ClientOutput) -> Result<PathBuf> {
    let spec = format!("{}=={}", pkg.package, pkg.version);
    let mut args: Vec<String> = vec![
        "download".into(),
        "--no-deps".into(),
        "--disable-pip-version-check".into(),
        "--no-input".into(),
        "--progress-bar".into(),
        "on".into(),
        "-d".into(),
        dir.display().to_string(),
    ];
    if let Some(tags) = pkg.wheel {
        args.extend(
            [
                "--only-binary=:all:",
                "--implementation",
                "cp",
                "--platform",
                &tags.platform,
                "--python-version",
                &tags.python_version,
                "--abi",
                &tags.abi,
            ]
            .map(String::from),
        );
    }
    args.push(spec);
    // `pip` may be missing where `python3 -m pip` works: try both.
    let attempts: [(&str, &[&str]); 3] = [("pip", &[]), ("pip3", &[]), ("python3", &["-m", "pip"])];
    let mut last_missing = true;
    for (program, prefix) in attempts {
        let mut cmd = Command::new(program);
        cmd.args(prefix).args(&args);
        match run(cmd, output) {
            Ok(()) => return find_single(dir, &[".whl", ".tar.gz", ".zip"], pkg, "pip"),
            Err(RunError::NotFound) => continue,
            Err(RunError::Failed(detail)) => {
                last_missing = false;
                if program == "python3" || !detail.contains("No module named pip") {
                    return Err(failed(pkg, "pip download", detail));
                }
            }
        }
    }
    if last_missing {
        Err(AssetError::ClientMissing {
            client: "pip".into(),
            hint: "Debian: apt-get install python3-pip".into(),
        })
    } else {
        Err(failed(pkg, "pip download", "pip is not usable".into()))
    }
}

fn download_apt(pkg: &PackageRef<'_>, dir: &Path, output: ClientOutput) -> Result<PathBuf> {
    let pinned = format!("{}={}", pkg.package, pkg.version);
    let mut detail = String::new();
    // The pinned version first; if the distribution moved on, any version (the sha256 decides).
    for spec in [pinned.as_str(), pkg.package] {
        let mut cmd = Command::new("apt-get");
        cmd.arg("download").arg("-q").arg(spec).current_dir(dir);
        match run(cmd, output) {
            Ok(()) => return find_single(dir, &[".deb"], pkg, "apt-get"),
            Err(RunError::NotFound) => {
                return Err(AssetError::ClientMissing {
                    client: "apt-get".into(),
                    hint: "a Debian or Ubuntu system".into(),
                });
            }
            Err(RunError::Failed(d)) => detail = d,
        }
    }
    Err(failed(
        pkg,
        "apt-get download",
        format!("{detail}\n(hint: run `apt-get update` first)"),
    ))
}

fn download_npm(pkg: &PackageRef<'_>, dir: &Path, output: ClientOutput) -> Result<PathBuf> {
    let mut cmd = Command::new("npm");
    cmd.arg("pack")
        .arg(format!("{}@{}", pkg.package, pkg.version))
        .arg("--pack-destination")
        .arg(dir)
        .current_dir(dir);
    match run(cmd, output) {
        Ok(()) => find_single(dir, &[".tgz"], pkg, "npm"),
        Err(RunError::NotFound) => Err(AssetError::ClientMissing {
            client: "npm".into(),
            hint: "Debian: apt-get install npm".into(),
        }),
        Err(RunError::Failed(d)) => Err(failed(pkg, "npm pack", d)),
    }
}

enum RunError {
    NotFound,
    Failed(String),
}

fn run(mut cmd: Command, output: ClientOutput) -> std::result::Result<(), RunError> {
    cmd.stdin(Stdio::null()).stderr(Stdio::piped());
    cmd.stdout(match output {
        ClientOutput::Show => Stdio::inherit(),
        ClientOutput::Quiet => Stdio::null(),
    });
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(RunError::NotFound),
        Err(e) => return Err(RunError::Failed(e.to_string())),
    };
    let out = child
        .wait_with_output()
        .map_err(|e| RunError::Failed(e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(RunError::Failed(tail(
            &String::from_utf8_lossy(&out.stderr),
            12,
        )))
    }
}

/// The last `n` non-empty lines of a client's error output.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(n);
    let joined = lines[start..].join("\n");
    if joined.is_empty() {
        "(no error output)".into()
    } else {
        joined
    }
}

fn failed(pkg: &PackageRef<'_>, client: &str, detail: String) -> AssetError {
    AssetError::DownloadFailed {
        registry: pkg.registry.name().into(),
        package: pkg.package.into(),
        version: pkg.version.into(),
        client: client.into(),
        detail,
    }
}

fn find_single(dir: &Path, exts: &[&str], pkg: &PackageRef<'_>, client: &str) -> Result<PathBuf> {
    let entries = std::fs::read_dir(dir).map_err(|e| AssetError::io("listing", dir, e))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| AssetError::io("listing", dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if exts.iter().any(|ext| name.ends_with(ext)) {
            found.push(path);
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(failed(
            pkg,
            client,
            format!("no {exts:?} archive appeared in {}", dir.display()),
        )),
        _ => Err(failed(
            pkg,
            client,
            format!("several archives appeared in {}", dir.display()),
        )),
    }
}
