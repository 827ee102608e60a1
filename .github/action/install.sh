#!/usr/bin/env bash
# The qeval GitHub Action's install step (action.yml): finds qeval, or downloads the
# release binary for this runner and checks it against the release's SHA256SUMS.
# Writes qeval=<path> to $GITHUB_OUTPUT.
#   INPUT_QEVAL       a qeval binary to use as is (then nothing is downloaded)
#   INPUT_VERSION     the release: latest or a tag such as v1.2.3
#   QEVAL_REPOSITORY  where the releases are (qeval/qeval)
set -euo pipefail
if [ -n "${INPUT_QEVAL:-}" ]; then
  bin=$INPUT_QEVAL
elif [ "${INPUT_VERSION:-latest}" = latest ] && command -v qeval >/dev/null; then
  bin=$(command -v qeval)
else
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "::error title=qeval::no qeval release for $(uname -s): build it (go install github.com/qeval/qeval/cmd/qeval@latest) and pass its path as the qeval input" >&2; exit 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "::error title=qeval::no qeval release for $(uname -m)" >&2; exit 1 ;;
  esac
  dir="${RUNNER_TEMP:-/tmp}/qeval-action"
  rm -rf "$dir" && mkdir -p "$dir"
  tag=()
  [ "${INPUT_VERSION:-latest}" = latest ] || tag=("$INPUT_VERSION")
  gh release download ${tag[@]+"${tag[@]}"} --repo "${QEVAL_REPOSITORY:-qeval/qeval}" --dir "$dir" \
    --pattern "qeval_*_${os}_${arch}.tar.gz" --pattern SHA256SUMS
  (
    cd "$dir"
    if command -v sha256sum >/dev/null; then
      sha256sum --check --ignore-missing SHA256SUMS
    else
      shasum -a 256 --check --ignore-missing SHA256SUMS
    fi
    tar -xzf qeval_*_"${os}_${arch}".tar.gz
  )
  bin=$(echo "$dir"/qeval_*_"${os}_${arch}"/qeval)
fi
read -r -a cmd <<<"$bin"
"${cmd[@]}" version
echo "qeval=$bin" >>"$GITHUB_OUTPUT"
