//! IFEval checker cases whose expected results came from running VoiceBench's own
//! `test_instruction_following_strict/_loose` on the same inputs (see `cases.json`).

use serde::Deserialize;

use super::*;

#[derive(Deserialize)]
struct Case {
    ids: Vec<String>,
    kwargs: Vec<InstructionKwargs>,
    response: String,
    strict: Vec<bool>,
    loose: Vec<bool>,
}

#[test]
fn every_checker_agrees_with_voicebench_on_hand_made_responses() -> Result<(), serde_json::Error> {
    let cases: Vec<Case> = serde_json::from_str(include_str!("cases.json"))?;
    for case in &cases {
        let item = IfevalItem {
            prompt: "p",
            response: &case.response,
            instruction_id_list: &case.ids,
            kwargs: &case.kwargs,
        };
        let (results, bad) = check_item(&item, &case.response);
        assert!(bad.is_empty(), "{:?}: {bad:?}", case.ids);
        let strict: Vec<bool> = results.iter().map(|r| r.0).collect();
        let loose: Vec<bool> = results.iter().map(|r| r.1).collect();
        assert_eq!(
            strict, case.strict,
            "strict {:?} on {:?}",
            case.ids, case.response
        );
        assert_eq!(
            loose, case.loose,
            "loose {:?} on {:?}",
            case.ids, case.response
        );
    }
    Ok(())
}

#[test]
fn report_averages_like_voicebench() {
    let ids_a = vec![
        "punctuation:no_comma".to_string(),
        "startend:quotation".to_string(),
    ];
    let kw_a = vec![InstructionKwargs::default(), InstructionKwargs::default()];
    let ids_b = vec!["punctuation:no_comma".to_string()];
    let kw_b = vec![InstructionKwargs::default()];
    let items = [
        // strict: [true, false]; loose: [true, true] (quote found after dropping line one).
        IfevalItem {
            prompt: "a",
            response: "Sure thing\n\"all quoted\"",
            instruction_id_list: &ids_a,
            kwargs: &kw_a,
        },
        // An empty response follows nothing (`response.strip() and ...`).
        IfevalItem {
            prompt: "b",
            response: "<1>  ",
            instruction_id_list: &ids_b,
            kwargs: &kw_b,
        },
    ];
    let out = score_ifeval(&items);
    assert_eq!(out.strict_prompt, 0.0);
    assert!((out.strict_instruction - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(out.loose_prompt, 0.5);
    assert!((out.loose_instruction - 2.0 / 3.0).abs() < 1e-12);
    let mean = (0.0 + 1.0 / 3.0 + 0.5 + 2.0 / 3.0) / 4.0;
    assert!((out.final_score - mean).abs() < 1e-12);
}

#[test]
fn missing_arguments_count_as_not_followed() {
    let ids = vec!["length_constraints:number_words".to_string()];
    let kwargs = vec![InstructionKwargs::default()];
    let item = IfevalItem {
        prompt: "p",
        response: "one two",
        instruction_id_list: &ids,
        kwargs: &kwargs,
    };
    let out = score_ifeval(&[item]);
    assert_eq!(out.unbuildable.len(), 1);
    assert_eq!(out.strict_instruction, 0.0);
}
