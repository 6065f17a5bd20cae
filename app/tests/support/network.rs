//! The app under `strace -f -e trace=network` for the end-to-end run, and the verdict on its
//! trace: no internet address other than loopback, no DNS, no packet socket. Loopback is the
//! WebDriver automation (WebKitWebDriver drives the webview through an inspector socket on
//! 127.0.0.1); everything else the app and its WebKit processes do stays on the device.
//! Unlike `pocket converse` (cli/tests/no_network.rs), a route-netlink socket is allowed: GLib's
//! network monitor, which WebKit starts, reads the kernel's routing table through one and
//! sends nothing anywhere.

use anyhow::{Context, Result, bail, ensure};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A launcher for the app that runs it under strace, writing the trace to `trace`; `None`
/// when strace is missing outside CI (with CI=true a missing strace is an error, never a skip).
pub fn traced_launcher(app: &Path, dir: &Path, trace: &Path) -> Result<Option<PathBuf>> {
    if Command::new("strace").arg("-V").output().is_err() {
        ensure!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but strace is missing (Debian package strace; scripts/setup-system)"
        );
        println!("network check skipped: strace is missing");
        return Ok(None);
    }
    let quote = |p: &Path| -> Result<String> {
        let s = p.to_str().context("a UTF-8 path")?;
        ensure!(!s.contains('\''), "a path without quotes: {s}");
        Ok(format!("'{s}'"))
    };
    let launcher = dir.join("pocket-app-traced");
    // seccomp-bpf: only network calls stop the process, so the app runs at its normal pace.
    let script = format!(
        "#!/bin/sh\nexec strace -f -q --seccomp-bpf -e trace=network -o {} {} \"$@\"\n",
        quote(trace)?,
        quote(app)?
    );
    std::fs::write(&launcher, script)?;
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))?;
    Ok(Some(launcher))
}

/// What a line of `strace -e trace=network` output shows of network use beyond loopback.
pub fn network_use(line: &str) -> Option<String> {
    if let Some(at) = line.find("socket(")
        && !line[..at].ends_with("pair")
    {
        let family = line[at + "socket(".len()..]
            .split([',', ')'])
            .next()
            .unwrap_or("")
            .trim();
        if family == "AF_PACKET" {
            return Some("a packet socket".into());
        }
    }
    if line.contains("htons(53)") {
        return Some("a DNS address".into());
    }
    // Every internet address handed to or returned by a call must be loopback.
    let mut rest = line;
    while let Some(at) = rest.find("sa_family=AF_INET") {
        let addr = &rest[at..];
        let end = addr.find('}').unwrap_or(addr.len());
        let addr = &addr[..end];
        let loopback = if addr.starts_with("sa_family=AF_INET6") {
            addr.contains("\"::1\"") || addr.contains("\"::ffff:127.")
        } else {
            addr.contains("inet_addr(\"127.")
        };
        if !loopback {
            return Some(format!("a non-loopback address {{{addr}}}"));
        }
        rest = &rest[at + end..];
    }
    None
}

/// Checks the finished trace: the app was traced (it talked to its X display) and used no
/// network. Returns how many network calls were traced.
pub fn check_trace(trace: &Path) -> Result<usize> {
    let text = std::fs::read_to_string(trace)
        .with_context(|| format!("strace wrote no trace at {}", trace.display()))?;
    ensure!(
        text.lines()
            .any(|l| l.contains("connect(") && l.contains("X11-unix")),
        "the trace does not show the app connecting to its display:\n{text}"
    );
    let used: Vec<String> = text
        .lines()
        .filter_map(|l| network_use(l).map(|what| format!("{what}: {l}")))
        .collect();
    if !used.is_empty() {
        bail!("network use by the app:\n{}", used.join("\n"));
    }
    Ok(text.lines().filter(|l| !l.contains("+++")).count())
}
