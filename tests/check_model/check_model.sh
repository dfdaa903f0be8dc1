#!/usr/bin/env bash
# rsmc_check_model (cmake/rsmc_check_model.py, docs/models.md): passes every shipped model and
# examples/random_walk; refuses a model that calls std::exp in transition and one whose transition is
# not RSMC_HOST_DEVICE, each with exactly one line naming the member and the rule. With nvcc, the
# device compile passes random_walk and refuses the missing RSMC_HOST_DEVICE on its own (the scan left
# out: --device-only). Env (set by CTest): PYTHON, RSMC_SOURCE_DIR, NVCC (empty: no device compile),
# RSMC_DEVICE_FLAGS (nvcc's -I flags, '|'-separated).
set -uo pipefail
: "${PYTHON:?}" "${RSMC_SOURCE_DIR:?}" "${NVCC:=}" "${RSMC_DEVICE_FLAGS:=}"
check=("$PYTHON" "$RSMC_SOURCE_DIR/cmake/rsmc_check_model.py" -I "$RSMC_SOURCE_DIR")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Every header of models/ but the three that hold no model (their helpers are checked through the
# models that include them), and the example.
for header in "$RSMC_SOURCE_DIR"/models/*.hpp "$RSMC_SOURCE_DIR/examples/random_walk/random_walk.hpp"; do
  case $(basename "$header") in kalman_filter.hpp | model_support.hpp | count_distributions.hpp) continue ;; esac
  if out=$("${check[@]}" "$header" 2>&1); then echo "ok: $out"; else fail "$(basename "$header") refused: $out"; fi
done

# refused HEADER MEMBER RULE [ARGS...]: the check fails with one line, naming MEMBER and RULE.
refused() {
  local header=$1 member=$2 rule=$3 out
  shift 3
  if out=$("${check[@]}" "$RSMC_SOURCE_DIR/tests/check_model/$header" "$@" 2>&1); then
    fail "$header passed: $out"
  elif [ "$(grep -c . <<<"$out")" -eq 1 ] && [[ "$out" == *"$member"* ]] && [[ "$out" == *"(rule $rule)"* ]]; then
    echo "ok, refused: $out"
  else
    fail "$header: expected one line naming $member and rule $rule, got: $out"
  fi
}
refused libm_in_transition.hpp "LibmInTransition::transition: calls std::exp" rsmc-math
refused missing_host_device.hpp "MissingHostDevice::transition: not marked RSMC_HOST_DEVICE" host-device

if [ -n "$NVCC" ]; then
  device=(--nvcc "$NVCC" "--device-flags=$RSMC_DEVICE_FLAGS")
  if out=$("${check[@]}" "$RSMC_SOURCE_DIR/examples/random_walk/random_walk.hpp" "${device[@]}" 2>&1); then
    echo "ok (device): $out"
  else
    fail "random_walk.hpp refused by the device compile: $out"
  fi
  refused missing_host_device.hpp "MissingHostDevice::transition: not callable on the device" host-device \
    "${device[@]}" --device-only
else
  echo "no nvcc: the device compile is not tested here"
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
