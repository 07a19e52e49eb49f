#!/usr/bin/env bash
# Makes the device-library bitcode that says "this is ISA version V" for a target Debian's rocm-device-libs
# (5.2) does not ship (gfx942: 9402, gfx950: 9500): disassembles a shipped oclc_isa_version_*.bc, rewrites the
# value of @__oclc_ISA_version and assembles the result. Fails unless exactly one such constant was rewritten.
# Usage: make-isa-bitcode.sh <llvm-dis> <llvm-as> <template.bc> <version> <out.bc>
set -euo pipefail
dis="$1" as="$2" template="$3" version="$4" out="$5"
[[ "$version" =~ ^[0-9]+$ ]] || { echo "make-isa-bitcode: version must be a number (got '$version')" >&2; exit 2; }
ll="$("$dis" "$template" -o -)"
count=$(grep -c '^@__oclc_ISA_version = .* constant i32 [0-9]*,' <<<"$ll" || true)
if [[ "$count" != 1 ]]; then
  echo "make-isa-bitcode: expected one @__oclc_ISA_version constant in $template, found $count" >&2
  exit 1
fi
new="$(sed -E "s/^(@__oclc_ISA_version = .* constant i32 )[0-9]+,/\1${version},/" <<<"$ll")"
grep -q "^@__oclc_ISA_version = .* constant i32 ${version}," <<<"$new" || {
  echo "make-isa-bitcode: rewriting the version failed" >&2; exit 1; }
"$as" - -o "$out.tmp" <<<"$new"
mv "$out.tmp" "$out"
