# Which question set a bench plays (source it from the repository root, after `cd`).
# question_set WORK: checks $QUESTIONS (default bench/questions.tsv; exported for the scripts
# it calls) and sets CLIPS (where its spoken clips are cached) and SET (the prefix of its
# result files): WORK/clips and "" for the default set; WORK/clips-<name> and "<name>." for
# another FILE (<name>: its name without .tsv and a leading "questions-", e.g. clips-heldout),
# so two sets never share clips or results.
question_set() {
  local work=$1 name
  [ -f "$QUESTIONS" ] || { echo "no question file $QUESTIONS" >&2; exit 2; }
  export QUESTIONS
  if [ "$(realpath "$QUESTIONS")" = "$(realpath bench/questions.tsv)" ]; then
    CLIPS="$work/clips" SET=""
  else
    name=$(basename "$QUESTIONS" .tsv)
    name=${name#questions-}
    CLIPS="$work/clips-$name" SET="$name."
  fi
}
