#!/usr/bin/env bash
# Lists, per kernel translation unit (kernels/**/*.kernel.cpp), the wave-level operations it uses: the places
# whose result can depend on the wave size (64 on CDNA, 32 on NVIDIA and on the sim's wave-32 profile).
# A TU with none prints "none". docs/amd.md says for each kernel how it depends on the wave size.
# Usage: tools/scripts/amd/wave-ops.sh [repo-root]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/../../.." && pwd)}"
pattern='warpSize|__shfl(_xor|_up|_down)?[[:space:]]*\(|__ballot[[:space:]]*\(|__any[[:space:]]*\(|__all[[:space:]]*\(|__lane_id[[:space:]]*\(|__activemask|wave_size'
found=0
while IFS= read -r -d '' tu; do
  found=1
  rel="${tu#"$root"/}"
  hits="$(grep -nE "$pattern" "$tu" | grep -vE '^[0-9]+:[[:space:]]*//' || true)"
  if [[ -z "$hits" ]]; then
    echo "$rel: none"
  else
    echo "$rel:"
    sed 's/^/  /' <<<"$hits"
  fi
done < <(find "$root/kernels" -name '*.kernel.cpp' -print0 | sort -z)
((found)) || echo "no kernel translation units below $root/kernels"
