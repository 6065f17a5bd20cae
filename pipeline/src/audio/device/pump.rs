//! The capture pump: moves microphone samples from the capture ring to the pipeline at 16 kHz,
//! following the rate of whichever input stream is open (a re-opened device may differ).

use ringbuf::HeapCons;
use ringbuf::traits::Consumer;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use crate::handle::MicSender;
use crate::resample::new_resampler;

pub(super) fn run(
    mut cons: HeapCons<f32>,
    rate: Arc<AtomicU32>,
    mut mic: MicSender,
    running: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) {
    let mut from = rate.load(Ordering::Acquire);
    let mut resampler = new_resampler(from, 16_000);
    let mut raw = vec![0.0f32; 4096];
    let mut out = Vec::with_capacity(4096);
    while running.load(Ordering::Acquire) && !stop.load(Ordering::Acquire) {
        let now = rate.load(Ordering::Acquire);
        if now != from {
            from = now;
            resampler = new_resampler(from, 16_000);
        }
        loop {
            let n = cons.pop_slice(&mut raw);
            if n == 0 {
                break;
            }
            out.clear();
            resampler.process(&raw[..n], &mut out);
            mic.push(&out);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
