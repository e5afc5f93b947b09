#!/usr/bin/env bash
# Validate every .glb/.gltf under the given directories (or the given files) with the Khronos
# glTF validator (tools/gltf-validator, npm package gltf-validator pinned in package.json).
# Usage: .ci/validate-gltf.sh [--strict] DIR_OR_FILE...
# Installs the validator's node_modules on first use (npm ci when a lock file exists).
# Exit: 0 all valid, 1 a file has errors, 2 usage/setup failure or nothing to validate.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="$here/tools/gltf-validator"

flags=()
inputs=()
for a in "$@"; do
  case "$a" in
    --*) flags+=("$a") ;;
    *) inputs+=("$a") ;;
  esac
done
if [ ${#inputs[@]} -eq 0 ]; then
  echo "usage: $0 [--strict] DIR_OR_FILE..." >&2
  exit 2
fi
command -v node >/dev/null || { echo "node not found" >&2; exit 2; }
if [ ! -d "$tool/node_modules/gltf-validator" ]; then
  if [ -f "$tool/package-lock.json" ]; then
    (cd "$tool" && npm ci --no-audit --no-fund >&2)
  else
    (cd "$tool" && npm install --no-audit --no-fund >&2)
  fi
fi

files=()
for p in "${inputs[@]}"; do
  if [ -d "$p" ]; then
    while IFS= read -r -d '' f; do files+=("$f"); done \
      < <(find "$p" -type f \( -name '*.glb' -o -name '*.gltf' \) -print0 | sort -z)
  elif [ -f "$p" ]; then
    files+=("$p")
  else
    echo "$p: no such file or directory" >&2
    exit 2
  fi
done
if [ ${#files[@]} -eq 0 ]; then
  echo "no .glb or .gltf files found in: ${inputs[*]}" >&2
  exit 2
fi
exec node "$tool/validate.mjs" "${flags[@]}" "${files[@]}"
