//! IFEval scoring as VoiceBench's `ifeval` evaluator: strict and loose, prompt and instruction level.

mod checkers;
mod language;
mod text;

use std::collections::HashMap;

pub use checkers::{Instruction, Relation};
pub use language::detect_language;
pub use text::{count_sentences, count_words, split_into_sentences};

use super::pytext::py_strip;
use crate::sample::InstructionKwargs;

/// One ifeval item to score.
#[derive(Debug, Clone, Copy)]
pub struct IfevalItem<'a> {
    pub prompt: &'a str,
    pub response: &'a str,
    pub instruction_id_list: &'a [String],
    pub kwargs: &'a [InstructionKwargs],
}

/// VoiceBench's four accuracies (fractions in 0..=1) and their mean, `final`.
#[derive(Debug, Clone, PartialEq)]
pub struct IfevalOutcome {
    pub strict_prompt: f64,
    pub strict_instruction: f64,
    pub loose_prompt: f64,
    pub loose_instruction: f64,
    pub final_score: f64,
    /// Instructions that could not be built (missing or bad kwargs); counted as not followed,
    /// where IFEval would draw the missing argument at random or raise.
    pub unbuildable: Vec<String>,
}

/// VoiceBench strips `<1>`-style speaker tags and a trailing `<|user|>` before checking.
fn clean_response(response: &str) -> &str {
    let mut r = response;
    for tag in ["<1>", "<2>", "<3>"] {
        if let Some(rest) = r.strip_prefix(tag) {
            r = py_strip(rest);
            break;
        }
    }
    if let Some(rest) = r.strip_suffix("<|user|>") {
        r = py_strip(rest);
    }
    r
}

/// The eight variants the loose check tries: as is, without `*`, without the first and/or
/// last line, and combinations.
fn loose_variants(response: &str) -> Vec<String> {
    let lines: Vec<&str> = response.split('\n').collect();
    let n = lines.len();
    let join = |from: usize, to: usize| {
        if from >= to {
            String::new()
        } else {
            py_strip(&lines[from..to].join("\n")).to_string()
        }
    };
    let remove_first = join(1, n);
    let remove_last = join(0, n.saturating_sub(1));
    let remove_both = join(1, n.saturating_sub(1));
    vec![
        response.to_string(),
        response.replace('*', ""),
        remove_first.clone(),
        remove_last.clone(),
        remove_both.clone(),
        remove_first.replace('*', ""),
        remove_last.replace('*', ""),
        remove_both.replace('*', ""),
    ]
}

fn follows(instruction: &Instruction, candidates: &[String]) -> bool {
    candidates
        .iter()
        .any(|r| !py_strip(r).is_empty() && instruction.check(r))
}

/// Per-item results: for each instruction, (strict, loose).
pub fn check_item(item: &IfevalItem<'_>, response: &str) -> (Vec<(bool, bool)>, Vec<String>) {
    let strict = [response.to_string()];
    let loose = loose_variants(response);
    let mut results = Vec::new();
    let mut unbuildable = Vec::new();
    let empty = InstructionKwargs::default();
    for (i, id) in item.instruction_id_list.iter().enumerate() {
        let kwargs = item.kwargs.get(i).unwrap_or(&empty);
        match Instruction::build(id, kwargs) {
            Ok(instruction) => results.push((
                follows(&instruction, &strict),
                follows(&instruction, &loose),
            )),
            Err(why) => {
                unbuildable.push(format!("{id}: {why}"));
                results.push((false, false));
            }
        }
    }
    (results, unbuildable)
}

/// Score ifeval items as VoiceBench does. Like VoiceBench, responses are looked up by prompt, so
/// when two items share a prompt the later response is used for both.
pub fn score_ifeval(items: &[IfevalItem<'_>]) -> IfevalOutcome {
    let by_prompt: HashMap<&str, &str> = items
        .iter()
        .map(|it| (it.prompt, clean_response(it.response)))
        .collect();
    let (mut prompts, mut strict_prompts, mut loose_prompts) = (0usize, 0usize, 0usize);
    let (mut instructions, mut strict_ok, mut loose_ok) = (0usize, 0usize, 0usize);
    let mut unbuildable = Vec::new();
    for item in items {
        let response = by_prompt.get(item.prompt).copied().unwrap_or(item.response);
        let (results, bad) = check_item(item, response);
        unbuildable.extend(bad);
        prompts += 1;
        strict_prompts += usize::from(results.iter().all(|r| r.0));
        loose_prompts += usize::from(results.iter().all(|r| r.1));
        instructions += results.len();
        strict_ok += results.iter().filter(|r| r.0).count();
        loose_ok += results.iter().filter(|r| r.1).count();
    }
    let frac = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let strict_prompt = frac(strict_prompts, prompts);
    let strict_instruction = frac(strict_ok, instructions);
    let loose_prompt = frac(loose_prompts, prompts);
    let loose_instruction = frac(loose_ok, instructions);
    IfevalOutcome {
        strict_prompt,
        strict_instruction,
        loose_prompt,
        loose_instruction,
        final_score: (strict_prompt + strict_instruction + loose_prompt + loose_instruction) / 4.0,
        unbuildable,
    }
}

#[cfg(test)]
mod tests;
