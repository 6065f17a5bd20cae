//! Scripted scenario tests: the whole pipeline on mock engines, driven tick by tick on a virtual
//! clock (no sleeps, deterministic), asserting the exact event sequence.

mod device;
mod device_hotplug;
mod e2e;
mod faults;
mod file_io;
mod going_on;
mod harness;
mod mocks;
mod model_file;
mod pulse;
mod real_asr;
mod scenarios;
mod semantic_turn;
mod smart_turn;
mod speculative;
