//! Running samples on K workers at once: std threads pulling from one shared queue, each with
//! its own answerer (chat or pipeline); the caller writes the records as they come back.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use anyhow::{Result, anyhow};
use pocket_voicebench::{Record, Sample};

use super::outcome::Outcome;

/// Answers one sample at a time, each as a fresh conversation.
pub trait Answerer {
    fn answer(&mut self, sample: &Sample) -> Result<Record>;
}

/// Makes worker `i`'s answerer, on that worker's thread.
pub type Factory = Arc<dyn Fn(usize) -> Result<Box<dyn Answerer>> + Send + Sync>;

/// A record for a sample that could not be answered: empty response (scored as a wrong
/// answer, as VoiceBench scores an empty reply), `outcome` "error" and the reason in `error`.
pub fn failed_record(sample: &Sample, e: &anyhow::Error) -> Record {
    let mut r = Record::from_sample(sample, "");
    r.extra
        .insert("outcome".into(), Outcome::Error.as_str().into());
    r.extra
        .insert("error".into(), serde_json::Value::String(format!("{e:#}")));
    r
}

/// Runs `samples` on `jobs` workers; `on_record` gets each record (in completion order) on
/// the calling thread. Each worker first answers the `warm_up` samples and throws the answers
/// away (first-touch page faults of the mapped weights, cold caches and lazy allocations stay
/// out of the measured distribution). A worker that cannot start (engines fail to load) stops
/// the run.
pub fn run_pool(
    samples: Vec<Sample>,
    warm_up: Vec<Sample>,
    jobs: usize,
    factory: Factory,
    mut on_record: impl FnMut(Record) -> Result<()>,
) -> Result<()> {
    let queue = Arc::new(Mutex::new(VecDeque::from(samples)));
    let abort = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Result<Record>>();
    let warm_up = Arc::new(warm_up);
    let mut threads = Vec::new();
    for i in 0..jobs.max(1) {
        let queue = queue.clone();
        let warm_up = warm_up.clone();
        let abort = abort.clone();
        let factory = factory.clone();
        let tx = tx.clone();
        let t = std::thread::Builder::new()
            .name(format!("voicebench-{i}"))
            .spawn(move || {
                let mut answerer = match factory(i) {
                    Ok(a) => a,
                    Err(e) => {
                        let _ = tx.send(Err(e.context(format!("starting worker {i}"))));
                        return;
                    }
                };
                for sample in warm_up.iter() {
                    if abort.load(Ordering::Acquire) {
                        return;
                    }
                    // A failure here shows again, recorded, when the sample itself runs.
                    let _ = answerer.answer(sample);
                }
                while !abort.load(Ordering::Acquire) {
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                    let Some(sample) = next else { break };
                    let record = answerer
                        .answer(&sample)
                        .unwrap_or_else(|e| failed_record(&sample, &e));
                    if tx.send(Ok(record)).is_err() {
                        break;
                    }
                }
            })?;
        threads.push(t);
    }
    drop(tx);
    let mut first_error = None;
    for msg in rx {
        let outcome = msg.and_then(&mut on_record);
        if let Err(e) = outcome {
            abort.store(true, Ordering::Release);
            first_error.get_or_insert(e);
        }
    }
    for t in threads {
        if t.join().is_err() {
            first_error.get_or_insert(anyhow!("a worker thread panicked"));
        }
    }
    first_error.map_or(Ok(()), Err)
}
