#!/usr/bin/env bash
# Certify an implementation of the ERIS interface v1 in CI and gate the job on the verdict. The templates beside
# this script (github-actions.yml, gitlab-ci.yml) call it; any other CI, or a person, can run it the same way.
#
#   ERIS_TARGET=target.toml ERIS_START="./start-my-erp --port 8080" bash certify.sh [eris certify options...]
#
# Environment:
#   ERIS_TARGET             the implementation: a base URL without /v1, or a target description (.toml). Required.
#   ERIS_START              a command that starts the implementation and keeps running; the script runs it in the
#                           background, waits until the target answers, and stops it at the end. Leave it unset
#                           when the implementation is already up (a deployed test installation, a CI service).
#   ERIS_START_TIMEOUT      seconds to wait for the started implementation to answer (default 120)
#   ERIS_REPORT_DIR         where the certification goes (default certification)
#   ERIS_ALLOW_INCOMPLETE   1: an incomplete certification (exit 3) passes the gate
#   ERIS_PYTHON             a Python 3.11+ for the readiness check (default python3)
# Arguments go to `eris certify` as they are (--token "$TOKEN", --expected-failures known.txt, --workers 2, ...).
#
# Exit status: eris certify's own: 0 conformant, 1 non-conformant, 2 the run could not be made, 3 incomplete (0 with
# ERIS_ALLOW_INCOMPLETE=1). Besides eris' outputs, the report folder gets certify.log and, when ERIS_START started
# the implementation, implementation.log: a CI keeps the folder as its artifact.
set -euo pipefail

target=${ERIS_TARGET:?ERIS_TARGET: the base URL or target description (.toml) of the implementation}
report_dir=${ERIS_REPORT_DIR:-certification}
start_timeout=${ERIS_START_TIMEOUT:-120}
python=${ERIS_PYTHON:-python3}
mkdir -p "$report_dir"

started=
stop_implementation() {
  if [ -n "$started" ] && kill -0 "$started" 2>/dev/null; then
    # its own process group: a start command run through a shell or a wrapper stops with everything it started
    kill -TERM -- "-$started" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$started" 2>/dev/null || return 0; sleep 0.2; done
    kill -KILL -- "-$started" 2>/dev/null || true
  fi
}
trap stop_implementation EXIT

# One attempt: does anything answer HTTP at the target? A target description may not exist before the
# implementation starts (`eris serve --write-config` writes it once it listens).
answers() {
  "$python" - "$target" <<'EOF'
import sys
import tomllib
import urllib.error
import urllib.request

target = sys.argv[1]
try:
    if target.startswith(("http://", "https://")):
        base_url = target
    else:
        with open(target, "rb") as file:
            base_url = tomllib.load(file)["target"]["base_url"]
    urllib.request.urlopen(base_url.rstrip("/") + "/v1/value-sets", timeout=5).close()
except urllib.error.HTTPError:
    pass  # any HTTP answer (a 401 of an implementation that wants a token everywhere) means it is up
except (OSError, ValueError, KeyError, tomllib.TOMLDecodeError):
    sys.exit(1)
EOF
}

if [ -n "${ERIS_START:-}" ]; then
  echo "certify.sh: starting the implementation: $ERIS_START"
  setsid bash -c "$ERIS_START" >"$report_dir/implementation.log" 2>&1 &
  started=$!
  echo "certify.sh: started the implementation (pid $started); its output goes to $report_dir/implementation.log"
  deadline=$((SECONDS + start_timeout))
  until answers; do
    if ! kill -0 "$started" 2>/dev/null; then
      echo "certify.sh: the implementation stopped before it answered; the end of its output:" >&2
      tail -n 20 "$report_dir/implementation.log" >&2
      exit 2
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "certify.sh: $target did not answer within $start_timeout s (ERIS_START_TIMEOUT)" >&2
      exit 2
    fi
    sleep 1
  done
  echo "certify.sh: the implementation answers"
fi

case "$target" in
  http://* | https://*) where=(--target "$target") ;;
  *) where=(--config "$target") ;;
esac
set +e
eris certify "${where[@]}" --report-dir "$report_dir" "$@" 2>&1 | tee "$report_dir/certify.log"
status=${PIPESTATUS[0]}
set -e

case "$status" in
  0) verdict="conformant" ;;
  1) verdict="non-conformant: a MUST requirement failed (see $report_dir/report.html)" ;;
  2) verdict="the certification could not be made (the reason is above)" ;;
  3) verdict="incomplete: no MUST requirement failed, but one was skipped, left out or not exercised" ;;
  *) verdict="eris certify ended with the unexpected status $status" ;;
esac
echo "certify.sh: exit $status, $verdict"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { echo '```'; sed -n '/^eris certify: [A-Z-]* /,$p' "$report_dir/certify.log"; echo '```'; } >>"$GITHUB_STEP_SUMMARY"
fi
if [ "$status" = 3 ] && [ "${ERIS_ALLOW_INCOMPLETE:-}" = 1 ]; then
  echo "certify.sh: ERIS_ALLOW_INCOMPLETE=1: the incomplete certification passes the gate"
  exit 0
fi
exit "$status"
