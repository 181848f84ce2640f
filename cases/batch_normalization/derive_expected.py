#!/usr/bin/env python3
"""Independent expected values of the cases in this folder (docs/golden.md, Batch normalization):
exact fractions, square roots by Python decimal at 100 digits, one rounding to the binary format
(ties to even). Writes the authored cases (inputs and expected Values, no tolerance or policies)
to OUT; `dmlref run OUT` must PASS every one, and `dmlref run OUT -o cases/batch_normalization`
gives the bundled goldens (tolerance, policies and provenance added, values unchanged).

    python3 cases/batch_normalization/derive_expected.py OUT
"""
from fractions import Fraction as F
from decimal import Decimal, getcontext
import math, struct
getcontext().prec = 100
FMT = {'FLOAT16': (11, -24, 15), 'FLOAT32': (24, -149, 127), 'FLOAT64': (53, -1074, 1023)}

def rnd(v, t):
    """v: a Fraction or a Decimal, rounded once to nearest even in format t (a float holding it)"""
    if isinstance(v, float): return v
    if isinstance(v, Decimal): v = F(v)
    if v == 0: return 0.0
    p, emin, emax = FMT[t]
    s = -1 if v < 0 else 1
    a = abs(v)
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator))
    while F(2)**e > a: e -= 1
    while F(2)**(e+1) <= a: e += 1
    q = max(e - p + 1, emin)
    m = a / F(2)**q
    fl = math.floor(m); fr = m - fl
    if fr > F(1,2) or (fr == F(1,2) and fl % 2 == 1): fl += 1
    r = fl * F(2)**q
    if r >= F(2)**(emax+1): return s*math.inf
    return s*float(r)

def isqrt_dec(D):  # D Fraction > 0 -> Decimal 1/sqrt(D)
    return Decimal(1) / (Decimal(D.numerator) / Decimal(D.denominator)).sqrt()

def val(K, D, c=F(0)):
    """K/sqrt(D)+c as Decimal or Fraction when exact"""
    n, d = D.numerator, D.denominator
    if math.isqrt(n)**2 == n and math.isqrt(d)**2 == d:
        return K * F(math.isqrt(d), math.isqrt(n)) + c
    return Decimal(K.numerator)/Decimal(K.denominator) * isqrt_dec(D) + Decimal(c.numerator)/Decimal(c.denominator)

def f32(x): return struct.unpack('f', struct.pack('f', x))[0]
def bits32(x): return hex(struct.unpack('I', struct.pack('f', x))[0])

import json, os
import sys
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
def t(dt, sizes): return {"DataType": dt, "Sizes": sizes}
def num(x):
    if isinstance(x, str): return x
    if x != x: return "nan"
    if x == math.inf: return "inf"
    if x == -math.inf: return "-inf"
    if x == int(x) and abs(x) < 2**53 and not (x == 0 and math.copysign(1, x) < 0): return int(x)
    return repr(x) if not isinstance(x, float) else float(repr(f32(x))) if False else x
def write(name, desc_text, op, desc, inputs, expected):
    d = {"format": 1, "name": "batch_normalization/" + name, "description": desc_text, "operator": "DML_OPERATOR_" + op,
         "desc": desc, "inputs": inputs, "expected": {k: {"Values": [num(x) for x in v]} for k, v in expected.items()}}
    text = json.dumps(d, indent=2).replace("0.10000000149011612", "0.100000001490116119384765625")  # FLOAT32 0.1, exactly
    with open(os.path.join(OUT, name + ".json"), "w") as f: f.write(text)
T='FLOAT32'
def bn_desc(dt, ins, m, v, s, b, eps, spatial=1, fa=None):
    d = {"InputTensor": t(dt, ins), "MeanTensor": t(dt, m), "VarianceTensor": t(dt, v), "ScaleTensor": t(dt, s),
         "BiasTensor": t(dt, b), "OutputTensor": t(dt, ins), "Spatial": spatial, "Epsilon": eps}
    if fa is not None: d["FusedActivation"] = fa
    return d
def bn_expected(dt, X, M, V, S, B, eps, idx):
    return [rnd(val(F(S[idx(i)[2]])*(F(x)-F(M[idx(i)[0]])), F(V[idx(i)[1]])+F(eps), F(B[idx(i)[3]])), dt) for i, x in enumerate(X)]

# perfect squares
X=[3,-1,0.5,2.5]; M=[1,0.5]; V=[3.75,8.75]; S=[1.5,-2]; B=[0.25,1]
ch=lambda i: (i//2,)*4
write("perfect_square_is_exact",
      "ComputedValue (docs/golden.md, Batch normalization): Variance + Epsilon = 3.75 + 0.25 = 4 and 8.75 + 0.25 = 9 are perfect squares, so the values are rational: 1.5 (3 - 1) / 2 + 0.25 = 1.75, 1.5 (-1 - 1) / 2 + 0.25 = -1.25, -2 (0.5 - 0.5) / 3 + 1 = 1 and -2 (2.5 - 0.5) / 3 + 1 = -1/3, rounded once (0xBEAAAAAB). No Ziv loop is needed and none may spin.",
      "BATCH_NORMALIZATION", bn_desc(T,[1,2,1,2],[1,2,1,1],[1,2,1,1],[1,2,1,1],[1,2,1,1],0.25),
      {"InputTensor": X, "MeanTensor": M, "VarianceTensor": V, "ScaleTensor": S, "BiasTensor": B},
      {"OutputTensor": bn_expected(T, X, M, V, S, B, 0.25, ch)})
# float16 ties
H='FLOAT16'; x=1+2**-10
write("float16_ties_to_even",
      "ComputedValue: FLOAT16, (X - Mean) = 2^-10 and Variance 4 give 2^-11, exactly half an ULP of 1: 1 + 2^-11 ties to 1 (even) and 1 + 2^-10 + 2^-11 ties to 1 + 2^-9 (even). Bias broadcasts along the last dimension on its own (BnBroadcast).",
      "BATCH_NORMALIZATION", bn_desc(H,[1,1,1,2],[1,1,1,1],[1,1,1,1],[1,1,1,1],[1,1,1,2],0),
      {"InputTensor": [x, x], "MeanTensor": [1], "VarianceTensor": [4], "ScaleTensor": [1], "BiasTensor": [1, x]},
      {"OutputTensor": [1, 1+2**-9]})
# int32
write("int32_rounds_half_to_even",
      "IntegerResult (docs/golden.md): INT32 is outside DirectML's tables; the exact value rounded half to even: (7 - 2) / sqrt(4) = 2.5 -> 2, (9 - 2) / 2 = 3.5 -> 4, (-3 - 2) / 2 = -2.5 -> -2, (2 - 2) / 2 = 0, (10 - 2) / sqrt(3) = 4.6188... -> 5 for the second channel.",
      "BATCH_NORMALIZATION", bn_desc("INT32",[1,2,1,4],[1,1,1,1],[1,2,1,1],[1,1,1,1],[1,1,1,1],0),
      {"InputTensor": [7, 9, -3, 2, 10, 2, -4, 100], "MeanTensor": [2], "VarianceTensor": [4, 3], "ScaleTensor": [1], "BiasTensor": [0]},
      {"OutputTensor": [2, 4, -2, 0] + [int(rnd_int) for rnd_int in [round(float(val(F(v-2), F(3)))) for v in [10, 2, -4, 100]]]})
# special values
write("special_values",
      "BnSpecialValues and ZeroResult (docs/golden.md): IEEE's rules on the exact formula, element by element: X = Mean with Variance + Epsilon = 0 is 0 / 0 = NaN; (2 - 1) * -1 / sqrt(0) = -inf; Variance -1 is sqrt of a negative = NaN; Variance +inf gives (X - Mean) / inf + Bias = 0.5; X = +inf gives +inf; X = Mean with Bias -0 is an exact zero, +0.",
      "BATCH_NORMALIZATION", bn_desc(T,[1,6],[1,6],[1,6],[1,6],[1,6],0),
      {"InputTensor": [1, 2, 2, 2, "inf", 2], "MeanTensor": [1, 1, 1, 1, 1, 2], "VarianceTensor": [0, 0, -1, "inf", 1, 3],
       "ScaleTensor": [1, -1, 1, 1, 1, 1], "BiasTensor": [0.5, 0.5, 0.5, 0.5, 0.5, -0.0]},
      {"OutputTensor": ["nan", "-inf", "nan", 0.5, "inf", 0]})
# broadcast each
Xb=[1,-2,0.5,3, -1.5,2,0.25,-0.75]; Mn=[0.5,-1]; Vr=[2]; Sc=[1.5,-0.5]; Bi=[0.25,-1]
idx=lambda i: ((i//2)%2, 0, i//4, i%2)
write("broadcast_each_tensor",
      "BnBroadcast and BnSpatial (docs/golden.md): Input [2, 2, 2]; Mean [1, 2, 1], Variance [1, 1, 1], Scale [2, 1, 1] and Bias [1, 1, 2] each broadcast on their own (FL 4.0 rules); Spatial FALSE changes nothing. Y = Scale (X - Mean) / sqrt(2) + Bias, rounded once (Python's decimal at 100 digits).",
      "BATCH_NORMALIZATION", bn_desc(T,[2,2,2],[1,2,1],[1,1,1],[2,1,1],[1,1,2],0,spatial=0),
      {"InputTensor": Xb, "MeanTensor": Mn, "VarianceTensor": Vr, "ScaleTensor": Sc, "BiasTensor": Bi},
      {"OutputTensor": bn_expected(T, Xb, Mn, Vr, Sc, Bi, 0, idx)})
# fused relu
write("fused_relu",
      "BnFusedActivation (docs/golden.md): ACTIVATION_RELU after the rounding: -1 -> +0, 1 -> 1, NaN -> +0 (D3D's max drops the NaN, the RELU policy), X = Mean -> +0, 0.5 -> 0.5.",
      "BATCH_NORMALIZATION", bn_desc(T,[1,5],[1,1],[1,1],[1,1],[1,1],0, fa={"Type": "ACTIVATION_RELU"}),
      {"InputTensor": [-1, 1, "nan", -0.0, 0.5], "MeanTensor": [0], "VarianceTensor": [1], "ScaleTensor": [1], "BiasTensor": [0]},
      {"OutputTensor": [0, 1, 0, 0, 0.5]})
# fused leaky relu double rounding
alpha=f32(0.1); xs=[-0.015625, 1]
y1=[rnd(val(F(v),F(3)),T) for v in xs]
outs=[rnd(F(alpha)*F(y1[0]),T), y1[1]]
write("fused_leaky_relu_rounds_twice",
      "BnFusedActivation: ACTIVATION_LEAKY_RELU (Alpha = 0.1 in FLOAT32) applied to the rounded BN value, as the separate operator would: -2^-6 / sqrt(3) rounds to 0xBC13CD3A, then Alpha times it rounds to 0xBA6C7B90, where rounding Alpha (-2^-6 / sqrt(3)) once would give 0xBA6C7B91. A positive value passes unchanged.",
      "BATCH_NORMALIZATION", bn_desc(T,[1,2],[1,1],[1,1],[1,1],[1,1],0, fa={"Type": "ACTIVATION_LEAKY_RELU", "Alpha": 0.100000001490116119384765625}),
      {"InputTensor": xs, "MeanTensor": [0], "VarianceTensor": [3], "ScaleTensor": [1], "BiasTensor": [0]},
      {"OutputTensor": outs})
# training
def tr_desc(dt, ins, st, eps, fa=False):
    d = {"InputTensor": t(dt, ins), "ScaleTensor": t(dt, st), "BiasTensor": t(dt, st)}
    if fa: d["FusedAddTensor"] = t(dt, ins)
    d.update({"OutputTensor": t(dt, ins), "OutputMeanTensor": t(dt, st), "OutputVarianceTensor": t(dt, st), "Epsilon": eps})
    return d
Xs=[F(1),F(2),F(3),F(4)]; mean=sum(Xs)/4; var=sum((x-mean)**2 for x in Xs)/4
write("training_page_example",
      "BnVariance (docs/golden.md): the worked example of the spec digest: X = [1, 2, 3, 4] reduced over every dimension, Scale 2, Bias 0, Epsilon 0: OutputMean 5/2, OutputVariance 5/4 (population, two-pass, without Epsilon), Output 2 (X - 5/2) / sqrt(5/4) = 0xC02BBAE3, 0xBF64F92E, 0x3F64F92E, 0x402BBAE3.",
      "BATCH_NORMALIZATION_TRAINING", tr_desc(T,[1,1,2,2],[1,1,1,1],0),
      {"InputTensor": [1,2,3,4], "ScaleTensor": [2], "BiasTensor": [0]},
      {"OutputTensor": [rnd(val(2*(x-mean),var),T) for x in Xs], "OutputMeanTensor": [2.5], "OutputVarianceTensor": [1.25]})
Xe=[F(0),F(0),F(1)]; me=F(1,3); ve=F(2,9)
write("training_exact_statistics",
      "BnTrainingStatistics (docs/golden.md): X = [0, 0, 1] has mean 1/3 and variance 2/9, neither a FLOAT32. OutputTensor uses the exact statistics: -1/sqrt(2) = 0xBF3504F3 and sqrt(2); with the rounded OutputMean and OutputVariance it would be 0xBF3504F4 for the first two. OutputMean and OutputVariance are 1/3 and 2/9 rounded once.",
      "BATCH_NORMALIZATION_TRAINING", tr_desc(T,[1,1,1,3],[1,1,1,1],0),
      {"InputTensor": [0,0,1], "ScaleTensor": [1], "BiasTensor": [0]},
      {"OutputTensor": [rnd(val(x-me,ve),T) for x in Xe], "OutputMeanTensor": [rnd(me,T)], "OutputVarianceTensor": [rnd(ve,T)]})
fa=[F(1,4),F(-1),F(3),F(1,8)]
write("training_fused_add_exact_sum",
      "BnFusedAdd (docs/golden.md): Output = 2 (X - 5/2) / sqrt(5/4) + 0.5 + FusedAdd summed exactly and rounded once: the first element is -1.9332815408706665, where rounding before adding FusedAdd would give -1.933281660079956.",
      "BATCH_NORMALIZATION_TRAINING", tr_desc(T,[1,1,2,2],[1,1,1,1],0,fa=True),
      {"InputTensor": [1,2,3,4], "ScaleTensor": [2], "BiasTensor": [0.5], "FusedAddTensor": [0.25,-1,3,0.125]},
      {"OutputTensor": [rnd(val(2*(x-mean),var,F(1,2)+a),T) for x,a in zip(Xs,fa)], "OutputMeanTensor": [2.5], "OutputVarianceTensor": [1.25]})
# grads
def g_desc(dt, ins, st, eps):
    return {"InputTensor": t(dt, ins), "InputGradientTensor": t(dt, ins), "MeanTensor": t(dt, st), "VarianceTensor": t(dt, st),
            "ScaleTensor": t(dt, st), "OutputGradientTensor": t(dt, ins), "OutputScaleGradientTensor": t(dt, st),
            "OutputBiasGradientTensor": t(dt, st), "Epsilon": eps}
dy=[F(1),F(0),F(0),F(0)]; V=F(5,4); s=F(2)
def tgrad(mu):
    n=4; mdy=sum(dy)/n; mc=sum(d*(x-mu) for d,x in zip(dy,Xs))/n
    return [rnd(val(s*((d-mdy)-(x-mu)*mc/V),V),T) for d,x in zip(dy,Xs)], [rnd(val(mc*n,V),T)]
ins={"InputTensor": [1,2,3,4], "InputGradientTensor": [1,0,0,0], "MeanTensor": [2.5], "VarianceTensor": [1.25], "ScaleTensor": [2]}
write("grad_page_example",
      "BATCH_NORMALIZATION_GRAD on the spec digest's worked example: Mean 5/2 and Variance 5/4 are constants, dY = [1, 0, 0, 0]: dX = dY 2 / sqrt(5/4) = [1.7888543..., 0, 0, 0], OutputScaleGradient = (1 - 5/2) / sqrt(5/4) = -1.3416408..., OutputBiasGradient = 1.",
      "BATCH_NORMALIZATION_GRAD", g_desc(T,[1,1,2,2],[1,1,1,1],0), ins,
      {"OutputGradientTensor": [rnd(val(d*s,V),T) for d in dy], "OutputScaleGradientTensor": [rnd(val(sum(d*(x-F(5,2)) for d,x in zip(dy,Xs)),V),T)], "OutputBiasGradientTensor": [1]})
g, sg = tgrad(F(5,2))
write("training_grad_page_example",
      "BATCH_NORMALIZATION_TRAINING_GRAD on the spec digest's worked example (Mean and Variance the exact batch statistics): dX = 2 r (dY - 1/4 - (X - 5/2)(-3/8) / (5/4)) = [0.5366563..., -0.7155417..., -0.1788854..., 0.3577708...] (sums to 0 exactly), OutputScaleGradient -1.3416408..., OutputBiasGradient 1.",
      "BATCH_NORMALIZATION_TRAINING_GRAD", g_desc(T,[1,1,2,2],[1,1,1,1],0), ins,
      {"OutputGradientTensor": g, "OutputScaleGradientTensor": sg, "OutputBiasGradientTensor": [1]})
g, sg = tgrad(F(2))
ins2=dict(ins); ins2["MeanTensor"]=[2]
write("training_grad_supplied_mean",
      "BnTrainingGradMean (docs/golden.md): MeanTensor 2 is not the batch mean 5/2. dmlref uses the supplied Mean everywhere: dX = [0.98386991..., -0.44721359..., -0.08944272..., 0.26832816...]; the page's literal mean(Input) in the centring terms would give the batch-statistics result [0.5366563..., -0.7155417..., ...] of training_grad_page_example. OutputScaleGradient = (1 - 2) / sqrt(5/4) = -0.8944271...",
      "BATCH_NORMALIZATION_TRAINING_GRAD", g_desc(T,[1,1,2,2],[1,1,1,1],0), ins2,
      {"OutputGradientTensor": g, "OutputScaleGradientTensor": sg, "OutputBiasGradientTensor": [1]})
write("int8_saturates",
      "IntegerResult (docs/golden.md): INT8, (100 - 0) / sqrt(0.25) = 200 and -200 leave the type's range and saturate to 127 and -128; (3 - 0) / sqrt(0.25) + 1 = 7 stays (Variance 0.25 is not an INT8: Epsilon 0.25 with Variance 0 gives it).",
      "BATCH_NORMALIZATION", bn_desc("INT8",[1,3],[1,1],[1,1],[1,1],[1,3],0.25),
      {"InputTensor": [100, -100, 3], "MeanTensor": [0], "VarianceTensor": [0], "ScaleTensor": [1], "BiasTensor": [0, 0, 1]},
      {"OutputTensor": [127, -128, 7]})
# fused activations (docs/golden.md, BnFusedActivation and the BnActivation* rows): per-element
# statistics, Epsilon 0; the activation of the rounded BN value by Python's decimal (exp, ln at 100
# digits) or exact fractions, rounded once more.
D = Decimal
def fused(name, text, fa, X, V, outs):
    n = len(X)
    write(name, text, "BATCH_NORMALIZATION", bn_desc(T,[1,n],[1,n],[1,n],[1,n],[1,n],0, fa=fa),
          {"InputTensor": X, "MeanTensor": [0]*n, "VarianceTensor": V, "ScaleTensor": [1]*n, "BiasTensor": [0]*n},
          {"OutputTensor": outs})
y3 = rnd(val(F(1), F(3)), T)  # 1/sqrt(3) rounded to FLOAT32: the activations' input
sig = lambda v: 1 / (1 + (-D(v)).exp())
fused("fused_sigmoid",
      "BnFusedActivation, BnActivationExactCases, BnActivationTiny, BnActivationInfinity, BnActivationNaN (docs/golden.md): ACTIVATION_SIGMOID of the rounded BN value: 0 -> 1/2 exactly; -110 -> e^-110 / (1 + e^-110) < 2^-150 -> +0 and -100 -> e^-100 = 2^-144.3 -> the subnormal 27 * 2^-149 (rounded, not flushed); 16 -> 1 - 1.125e-7, nearer 1 - 2^-23 than 1 - 2^-24; 1 / sqrt(0) = +inf -> 1; 0 / 0 = NaN -> NaN; -1 / sqrt(0) = -inf -> 0; 1 / sqrt(3) rounded to 0x3F13CD3A, then sigmoid of that float rounded again (Python's decimal).",
      {"Type": "ACTIVATION_SIGMOID"}, [0, -110, -100, 16, 1, 0, -1, 1], [1, 1, 1, 1, 0, 0, 0, 3],
      [0.5, 0.0, rnd(sig(-100), T), 1 - 2**-23, 1, "nan", 0.0, rnd(sig(y3), T)])
fused("fused_gelu",
      "BnFusedActivation, BnActivationExactCases, BnActivationTiny, BnActivationInfinity (docs/golden.md): ACTIVATION_GELU, 0.5 y (1 + erf(y / sqrt(2))): 0 -> +0 exactly; -20 -> -20 P(N < -20) = -5.5e-88, a negative value below 2^-150 -> -0; 3000 -> 3000 (within 2^-2000 relative); +inf -> +inf; -inf -> +0 (the limit, where -inf * 0 would be NaN); NaN -> NaN.",
      {"Type": "ACTIVATION_GELU"}, [0, -20, 3000, 1, -1, 0], [1, 1, 1, 0, 0, 0],
      [0.0, -0.0, 3000, "inf", 0.0, "nan"])
ln2 = D(2).ln()
sp = lambda v: (1 + (2 * D(v)).exp()).ln() / 2
fused("fused_softplus",
      "BnFusedActivation, BnActivationTiny (docs/golden.md): ACTIVATION_SOFTPLUS with Steepness 2, ln(1 + exp(2 y)) / 2: 0 -> ln(2) / 2; 1 -> ln(1 + e^2) / 2; -100 -> e^-200 / 2 -> +0; 100000 -> 100000 (2 y beyond 2^16: y + a value below 2^-2000); -inf -> +0; 1 / sqrt(3) rounded, then softplus (Python's decimal).",
      {"Type": "ACTIVATION_SOFTPLUS", "Steepness": 2}, [0, 1, -100, 100000, -1, 1], [1, 1, 1, 1, 0, 3],
      [rnd(ln2 / 2, T), rnd(sp(1), T), 0.0, 100000, 0.0, rnd(sp(y3), T)])
celu = lambda v: -2 * ((D(v) / -2).exp() - 1)
fused("fused_celu_negative_alpha",
      "BnActivationCeluAlpha, BnActivationInfinity (docs/golden.md): ACTIVATION_CELU with Alpha -2 (allowed; Alpha 0 is refused): max(0, y) + min(0, -2 (exp(y / -2) - 1)) is y for y >= 0 (3 -> 3, 0 -> +0) and -2 (e^(-y/2) - 1) below 0 (-1 -> -2 (e^0.5 - 1) = -1.2974...); -inf -> -inf (the limit: e^(+inf)); +inf -> +inf.",
      {"Type": "ACTIVATION_CELU", "Alpha": -2}, [3, 0, -1, -1, 1], [1, 1, 1, 0, 0],
      [3, 0.0, rnd(celu(-1), T), "-inf", "inf"])
fused("fused_shrink_negative_threshold",
      "BnActivationShrinkOrder, BnActivationNaN (docs/golden.md): ACTIVATION_SHRINK with Bias 0.25 and Threshold -1: the page's first line that holds: 0 > -1 gives 0 - 0.25 = -0.25; -2 is not > -1, and -2 < 1 gives -2 + 0.25 = -1.75; 0.5 -> 0.25; NaN -> NaN (not the 'otherwise' 0); -inf -> -inf.",
      {"Type": "ACTIVATION_SHRINK", "Bias": 0.25, "Threshold": -1}, [0, -2, 0.5, 0, -1], [1, 1, 1, 0, 0],
      [-0.25, -1.75, 0.25, "nan", "-inf"])
fused("fused_softsign",
      "BnFusedActivation, BnActivationInfinity (docs/golden.md): ACTIVATION_SOFTSIGN, y / (1 + |y|), an exact rational rounded once: 1 -> 1/2; -3 -> -3/4; +inf -> 1 and -inf -> -1 (the limits, where inf / (1 + inf) would be NaN); 1 / sqrt(3) rounded to 0x3F13CD3A, then y / (1 + y) rounded again.",
      {"Type": "ACTIVATION_SOFTSIGN"}, [1, -3, 1, -1, 1], [1, 1, 0, 0, 3],
      [0.5, -0.75, 1, -1, rnd(F(y3) / (1 + F(y3)), T)])
