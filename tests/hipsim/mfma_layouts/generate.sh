#!/bin/sh
# Regenerates the CDNA3 MFMA layout tables in this folder from AMD's Matrix Instruction Calculator
# (github ROCm/amd_matrix_instruction_calculator, matrix_calculator.py; Debian: /usr/bin/python3 + python3-tabulate).
# Each file is the calculator's own --matrix-layout --csv output, unchanged: per lane, which A[i][k] / B[k][j] /
# D[i][j] (".Bn": block n) every register (or 16/8-bit slice of one) holds. Facts, not code: the tests read them.
# The gfx950-only tables (cdna4/) are not produced by the calculator (it stops at CDNA3). They are written below from
# a stated rule: the dense-MFMA layout of the CDNA3 tables (lane = row/column + T * (k / values per lane)), extended to
# 8 and 32 values per lane. The CDNA4 ISA guide could not be consulted (not retrievable here). Second source: the
# layouts IREE's compiler assigns these gfx950 instructions (iree-org/iree, compiler/src/iree/compiler/Codegen/
# Dialect/GPU/IR/IREEGPUAttrs.cpp, getSingleSubgroupLayout: 16x16x32 and 32x32x16 f16/bf16 and 16x16x128 fp8/bf8
# share the CDNA3 fp8 rule, k = (values per lane) * (lane / T) + e, and the CDNA3 16x16 / 32x32 D layout) agree
# with every table here but the fp4 packing of the scaled 16x16x128, which IREE does not list.
# Usage: generate.sh /path/to/matrix_calculator.py
set -eu
calc=${1:?usage: generate.sh /path/to/matrix_calculator.py}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/cdna3"
run() {  # run <instruction> <matrix A|B|D> [modifier flags...]
  insn=$1; m=$2; shift 2
  suffix=$(printf '%s' "$*" | tr -d ' -')
  out="$here/cdna3/$insn.$m${suffix:+.$suffix}.csv"
  /usr/bin/python3 "$calc" --architecture cdna3 --instruction "$insn" --matrix-layout "-$m" --csv "$@" > "$out"
}
for insn in v_mfma_f32_16x16x16_f16 v_mfma_f32_16x16x16_bf16 v_mfma_f32_32x32x8_f16 v_mfma_f32_32x32x8_bf16 \
            v_mfma_f32_4x4x4_16b_f16 v_mfma_f32_4x4x4_16b_bf16 \
            v_mfma_f32_16x16x32_fp8_fp8 v_mfma_f32_16x16x32_fp8_bf8 v_mfma_f32_16x16x32_bf8_fp8 \
            v_mfma_f32_16x16x32_bf8_bf8 v_mfma_f32_32x32x16_fp8_fp8 v_mfma_f32_32x32x16_fp8_bf8 \
            v_mfma_f32_32x32x16_bf8_fp8 v_mfma_f32_32x32x16_bf8_bf8; do
  for m in A B D; do run "$insn" "$m"; done
done
# The multi-block broadcast modifiers (CDNA3 ISA guide, "Dependent arithmetic: MFMA" CBSZ/ABID/BLGP): A of block
# ABID of each 2^CBSZ group goes to the whole group; BLGP picks which lanes' B every lane uses.
for mod in "--cbsz 1 --abid 1" "--cbsz 2 --abid 3" "--cbsz 4 --abid 9"; do
  run v_mfma_f32_4x4x4_16b_bf16 A $mod
done
for g in 1 2 3 4 5 6 7; do run v_mfma_f32_4x4x4_16b_bf16 B --blgp $g; done

# gfx950 (CDNA4) only: V_MFMA_F32_16X16X32_F16/_BF16 and V_MFMA_F32_32X32X16_F16/_BF16. Rule (the CDNA3
# 16x16x32 / 32x32x16 fp8 tables above, with 16-bit elements; to be confirmed in the CDNA4 ISA guide): lane l holds
# row i = l % T of A (column j = l % T of B), T = 16 or 32, at
# k = 8 * (l / T) + e, e = 0..7 in v0.[15:0], v0.[31:16], ..., v3.[31:16]; D is laid out as for every TxT MFMA
# (the CDNA3 16x16x16 / 32x32x8 D tables).
mkdir -p "$here/cdna4"
for shape in 16:16x16x32:16x16x16 32:32x32x16:32x32x8; do
  T=${shape%%:*}; rest=${shape#*:}; s4=${rest%%:*}; s3=${rest#*:}
  for t in f16 bf16; do
    insn=v_mfma_f32_${s4}_$t
    hdr="Source: the CDNA3 dense rule extended (generate.sh); agrees with IREE's gfx950 layouts, not the CDNA4 ISA guide"
    for m in A B; do
      { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"; echo "$hdr"
        awk -v m=$m -v T=$T 'BEGIN {
          printf "lane"; for (r = 0; r < 4; ++r) printf ",v%d.[15:0],v%d.[31:16]", r, r; printf "\n"
          for (l = 0; l < 64; ++l) { printf "%d", l
            for (e = 0; e < 8; ++e) { k = 8 * int(l / T) + e
              if (m == "A") printf ",A[%d][%d]", l % T, k; else printf ",B[%d][%d]", k, l % T }
            printf "\n" } }'; } > "$here/cdna4/$insn.$m.csv"
    done
    { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"; echo "$hdr"
      sed -n '/^lane,/,$p' "$here/cdna3/v_mfma_f32_${s3}_$t.D.csv"; } > "$here/cdna4/$insn.D.csv"
  done
done

# gfx950 (CDNA4) only: V_MFMA_SCALE_F32_16X16X128_F8F6F4 with fp8/bf8 (8-bit, v0-v7) or fp4 (4-bit, v0-v3) operands.
# Rule (as above with 32 values per lane; to be confirmed in the CDNA4 ISA guide): lane l holds row i = l % 16 of A
# (column j of B) at
# k = 32 * (l / 16) + e, e = 0..31, value e in bits [w*e+w-1 : w*e]; D as for every 16x16 MFMA. The e8m0 scale of
# those 32 values is a byte (op_sel) of the same lane's scale VGPR.
insn=v_mfma_scale_f32_16x16x128_f8f6f4
for w in 8 4; do
  name=$([ $w = 8 ] && echo fp8 || echo fp4)
  for m in A B; do
    { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
      echo "Source: the CDNA3 dense rule extended (generate.sh); $([ $w = 8 ] && echo "agrees with IREE's gfx950 layouts" || echo "fp4 packing unconfirmed"), not the CDNA4 ISA guide; $name operands"
      awk -v m=$m -v w=$w 'BEGIN {
        printf "lane"
        for (e = 0; e < 32; ++e) { b = w * e; printf ",v%d.[%d:%d]", int(b / 32), b % 32 + w - 1, b % 32 }
        printf "\n"
        for (l = 0; l < 64; ++l) { printf "%d", l
          for (e = 0; e < 32; ++e) { k = 32 * int(l / 16) + e
            if (m == "A") printf ",A[%d][%d]", l % 16, k; else printf ",B[%d][%d]", k, l % 16 }
          printf "\n" } }'; } > "$here/cdna4/$insn.$m.$name.csv"
  done
done
{ echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
  echo "Source: the CDNA3 dense rule extended (generate.sh), not the CDNA4 ISA guide"
  sed -n '/^lane,/,$p' "$here/cdna3/v_mfma_f32_16x16x16_f16.D.csv"; } > "$here/cdna4/$insn.D.csv"
