#!/usr/bin/env bash
# `dmlref diff` names the alternative reading a planted backend follows (docs/diff.md, "Readings"):
# for each evaluated reading of docs/golden.md (test/test_readings.cpp checks that every one is
# listed here, or among those the tolerance admits, below), a backend's outputs computed that
# way (by `run --policy`, and for three of them by an independent Python script that knows
# nothing of dmlref's code) are diffed against dmlref's golden; the report must name that
# reading, and dmlref's own outputs must name none. Also: --policy's errors (exit 2 with the
# rule id).
# Usage: readings_planted.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"

# case file | reading
pairs=(
  "cases/max_pooling/nan_loses.json|ArgmaxNaN=NaNWins"
  "cases/relu/relu_grad_nan_x_gives_zero.json|GradNaN=PassesGradient"
  "cases/clip/clip_grad1_nan_x_passes_dy.json|GradNaN=ZeroGradient"
  "cases/clip/clip_grad1_x_at_min_or_max_gives_zero.json|ClipGradBounds=GradientAtBounds"
  "cases/clip/clip_grad1_x_at_min_or_max_gives_zero.json|ClipGradBounds=HalfAtBounds"
  "cases/relu/relu_grad_masked_negative_and_nan_gradients.json|SelectedZero=MaskProduct"
  "cases/slice/slice_grad_bits_preserved_zero_is_positive.json|SelectedZero=ScatterAdd"
  "cases/resample/zero_weight_taps_add_nothing.json|ZeroWeightTaps=MultiplyAll"
  "cases/max_pooling/grad_subnormal_terms_kept.json|Subnormals=FlushAtomicSums"
  "cases/relu/relu_nan_gives_positive_zero.json|ForwardNaN=NaNPropagates"
  "cases/resample/old_nn_evidence_floor_x_plus_half.json|OldNearestNeighbor=FloorXPlusHalf"
  "cases/element_wise_logic/bit_shift_left_uint8_count_at_least_width.json|ShiftCount=ModuloWidth"
  "cases/element_wise_logic/bit_shift_right_int8_logical.json|SignedShift=Arithmetic"
  "cases/fill/fill_value_sequence_float16_accumulated_ties.json|FillSequenceValue=StartPlusIndexTimesDelta"
  "cases/lp_pooling/p3_negative_elements_use_magnitudes.json|LpPoolingTerms=SignedPowers"
  "cases/quantized_linear/quantized_linear_matrix_multiply_accumulator_exact.json|QuantizedAccumulator=WrapToInt32"
  "cases/quantized_pooling/include_padding_padding_is_dequantized_zero.json|QuantizedPoolingPadding=RawZero"
  "cases/quantization/element_wise_dequantize_linear_int32_exact_difference.json|DequantizeValue=WrapToInt32"
  "cases/reduction/argmin_float32_nan_loses_to_any_number.json|ArgMinMaxNaN=NaNWins"
  "cases/reduction/reduce_argmax_int8_ties_first_index.json|ReduceArgTies=LastIndex"
  "cases/reduction/reduce_max_float32_nan_and_signed_zeros.json|ForwardNaN=NaNPropagates"
  "cases/element_wise_logic/is_nan_float16_output.json|BooleanOutput=AllOnes"
  "cases/element_wise_logic/if_float32_condition_zero_nan_subnormal.json|IfCondition=NaNSelectsB"
  "cases/top_k/top_k1_page_example_4_increasing.json|TopKTies=HigherIndexFirstWhenIncreasing"
  "cases/top_k/top_k1_nan_decreasing.json|TopKNaN=NaNLoses"
  "cases/one_hot/one_hot_below_minus_size.json|OneHotOutOfRange=Modulo"
  "cases/one_hot/one_hot_page_example_4_negative_outside.json|OneHotOutOfRange=Clamp"
  "cases/cast/cast_float32_to_int8_truncate_saturate.json|CastFloatToInteger=RoundHalfEven"
  "cases/cast/cast_float32_to_int8_truncate_saturate.json|CastFloatToInteger=Wrap"
  "cases/cast/cast_float32_to_int8_truncate_saturate.json|CastFloatToInteger=NaNIsMinimum"
  "cases/cast/cast_int32_to_uint8_wraps.json|CastIntegerToInteger=Saturate"
  "cases/cast/cast_int64_to_float32_rounds_once.json|CastIntegerToFloat=ThroughDouble"
  "cases/cast/cast_float32_to_float16_nan_payload.json|CastNaN=Canonical"
  "cases/element_wise/add_int8_wraps.json|IntegerOverflow=Saturate"
  "cases/cumulative/summation_uint16_wraps.json|IntegerOverflow=Saturate"
  "cases/cumulative/product_uint32_wraps_decreasing_exclusive.json|IntegerOverflow=Saturate"
  "cases/fill/fill_value_sequence_int8_wraps.json|IntegerOverflow=Saturate"
  "cases/fold/fold_int8_sum_wraps.json|IntegerOverflow=Saturate"
  "cases/gemm/matrix_multiply_integer_int32_wraps.json|IntegerOverflow=Saturate"
  "cases/convolution/integer_sum_wraps_to_int32.json|IntegerOverflow=Saturate"
  "cases/reduction/reduce_average_int32_half_to_even.json|IntegerResult=TruncateTowardZero"
  "cases/top_k/top_k1_signed_zero_tie_decreasing.json|TopKSignedZero=NegativeZeroSmaller"
  "cases/one_hot/one_hot_below_minus_size.json|NegativeIndex=Modulo"
)

# A sanitizer build (DMLREF_TEST_TIER=sanitizer, test/meson.build) plants every second reading: the
# diagnoses are the same in every build, and the release build checks them all.
k=0
for pair in "${pairs[@]}"; do
  file=${pair%%|*}
  reading=${pair#*|}
  k=$((k + 1))
  [ "${DMLREF_TEST_TIER:-release}" = sanitizer ] && [ $((k % 2)) -eq 0 ] && continue
  d=$tmp/$k
  mkdir -p "$d"
  # The golden (dmlref's default reading) and the planted backend's outputs (the alternative).
  "$dmlref" run "$root/$file" -o "$d/golden" -q > "$d/run.log" 2>&1 || { bad "$file: run -o"; cat "$d/run.log"; continue; }
  name=$(basename "$file" .json)
  "$dmlref" run "$root/$file" --policy "$reading" --npy-outputs "$d/planted" -q > "$d/planted.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || bad "$file: run --policy $reading should report FAIL where the reading differs (exit 1), got $rc"
  "$dmlref" diff "$d/golden/$name.json" "$d/planted/$name" --json "$d/report.json" > "$d/diff.txt" 2>&1
  rc=$?
  [ $rc -eq 1 ] || bad "$file: diff of the planted $reading backend should fail (exit 1), got $rc"
  grep -Eq "^    readings: [0-9]+ elements? follows? $reading\$" "$d/diff.txt" || { bad "$file: the text report does not name $reading"; cat "$d/diff.txt"; }
  python3 - "$d/report.json" "$reading" <<'EOF' || bad "$file: the JSON report does not count $reading"
import json, sys
r = json.load(open(sys.argv[1]))
counts = [o["readings"].get(sys.argv[2], 0) for c in r["cases"] for o in c["outputs"]]
sys.exit(0 if any(n > 0 for n in counts) else 1)
EOF
  # dmlref's own outputs: nothing over, no reading named.
  "$dmlref" run "$root/$file" --npy-outputs "$d/own" -q > /dev/null 2>&1
  "$dmlref" diff "$d/golden/$name.json" "$d/own/$name" > "$d/own.txt" 2>&1 || bad "$file: dmlref's own outputs should pass"
  grep -q "^    readings: " "$d/own.txt" && bad "$file: a reading is named for dmlref's own outputs"
done

# Readings the tolerance admits: a backend following one writes other bits than the golden (run
# --policy fails against the case's values), yet every element is within tolerance (a -0 where
# the bound admits +0, a NaN of another payload), so diff passes and names no reading.
admitted=(
  "cases/batch_normalization/fused_leaky_relu_negative_zero.json|BnActivationSignedZero=PositiveZero"
  "cases/reduction/reduce_max_float32_nan_and_signed_zeros.json|ReduceMinMaxAllNaN=CanonicalNaN"
)
for pair in "${admitted[@]}"; do
  file=${pair%%|*}
  reading=${pair#*|}
  k=$((k + 1))
  d=$tmp/$k
  mkdir -p "$d"
  name=$(basename "$file" .json)
  "$dmlref" run "$root/$file" -o "$d/golden" -q > "$d/run.log" 2>&1 || { bad "$file: run -o"; cat "$d/run.log"; continue; }
  "$dmlref" run "$root/$file" --policy "$reading" --npy-outputs "$d/planted" -q > "$d/planted.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || bad "$file: run --policy $reading should report FAIL where the reading's bits differ (exit 1), got $rc"
  "$dmlref" diff "$d/golden/$name.json" "$d/planted/$name" > "$d/diff.txt" 2>&1 ||
    { bad "$file: the tolerance should admit a backend following $reading"; cat "$d/diff.txt"; }
  grep -q "^    readings: " "$d/diff.txt" && bad "$file: a reading is named though nothing is over tolerance"
done

# Independent plants: a script computes the alternative from the case's inputs (Python floats,
# IEEE bits by struct), writes the outputs as a case file, and diff must name the reading.
plant() {  # case-file reading python-expression-file
  local file=$1 reading=$2 script=$3 name
  name=$(basename "$file" .json)
  local d=$tmp/independent-$name
  mkdir -p "$d"
  "$dmlref" run "$root/$file" -o "$d/golden" -q > /dev/null 2>&1 || { bad "$file: run -o"; return; }
  python3 "$script" "$d/golden/$name.json" "$d/actual.json" || { bad "$file: the planting script failed"; return; }
  "$dmlref" diff "$d/golden/$name.json" "$d/actual.json" > "$d/diff.txt" 2>&1
  [ $? -eq 1 ] || bad "$file: the independently planted $reading backend should fail"
  grep -Eq "follows? $reading\$" "$d/diff.txt" || { bad "$file: diff does not name $reading (independent plant)"; cat "$d/diff.txt"; }
}

cat > "$tmp/common.py" <<'EOF'
import json, struct, sys
def f32(v):  # a case's FLOAT32 value (number, "nan", "-inf", "0x...") -> its bits
    if isinstance(v, str):
        if v.startswith("0x"): return int(v, 16)
        return {"nan": 0x7fc00000, "-nan": 0xffc00000, "inf": 0x7f800000, "-inf": 0xff800000}[v]
    return struct.unpack("<I", struct.pack("<f", v))[0]
def is_nan(b): return (b & 0x7fffffff) > 0x7f800000
def out(golden, path, field, bits):
    g = json.load(open(golden))
    g["expected"][field]["Values"] = ["0x%08x" % b for b in bits]
    json.dump(g, open(path, "w"))
EOF

# ReluGrad as PyTorch's threshold_backward: x <= 0 ? 0 : dY (a NaN x passes dY).
cat > "$tmp/relu_grad.py" <<'EOF'
import sys; sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0]); from common import *
g = json.load(open(sys.argv[1]))
x = [f32(v) for v in g["inputs"]["InputTensor"]]
dy = [f32(v) for v in g["inputs"]["InputGradientTensor"]]
def le0(b): return not is_nan(b) and struct.unpack("<f", struct.pack("<I", b))[0] <= 0
out(sys.argv[1], sys.argv[2], "OutputGradientTensor", [0 if le0(a) else d for a, d in zip(x, dy)])
EOF
plant cases/relu/relu_grad_nan_x_gives_zero.json GradNaN=PassesGradient "$tmp/relu_grad.py"

# Max pooling as PyTorch's kernel: `if (val > maxval || isnan(val))` over each 1x3 window.
cat > "$tmp/max_pool.py" <<'EOF'
import sys; sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0]); from common import *
g = json.load(open(sys.argv[1]))
x = [f32(v) for v in g["inputs"]["InputTensor"]]
val = lambda b: struct.unpack("<f", struct.pack("<I", b))[0]
ys, idx = [], []
for c in range(4):  # Sizes [1, 4, 1, 3], window [1, 3]: one window per channel
    best = None
    for k in range(3):
        i = c * 3 + k
        if best is None or val(x[i]) > val(x[best]) or is_nan(x[i]): best = i
    ys.append(x[best]); idx.append(best)
g["expected"]["OutputTensor"]["Values"] = ["0x%08x" % b for b in ys]
g["expected"]["OutputIndicesTensor"]["Values"] = idx
json.dump(g, open(sys.argv[2], "w"))
EOF
plant cases/max_pooling/nan_loses.json ArgmaxNaN=NaNWins "$tmp/max_pool.py"

# JAX's relu grad: dY * (x > 0), IEEE products of Python floats (0 * -3 = -0, 0 * nan = nan).
cat > "$tmp/mask.py" <<'EOF'
import sys, math; sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0]); from common import *
g = json.load(open(sys.argv[1]))
val = lambda b: struct.unpack("<f", struct.pack("<I", b))[0]
x = [val(f32(v)) for v in g["inputs"]["InputTensor"]]
dy = [val(f32(v)) for v in g["inputs"]["InputGradientTensor"]]
r = [d * (1.0 if a > 0 else 0.0) for a, d in zip(x, dy)]
out(sys.argv[1], sys.argv[2], "OutputGradientTensor", [0x7fc00000 if math.isnan(v) else struct.unpack("<I", struct.pack("<f", v))[0] for v in r])
EOF
plant cases/relu/relu_grad_masked_negative_and_nan_gradients.json SelectedZero=MaskProduct "$tmp/mask.py"

# DuplicateIndex: AnyWrite's golden lists every write that could win (Admissible) and takes the
# last in row-major order as its value; LastInOrder has the same values and no lists. So a backend
# following LastInOrder passes the AnyWrite golden (and diff says it wrote the last); one that took
# the first write at every element passes it too, and fails the LastInOrder golden; one that sums
# the writes (an independent script, from the case's inputs) fails both.
cat > "$tmp/first_write.py" <<'EOF'
import sys; sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0]); from common import *
g = json.load(open(sys.argv[1]))
e = g["expected"]["OutputTensor"]
bits = [f32(v) for v in e["Values"]]
for a in e["Admissible"]:
    bits[a["Index"]] = f32(a["Values"][0])  # the first write of each value that could win
out(sys.argv[1], sys.argv[2], "OutputTensor", bits)
EOF
cat > "$tmp/sum_writes.py" <<'EOF'
import sys; sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0]); from common import *
g = json.load(open(sys.argv[1]))  # SCATTER_ELEMENTS, 2-D, Axis 1, FLOAT32: a written element is the sum of its writes
rows, cols = g["desc"]["InputTensor"]["Sizes"]
n = g["desc"]["IndicesTensor"]["Sizes"][1]
val = lambda v: struct.unpack("<f", struct.pack("<I", f32(v)))[0]
x = [val(v) for v in g["inputs"]["InputTensor"]]
u = [val(v) for v in g["inputs"]["UpdatesTensor"]]
idx = g["inputs"]["IndicesTensor"]
sums = {}
for r in range(rows):
    for j in range(n):
        t = r * cols + idx[r * n + j] % cols  # Python's % wraps a negative index once
        sums[t] = sums.get(t, 0.0) + u[r * n + j]
y = [sums.get(t, x[t]) for t in range(rows * cols)]
out(sys.argv[1], sys.argv[2], "OutputTensor", [struct.unpack("<I", struct.pack("<f", v))[0] for v in y])
EOF
anywrite=("cases/scatter/scatter_elements_duplicates_any_write.json|DuplicateIndex=LastInOrder")
for pair in "${anywrite[@]}"; do
  file=${pair%%|*}
  reading=${pair#*|}
  name=$(basename "$file" .json)
  d=$tmp/anywrite-$name
  mkdir -p "$d"
  "$dmlref" run "$root/$file" -o "$d/golden" -q > /dev/null 2>&1 || { bad "$file: run -o"; continue; }
  "$dmlref" run "$root/$file" --policy "$reading" -o "$d/last" -q > /dev/null 2>&1 || bad "$file: run --policy $reading -o"
  grep -q '"Admissible"' "$d/golden/$name.json" || bad "$file: the AnyWrite golden has no Admissible list"
  grep -q '"Admissible"' "$d/last/$name.json" && bad "$file: the $reading golden has an Admissible list"
  "$dmlref" run "$root/$file" --policy "$reading" --npy-outputs "$d/planted" -q > /dev/null 2>&1 ||
    bad "$file: $reading gives AnyWrite's golden values, run --policy should pass"
  "$dmlref" diff "$d/golden/$name.json" "$d/planted/$name" > "$d/diff.txt" 2>&1 ||
    { bad "$file: a backend following $reading should pass the AnyWrite golden"; cat "$d/diff.txt"; }
  grep -q "^    several writes: 2 elements had several admissible writes; the backend wrote the 2nd (1 element), the 3rd (1 element)\$" "$d/diff.txt" ||
    { bad "$file: diff does not say the backend wrote the last writes"; cat "$d/diff.txt"; }
  python3 "$tmp/first_write.py" "$d/golden/$name.json" "$d/first.json" || bad "$file: the first-write script failed"
  "$dmlref" diff "$d/golden/$name.json" "$d/first.json" > "$d/first.txt" 2>&1 ||
    { bad "$file: the first admissible writes should pass the AnyWrite golden"; cat "$d/first.txt"; }
  grep -q "the backend wrote the 1st\$" "$d/first.txt" || { bad "$file: diff does not say the backend wrote the 1st"; cat "$d/first.txt"; }
  "$dmlref" diff "$d/last/$name.json" "$d/first.json" > "$d/first-last.txt" 2>&1
  [ $? -eq 1 ] || bad "$file: the first writes should fail the $reading golden"
  python3 "$tmp/sum_writes.py" "$d/golden/$name.json" "$d/sum.json" || bad "$file: the sum script failed"
  "$dmlref" diff "$d/golden/$name.json" "$d/sum.json" > "$d/sum.txt" 2>&1
  [ $? -eq 1 ] || { bad "$file: a backend summing the writes should fail"; cat "$d/sum.txt"; }
  grep -q "the backend wrote the 1st (1 element), none of them (1 element)\$" "$d/sum.txt" ||
    { bad "$file: diff does not say the summed element matched none"; cat "$d/sum.txt"; }
  # dmlref test judges through the same census: a backend that writes the first writes passes, one
  # that sums them fails.
  for kind in first sum; do
    mkdir -p "$d/$kind-npy"
    python3 - "$d/$kind.json" "$d/$kind-npy/OutputTensor.npy" <<'EOF' || bad "$file: writing the $kind .npy failed"
import json, struct, sys
e = json.load(open(sys.argv[1]))["expected"]["OutputTensor"]["Values"]  # FLOAT32 bits as "0x..." (common.py's out)
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[2], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(b"".join(struct.pack("<I", int(v, 16)) for v in e))
EOF
  done
  "$dmlref" test "$d/golden/$name.json" --backend "cp $d/first-npy/OutputTensor.npy" -q > "$d/test-first.txt" 2>&1 ||
    { bad "$file: dmlref test should pass a backend that writes the first writes"; cat "$d/test-first.txt"; }
  "$dmlref" test "$d/golden/$name.json" --backend "cp $d/sum-npy/OutputTensor.npy" -q > "$d/test-sum.txt" 2>&1
  [ $? -eq 1 ] || { bad "$file: dmlref test should fail a backend that sums the writes"; cat "$d/test-sum.txt"; }
done

# A backend wrong in a way no reading explains: the diagnosis says so, and names no reading.
cat > "$tmp/wrong.py" <<'EOF'
import sys; sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0]); from common import *
g = json.load(open(sys.argv[1]))
vals = g["expected"]["OutputGradientTensor"]["Values"]
out(sys.argv[1], sys.argv[2], "OutputGradientTensor", [f32(v) for v in vals[:-1]] + [f32(6.0)])  # 5 -> 6
EOF
d=$tmp/wrong
mkdir -p "$d"
f=cases/relu/relu_grad_masked_negative_and_nan_gradients.json
"$dmlref" run "$root/$f" -o "$d/golden" -q > /dev/null 2>&1
python3 "$tmp/wrong.py" "$d/golden/$(basename $f)" "$d/actual.json"
"$dmlref" diff "$d/golden/$(basename $f)" "$d/actual.json" > "$d/diff.txt" 2>&1
[ $? -eq 1 ] || bad "the wrong backend should fail"
grep -q "^    readings: 1 element over tolerance follows no known reading\$" "$d/diff.txt" || { bad "the unexplained element is not reported"; cat "$d/diff.txt"; }
grep -Eq "^    readings: .* follows? [A-Za-z]+=" "$d/diff.txt" && bad "a reading is named for a backend that follows none"

# --policy's own errors: exit 2, a rule id, nothing run.
c=$root/cases/relu/relu_nan_gives_positive_zero.json
for spec in "NoSuchPolicy=X|policy.unknown-name" "ArgmaxNaN=Maybe|policy.unknown-value" "ArgmaxNaN|policy.syntax" "=NaNWins|policy.syntax"; do
  arg=${spec%%|*}
  rule=${spec#*|}
  "$dmlref" run "$c" --policy "$arg" > "$tmp/out.txt" 2> "$tmp/err.txt"
  rc=$?
  [ $rc -eq 2 ] || bad "--policy $arg: exit $rc, want 2"
  grep -q "\[$rule\]" "$tmp/err.txt" || { bad "--policy $arg: no [$rule] in the message"; cat "$tmp/err.txt"; }
  grep -q "running" "$tmp/out.txt" && bad "--policy $arg: cases were run"
done
# A default value is accepted and changes nothing.
"$dmlref" run "$c" --policy ArgmaxNaN=NaNLosesToAnyNumber -q > /dev/null 2>&1 || bad "--policy with a default value should pass"

finish "readings-planted: every reading named"
