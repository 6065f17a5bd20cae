//! The VoiceBench subsets, their splits, and which scorer each one needs.

use crate::error::{Result, VoiceBenchError};

/// A VoiceBench subset (a Hugging Face config of `hlt-lab/voicebench`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subset {
    AlpacaEval,
    AlpacaEvalFull,
    CommonEval,
    WildVoice,
    SdQa,
    Mmsu,
    OpenBookQa,
    Bbh,
    IfEval,
    AdvBench,
    MtBench,
}

/// How a subset's responses are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScorerKind {
    /// Letter extraction (A-D) against `reference`; VoiceBench `mcq`.
    MultipleChoice,
    /// Google IFEval instruction checkers; VoiceBench `ifeval`.
    InstructionFollowing,
    /// Per-task answer rules against `reference`; VoiceBench `bbh`.
    BigBenchHard,
    /// Refusal-substring match; VoiceBench `harm`.
    Refusal,
    /// Needs an external LLM judge (VoiceBench `api_judge.py`, then `open` or `qa`).
    ExternalJudge,
}

/// sd-qa's splits: one per speaker region.
pub const SD_QA_REGIONS: &[&str] = &[
    "aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga", "nzl", "phl", "usa", "zaf",
];

/// mmsu's splits: one per MMLU-Pro domain.
pub const MMSU_DOMAINS: &[&str] = &[
    "biology",
    "business",
    "chemistry",
    "economics",
    "engineering",
    "health",
    "history",
    "law",
    "other",
    "philosophy",
    "physics",
    "psychology",
];

impl Subset {
    pub const ALL: [Subset; 11] = [
        Subset::AlpacaEval,
        Subset::AlpacaEvalFull,
        Subset::CommonEval,
        Subset::WildVoice,
        Subset::SdQa,
        Subset::Mmsu,
        Subset::OpenBookQa,
        Subset::Bbh,
        Subset::IfEval,
        Subset::AdvBench,
        Subset::MtBench,
    ];

    /// The config name used on the hub and in VoiceBench's `--data`.
    pub fn name(self) -> &'static str {
        match self {
            Subset::AlpacaEval => "alpacaeval",
            Subset::AlpacaEvalFull => "alpacaeval_full",
            Subset::CommonEval => "commoneval",
            Subset::WildVoice => "wildvoice",
            Subset::SdQa => "sd-qa",
            Subset::Mmsu => "mmsu",
            Subset::OpenBookQa => "openbookqa",
            Subset::Bbh => "bbh",
            Subset::IfEval => "ifeval",
            Subset::AdvBench => "advbench",
            Subset::MtBench => "mtbench",
        }
    }

    pub fn from_name(name: &str) -> Result<Subset> {
        Subset::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| VoiceBenchError::UnknownSubset(name.to_string()))
    }

    pub fn scorer(self) -> ScorerKind {
        match self {
            Subset::OpenBookQa | Subset::Mmsu => ScorerKind::MultipleChoice,
            Subset::IfEval => ScorerKind::InstructionFollowing,
            Subset::Bbh => ScorerKind::BigBenchHard,
            Subset::AdvBench => ScorerKind::Refusal,
            Subset::AlpacaEval
            | Subset::AlpacaEvalFull
            | Subset::CommonEval
            | Subset::WildVoice
            | Subset::SdQa
            | Subset::MtBench => ScorerKind::ExternalJudge,
        }
    }

    /// The splits the published dataset has: `test`, except sd-qa (regions) and mmsu (domains).
    pub fn splits(self) -> &'static [&'static str] {
        match self {
            Subset::SdQa => SD_QA_REGIONS,
            Subset::Mmsu => MMSU_DOMAINS,
            _ => &["test"],
        }
    }

    /// The evaluator name VoiceBench's `evaluate.py --evaluator` takes for this subset.
    pub fn voicebench_evaluator(self) -> &'static str {
        match self {
            Subset::OpenBookQa | Subset::Mmsu => "mcq",
            Subset::IfEval => "ifeval",
            Subset::Bbh => "bbh",
            Subset::AdvBench => "harm",
            Subset::SdQa => "qa",
            _ => "open",
        }
    }
}

impl std::fmt::Display for Subset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_scorers_follow_voicebench_readme() {
        for s in Subset::ALL {
            assert_eq!(Subset::from_name(s.name()).ok(), Some(s));
        }
        assert!(Subset::from_name("nope").is_err());
        assert_eq!(Subset::Mmsu.scorer(), ScorerKind::MultipleChoice);
        assert_eq!(Subset::SdQa.scorer(), ScorerKind::ExternalJudge);
        assert_eq!(Subset::SdQa.splits().len(), 11);
        assert_eq!(Subset::Mmsu.splits().len(), 12);
        assert_eq!(Subset::Bbh.splits(), &["test"]);
    }
}
