//! A one-line progress bar with ETA on stderr: `\r[done/total] ETA mm:ss`.

use std::io::Write;
use std::time::Instant;

pub struct Progress {
    total: usize,
    done: usize,
    start: Instant,
    enabled: bool,
}

impl Progress {
    /// `total` samples to do in this process; `enabled = false` prints nothing.
    pub fn new(total: usize, enabled: bool) -> Self {
        let p = Self {
            total,
            done: 0,
            start: Instant::now(),
            enabled,
        };
        p.draw();
        p
    }

    /// One more sample done.
    pub fn tick(&mut self) {
        self.done += 1;
        self.draw();
    }

    /// Ends the line.
    pub fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }

    fn draw(&self) {
        if !self.enabled {
            return;
        }
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = if self.done == 0 {
            "--:--".to_string()
        } else {
            let left = elapsed / self.done as f64 * (self.total - self.done) as f64;
            mmss(left)
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}/{}] elapsed {} ETA {eta}   ",
            self.done,
            self.total,
            mmss(elapsed)
        );
        let _ = err.flush();
    }
}

/// Seconds as `mm:ss` (minutes grow past 59).
pub fn mmss(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    format!("{:02}:{:02}", s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn mmss_formats() {
        assert_eq!(super::mmss(0.0), "00:00");
        assert_eq!(super::mmss(61.4), "01:01");
        assert_eq!(super::mmss(3600.0), "60:00");
    }
}
