//! What an end-to-end run of the desktop app needs around it: an X display (its own Xvfb unless
//! one is given), `tauri-driver` in front of `WebKitWebDriver`, and X screenshots (ImageMagick
//! `import`). Every process started here is killed when its guard drops.

use anyhow::{Context, Result, anyhow, bail};
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed on drop. With `group`, it leads its own process group and the whole
/// group is ended (tauri-driver leaves WebKitWebDriver and the app behind otherwise).
struct Guard {
    child: Child,
    group: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.group {
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", self.child.id())])
                .status();
            std::thread::sleep(Duration::from_millis(300));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The X display the app runs on.
pub struct Display {
    pub name: String,
    _xvfb: Option<Guard>,
}

impl Display {
    /// A fresh Xvfb (1280x800, 24 bit) on a free display number.
    pub fn start() -> Result<Self> {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("start Xvfb (Debian package xvfb)")?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("no Xvfb stdout"))?;
        let guard = Guard {
            child,
            group: false,
        };
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let n: u32 = line
            .trim()
            .parse()
            .with_context(|| format!("Xvfb printed {line:?} instead of a display number"))?;
        Ok(Self {
            name: format!(":{n}"),
            _xvfb: Some(guard),
        })
    }

    /// A PNG of the whole screen (ImageMagick `import`).
    pub fn screenshot(&self, path: &Path) -> Result<()> {
        let status = Command::new("import")
            .args(["-display", &self.name, "-window", "root"])
            .arg(path)
            .status()
            .context("run ImageMagick import")?;
        if !status.success() {
            bail!("import failed: {status}");
        }
        Ok(())
    }
}

impl Display {
    /// Runs `xdotool` on this display (Debian package xdotool): drives native windows, such as
    /// the file picker, that WebDriver cannot reach. Returns its output.
    pub fn xdotool(&self, args: &[&str]) -> Result<String> {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.name)
            .output()
            .context("run xdotool (Debian package xdotool)")?;
        if !out.status.success() {
            bail!(
                "xdotool {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// The id of the first window titled `title`, waiting up to `timeout` for it to appear.
    pub fn wait_window(&self, title: &str, timeout: std::time::Duration) -> Result<String> {
        let start = std::time::Instant::now();
        loop {
            if let Ok(ids) = self.xdotool(&["search", "--onlyvisible", "--name", title])
                && let Some(id) = ids.lines().next()
            {
                return Ok(id.to_string());
            }
            if start.elapsed() > timeout {
                bail!("no window titled {title:?} appeared within {timeout:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

/// `tauri-driver` (from `TAURI_DRIVER`, the PATH, or `~/.cargo/bin`).
fn tauri_driver_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("TAURI_DRIVER") {
        return Ok(PathBuf::from(p));
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("tauri-driver"))
        .find(|p| p.is_file())
        .ok_or_else(|| anyhow!("tauri-driver not found: cargo install tauri-driver --locked"))
}

/// A running tauri-driver, listening on `port`.
pub struct Driver {
    pub port: u16,
    _child: Guard,
}

impl Driver {
    pub fn start(display: &Display) -> Result<Self> {
        let port = free_port()?;
        let native = free_port()?;
        let child = Command::new(tauri_driver_path()?)
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native.to_string(),
            ])
            .env("DISPLAY", &display.name)
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .context("start tauri-driver")?;
        let guard = Guard { child, group: true };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if start.elapsed() > Duration::from_secs(20) {
                bail!("tauri-driver did not listen on port {port}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(Self {
            port,
            _child: guard,
        })
    }
}
