#!/usr/bin/env bash
# A model that lacks a required member does not compile, and the compiler's message names the member
# (framework/model/model_traits.hpp's static_asserts, which BootstrapFilter and simulate use); one
# whose member is not const is told exactly that. The complete model compiles. Env (set by CTest): CXX, RSMC_SOURCE_DIR, RANDOM123_INCLUDE_DIR.
set -uo pipefail
: "${CXX:?}" "${RSMC_SOURCE_DIR:?}" "${RANDOM123_INCLUDE_DIR:?}"
source_file="$RSMC_SOURCE_DIR/tests/compile/incomplete_model.cpp"
# -idirafter: Random123 as a system directory searched last (-isystem /usr/include would break
# the C++ library's #include_next).
compile() { "$CXX" -std=c++17 -fsyntax-only -I"$RSMC_SOURCE_DIR" -idirafter "$RANDOM123_INCLUDE_DIR" "$@" "$source_file" 2>&1; }
failures=0
if ! out=$(compile); then
  echo "FAIL: the complete model does not compile:"; echo "$out"; failures=$((failures + 1))
fi
for member in name state_dim obs_dim initial transition log_likelihood simulate_observation; do
  macro="WITHOUT_$(echo "$member" | tr '[:lower:]' '[:upper:]')"
  if out=$(compile -D"$macro"); then
    echo "FAIL: a model without $member compiles"; failures=$((failures + 1)); continue
  fi
  # Exactly one member reported missing, and it is this one.
  missing=$(grep -o 'rsmc model: missing `[^`]*`' <<<"$out" | sort -u)
  if [ "$(grep -c . <<<"$missing")" -eq 1 ] && [[ "$missing" == *"$member"* ]]; then
    echo "ok: without $member: $missing"
  else
    echo "FAIL: without $member, the messages do not name it (alone):"; echo "$out" | head -20; failures=$((failures + 1))
  fi
done
# A member declared without const: exactly one message, "`<member>` is not const".
for member in initial transition log_likelihood simulate_observation; do
  macro="NONCONST_$(echo "$member" | tr '[:lower:]' '[:upper:]')"
  if out=$(compile -D"$macro"); then
    echo "FAIL: a model with a non-const $member compiles"; failures=$((failures + 1)); continue
  fi
  messages=$(grep -o 'rsmc model: [^"]*' <<<"$out" | sort -u)
  if [ "$(grep -c . <<<"$messages")" -eq 1 ] && [[ "$messages" == *"\`$member\` is not const"* ]]; then
    echo "ok: non-const $member: $messages"
  else
    echo "FAIL: with a non-const $member, the messages do not say it is not const (alone):"; echo "$out" | head -20
    failures=$((failures + 1))
  fi
done
echo "$(( 12 - failures )) passed, $failures failed"
[ "$failures" -eq 0 ]
