#!/bin/sh
# Regenerates the CDNA3 MFMA layout tables in this folder from AMD's Matrix Instruction Calculator
# (github ROCm/amd_matrix_instruction_calculator, matrix_calculator.py; Debian: /usr/bin/python3 + python3-tabulate).
# Each file is the calculator's own --matrix-layout --csv output, unchanged: per lane, which A[i][k] / B[k][j] /
# D[i][j] (".Bn": block n) every register (or 16/8-bit slice of one) holds. Facts, not code: the tests read them.
# The gfx950-only tables (cdna4/) are not produced by the calculator (it stops at CDNA3). They are written below from
# the CDNA4 ISA guide, chapter 7 (sections cited per table); tests/hipsim/mfma_layout.hip checks every entry against
# the guide's formulas written out again in C++, and the emulation against the tables.
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
            v_mfma_f32_32x32x16_bf8_fp8 v_mfma_f32_32x32x16_bf8_bf8 v_mfma_i32_16x16x32_i8 v_mfma_i32_32x32x16_i8; do
  for m in A B D; do run "$insn" "$m"; done
done
# The multi-block broadcast modifiers (CDNA3 ISA guide, "Dependent arithmetic: MFMA" CBSZ/ABID/BLGP): A of block
# ABID of each 2^CBSZ group goes to the whole group; BLGP picks which lanes' B every lane uses.
for mod in "--cbsz 1 --abid 1" "--cbsz 2 --abid 3" "--cbsz 4 --abid 9"; do
  run v_mfma_f32_4x4x4_16b_bf16 A $mod
done
for g in 1 2 3 4 5 6 7; do run v_mfma_f32_4x4x4_16b_bf16 B --blgp $g; done

# gfx950 (CDNA4) only: V_MFMA_F32_16X16X32_F16/_BF16 and V_MFMA_F32_32X32X16_F16/_BF16. CDNA4 ISA guide 7.1.5.1
# ("Layout BF16" tables; f16 by 7.1.4.1's rule, K_L = 8): lane l holds row i = l % T of A (column j = l % T of B),
# T = 16 or 32, at k = 8 * (l / T) + e, e = 0..7 in v0.[15:0], v0.[31:16], ..., v3.[31:16]; D by 7.1.4.2 (the layout
# of every TxT MFMA: the CDNA3 16x16x16 / 32x32x8 D tables).
mkdir -p "$here/cdna4"
for shape in 16:16x16x32:16x16x16 32:32x32x16:32x32x8; do
  T=${shape%%:*}; rest=${shape#*:}; s4=${rest%%:*}; s3=${rest#*:}
  for t in f16 bf16; do
    insn=v_mfma_f32_${s4}_$t
    for m in A B; do
      { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
        echo "Source: CDNA4 ISA guide 7.1.5.1 (Layout BF16 table) and 7.1.4.1 (K_L = 8)"
        awk -v m=$m -v T=$T 'BEGIN {
          printf "lane"; for (r = 0; r < 4; ++r) printf ",v%d.[15:0],v%d.[31:16]", r, r; printf "\n"
          for (l = 0; l < 64; ++l) { printf "%d", l
            for (e = 0; e < 8; ++e) { k = 8 * int(l / T) + e
              if (m == "A") printf ",A[%d][%d]", l % T, k; else printf ",B[%d][%d]", k, l % T }
            printf "\n" } }'; } > "$here/cdna4/$insn.$m.csv"
    done
    { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
      echo "Source: CDNA4 ISA guide 7.1.4.2 (H = 4; the CDNA3 ${s3} D table, which it reproduces)"
      sed -n '/^lane,/,$p' "$here/cdna3/v_mfma_f32_${s3}_$t.D.csv"; } > "$here/cdna4/$insn.D.csv"
  done
done

# gfx950 (CDNA4) only: V_MFMA_SCALE_F32_16X16X128_F8F6F4 (T = 16, K = 128) and _32X32X64_ (T = 32, K = 64), with
# fp8/bf8 (8-bit, v0-v7), fp6/bf6 (6-bit, v0-v5) or fp4 (4-bit, v0-v3) operands: 32 items per lane, item e in bits
# [w*e+w-1 : w*e] of the operand registers read as one bit string (CDNA4 ISA guide 7.1.4; a 6-bit item may run into
# the next register: "v0.[35:30]" is v0[31:30] then v1[3:0]). Lane l holds row i = l % T of A (column j of B) at
# - fp6, fp4 (7.1.5.1 FP4 and FP6 tables, 7.1.4.1 with K_L = 32): k = 32 * (l / T) + e;
# - fp8 (7.1.5.1 FP8 tables): K in two halves, v0-v3 the first and v4-v7 the second, 16 k per lane in each:
#   k = (K/2) * (e / 16) + 16 * (l / T) + e % 16.
# D by 7.1.4.2, as for every TxT MFMA. The e8m0 scales (7.2.1) are not in these tables: mfma_layout.hip writes the
# guide's scale layout (lane i + T * (k / 32) holds the scale of row i's k) itself.
for shape in 16:16x16x128:128:16x16x16 32:32x32x64:64:32x32x8; do
  T=${shape%%:*}; rest=${shape#*:}; s4=${rest%%:*}; rest=${rest#*:}; K=${rest%%:*}; s3=${rest#*:}
  insn=v_mfma_scale_f32_${s4}_f8f6f4
  for w in 8 6 4; do
    name=$([ $w = 8 ] && echo fp8 || { [ $w = 6 ] && echo fp6 || echo fp4; })
    src=$([ $w = 8 ] && echo "7.1.5.1 (FP8 table: two K halves, v0-v3 and v4-v7)" || echo "7.1.5.1 ($(echo $name | tr a-z A-Z) table) and 7.1.4.1 (K_L = 32)")
    for m in A B; do
      { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
        echo "Source: CDNA4 ISA guide $src, items packed by 7.1.4; $name operands"
        awk -v m=$m -v w=$w -v T=$T -v K=$K 'BEGIN {
          printf "lane"
          for (e = 0; e < 32; ++e) { b = w * e; printf ",v%d.[%d:%d]", int(b / 32), b % 32 + w - 1, b % 32 }
          printf "\n"
          for (l = 0; l < 64; ++l) { printf "%d", l
            for (e = 0; e < 32; ++e) {
              k = w == 8 ? (K / 2) * int(e / 16) + 16 * int(l / T) + e % 16 : 32 * int(l / T) + e
              if (m == "A") printf ",A[%d][%d]", l % T, k; else printf ",B[%d][%d]", k, l % T }
            printf "\n" } }'; } > "$here/cdna4/$insn.$m.$name.csv"
    done
  done
  { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
    echo "Source: CDNA4 ISA guide 7.1.4.2 (H = 4; the CDNA3 ${s3} D table, which it reproduces)"
    sed -n '/^lane,/,$p' "$here/cdna3/v_mfma_f32_${s3}_f16.D.csv"; } > "$here/cdna4/$insn.D.csv"
done

# gfx950 (CDNA4) only: V_MFMA_I32_16X16X64_I8 (T = 16) and V_MFMA_I32_32X32X32_I8 (T = 32). CDNA4 ISA guide 7.1.5.1
# ("Layout IU8" tables; 7.1.4.1 with K_L = 16): lane l holds row i = l % T of A (column j of B) at k = 16 * (l / T) + e,
# e = 0..15 in v0.[7:0], v0.[15:8], ..., v3.[31:24]; D by 7.1.4.2 (the CDNA3 16x16x32 / 32x32x16 i8 D tables).
for shape in 16:16x16x64:16x16x32 32:32x32x32:32x32x16; do
  T=${shape%%:*}; rest=${shape#*:}; s4=${rest%%:*}; s3=${rest#*:}
  insn=v_mfma_i32_${s4}_i8
  for m in A B; do
    { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
      echo "Source: CDNA4 ISA guide 7.1.5.1 (Layout IU8 table) and 7.1.4.1 (K_L = 16)"
      awk -v m=$m -v T=$T 'BEGIN {
        printf "lane"; for (r = 0; r < 4; ++r) for (q = 0; q < 4; ++q) printf ",v%d.[%d:%d]", r, 8 * q + 7, 8 * q
        printf "\n"
        for (l = 0; l < 64; ++l) { printf "%d", l
          for (e = 0; e < 16; ++e) { k = 16 * int(l / T) + e
            if (m == "A") printf ",A[%d][%d]", l % T, k; else printf ",B[%d][%d]", k, l % T }
          printf "\n" } }'; } > "$here/cdna4/$insn.$m.csv"
  done
  { echo "Architecture: CDNA4"; echo "Instruction: $(echo $insn | tr a-z A-Z)"
    echo "Source: CDNA4 ISA guide 7.1.4.2 (H = 4; the CDNA3 ${s3} i8 D table, which it reproduces)"
    sed -n '/^lane,/,$p' "$here/cdna3/v_mfma_i32_${s3}_i8.D.csv"; } > "$here/cdna4/$insn.D.csv"
done
