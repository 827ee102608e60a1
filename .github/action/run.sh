#!/usr/bin/env bash
# The qeval GitHub Action's run step (action.yml): runs the suite with the reports in
# INPUT_OUTPUT, adds summary.md to the job's summary and records qeval's exit code as
# the step output exit-code. It does not fail itself, so the reports are uploaded
# whatever happened; the action's last step fails the job on that code (3: a gate of
# the suite or of the arguments failed; 1, 2: the run could not be done).
#   QEVAL         the qeval command (the install step's output)
#   INPUT_SUITE   the suite file
#   INPUT_ARGS    more arguments of qeval run, separated by white space
#   INPUT_OUTPUT  the reports' folder (qeval-out)
set -uo pipefail
: "${INPUT_SUITE:?the suite input is required}"
out=${INPUT_OUTPUT:-qeval-out}
read -r -a qeval <<<"${QEVAL:-qeval}"
read -r -a extra <<<"${INPUT_ARGS:-}"
"${qeval[@]}" run "$INPUT_SUITE" -o "$out" ${extra[@]+"${extra[@]}"}
code=$?
echo "exit-code=$code" >>"$GITHUB_OUTPUT"
if [ -f "$out/summary.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
case $code in
  0) ;;
  3) echo "::error title=qeval::$INPUT_SUITE: a gate failed (exit 3); the reports are in the uploaded artifact" ;;
  *) echo "::error title=qeval::$INPUT_SUITE: the run could not be done (exit $code)" ;;
esac
exit 0
