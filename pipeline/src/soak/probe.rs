//! What a soak run watches from the side: the chat history the model sees (a read-only copy
//! kept by a wrapper around the chat engine), and this process's resident memory and threads.

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use pocket_llm::chat::Message;

use crate::engines::{ChatEngine, EngineResult, ReplyEnd};

/// The latest copy of the model's history and how many times it was taken.
#[derive(Debug, Default, Clone)]
pub struct HistorySnapshot {
    pub messages: Vec<Message>,
    /// Bumped on every reply, truncation and reset.
    pub version: u64,
}

/// Reads the history copy that [`record_history`]'s wrapper keeps (cheap to clone).
#[derive(Clone, Default)]
pub struct HistoryProbe(Arc<Mutex<HistorySnapshot>>);

impl HistoryProbe {
    /// The history as the chat engine last reported it.
    pub fn snapshot(&self) -> HistorySnapshot {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn store(&self, messages: Vec<Message>) {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        s.messages = messages;
        s.version += 1;
    }
}

/// Wraps `chat` so that after every change of its history (reply, truncation, reset) a copy
/// is kept where the returned probe reads it. The wrapper adds nothing else.
pub fn record_history(chat: Box<dyn ChatEngine>) -> (Box<dyn ChatEngine>, HistoryProbe) {
    let probe = HistoryProbe::default();
    (
        Box::new(Recorded {
            inner: chat,
            probe: probe.clone(),
        }),
        probe,
    )
}

struct Recorded {
    inner: Box<dyn ChatEngine>,
    probe: HistoryProbe,
}

impl ChatEngine for Recorded {
    fn prepare(&mut self) -> EngineResult<()> {
        self.inner.prepare()
    }

    fn prefill_user(&mut self, user_text: &str) -> EngineResult<()> {
        self.inner.prefill_user(user_text)
    }

    fn reply(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> EngineResult<ReplyEnd> {
        let r = self.inner.reply(user_text, cancel, on_piece);
        self.probe.store(self.inner.history());
        r
    }

    fn truncate_last_reply(&mut self, heard: &str) {
        self.inner.truncate_last_reply(heard);
        self.probe.store(self.inner.history());
    }

    fn forget_last_exchange(&mut self) {
        self.inner.forget_last_exchange();
        self.probe.store(self.inner.history());
    }

    fn reset(&mut self) {
        self.inner.reset();
        self.probe.store(self.inner.history());
    }

    fn history(&self) -> Vec<Message> {
        self.inner.history()
    }
}

/// This process's resident set size in KiB (`VmRSS` of `/proc/self/status`); `None` where
/// there is no procfs.
pub fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Threads of this process (entries of `/proc/self/task`); `None` where there is no procfs.
pub fn thread_count() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procfs_figures_are_read() {
        if !std::path::Path::new("/proc/self/status").exists() {
            return;
        }
        assert!(rss_kb().is_some_and(|kb| kb > 100));
        // This thread and the one just spawned, at least.
        let t = std::thread::spawn(thread_count);
        assert!(t.join().ok().flatten().unwrap_or(0) >= 2);
    }
}
