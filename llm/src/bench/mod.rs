//! Engine benchmarks, llama-bench style: prefill and decode speed, peak memory ([`run`]), and
//! the memory read bandwidth that bounds decode speed ([`read_bandwidth`]). The caller times
//! the model's load and prints the results (`pocket llm bench`, `pocket llm membw`).

mod membw;
mod run;

pub use membw::{Bandwidth, MAX_MEMBW_MIB, membw_words, read_bandwidth};
pub use run::{BenchOptions, BenchReport, run};
