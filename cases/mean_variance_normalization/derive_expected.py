#!/usr/bin/env python3
"""Independent expected values of the cases in this folder (docs/golden.md, Mean variance
normalization): exact fractions for the mean and the population variance, square roots by Python's
decimal module at 80 digits, one rounding to nearest even in the output format (rn). Writes the
authored cases (inputs and expected Values, no tolerance or policies) to OUT; `dmlref run OUT` must
PASS every one, and `dmlref run OUT -o cases/mean_variance_normalization` gives the bundled goldens
(tolerance, policies and provenance added, values unchanged).

    python3 cases/mean_variance_normalization/derive_expected.py OUT
"""
import json, math, os, sys
from decimal import Decimal as Dd, getcontext
from fractions import Fraction
getcontext().prec = 80

def rn(v, p=24, emin=-126):
    # v: Fraction or Decimal; round to nearest even with p-bit significand
    v=Fraction(v)
    if v==0: return 0.0
    s=-1 if v<0 else 1; a=abs(v)
    e=math.floor(math.log2(a))
    while Fraction(2)**e > a: e-=1
    while Fraction(2)**(e+1) <= a: e+=1
    e=max(e, emin)
    q=a/ (Fraction(2)**(e-p+1))
    n=math.floor(q); r=q-n
    if r>Fraction(1,2) or (r==Fraction(1,2) and n%2==1): n+=1
    return s*float(n*Fraction(2)**(e-p+1))
from fractions import Fraction as F
def r32(v): return rn(v)
def mvn_vals(xs, eps=F(0), use_mean=True, use_var=True, scale=1, bias=0):
    n=len(xs); m=sum(map(F,xs))/n if use_mean else F(0)
    var=sum((F(x)-m)**2 for x in xs)/n
    out=[]
    for x in xs:
        k=F(scale)*(F(x)-m)
        if use_var:
            d=var+F(eps)
            if d==0: out.append("nan" if k==0 else ("inf" if k>0 else "-inf")); continue
            v=Dd(k.numerator)/Dd(k.denominator)/ (Dd(d.numerator)/Dd(d.denominator)).sqrt() + Dd(F(bias).numerator)/Dd(F(bias).denominator)
            out.append(r32(v))
        else:
            out.append(r32(k+F(bias)))
    return out
cases=[]
def case(name, desc, op, d, inputs, expected):
    cases.append((name, {"format":1,"name":"mean_variance_normalization/"+name,"description":desc,"operator":"DML_OPERATOR_"+op,
       "desc":d,"inputs":inputs,"expected":{"OutputTensor":{"Values":expected}}}))
T=lambda s,dt="FLOAT32": {"DataType":dt,"Sizes":s}
# 1 page formula, population variance
case("page_formula_population_variance",
 "MvnVariance (docs/golden.md, Mean variance normalization): the pages' Output = Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias with the population variance: X = 1, 2, 3, 4 over Axes 2 and 3 has Mean 5/2 and Variance 5/4 (divided by 4, not 3), so the values are (X - 5/2) / sqrt(5/4) = -1.3416408, -0.4472136, 0.4472136, 1.3416408, each rounded once. The sample variance 5/3 would give -1.1618950... (the reading of no DirectML page).",
 "MEAN_VARIANCE_NORMALIZATION1", {"InputTensor":T([1,1,2,2]),"OutputTensor":T([1,1,2,2]),"AxisCount":2,"Axes":[2,3],"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[1,2,3,4]}, mvn_vals([1,2,3,4]))
e=F(0.25)
case("epsilon_inside_square_root",
 "MvnEpsilon (docs/golden.md, Mean variance normalization): Epsilon is added to the variance inside the root, as the pages' formula writes: X = 1, 3 has Mean 2 and Variance 1, so with Epsilon 1/4 the values are -+1 / sqrt(5/4) = -+0.8944272 (rounded once). The alternative reading, Epsilon added to the standard deviation (ONNX's MeanVarianceNormalization function body, which an earlier version of the DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC page reproduced), gives -+1 / (1 + 1/4) = -+0.8.",
 "MEAN_VARIANCE_NORMALIZATION1", {"InputTensor":T([2]),"OutputTensor":T([2]),"AxisCount":1,"Axes":[0],"NormalizeVariance":1,"Epsilon":0.25},
 {"InputTensor":[1,3]}, mvn_vals([1,3],e))
case("cross_channel_false_is_per_instance",
 "MvnCrossChannelAxes (docs/golden.md, Mean variance normalization): CrossChannel FALSE normalizes over Height and Width, each batch and channel alone (the DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC page's CrossChannel text). Two batches of one channel, X = 1, 3 | 5, 9: each batch has Variance 1 and 4 about its mean, so -1, 1, -1, 1 exactly. The MVN1 page's remark that Axes {0, 2, 3} is CrossChannel FALSE's would pool both batches (Mean 9/2, Variance 35/4): -1.1832160, -0.5070926, 0.1690309, 1.5212777.",
 "MEAN_VARIANCE_NORMALIZATION", {"InputTensor":T([2,1,1,2]),"OutputTensor":T([2,1,1,2]),"CrossChannel":0,"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[1,3,5,9]}, [-1.0,1.0,-1.0,1.0])
case("cross_channel_true_pools_channels",
 "MvnCrossChannelAxes: CrossChannel TRUE takes the statistics over channels, height and width together: X = 1, 3 | 5, 9 in two channels is one group with Mean 9/2 and Variance 35/4, so (X - 9/2) / sqrt(35/4), rounded once; FALSE would give -1, 1, -1, 1.",
 "MEAN_VARIANCE_NORMALIZATION", {"InputTensor":T([1,2,1,2]),"OutputTensor":T([1,2,1,2]),"CrossChannel":1,"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[1,3,5,9]}, mvn_vals([1,3,5,9]))
case("use_mean_false_is_root_mean_square",
 "MvnUseMean (docs/golden.md, Mean variance normalization): the DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC page says nothing of UseMean (its description reads TBD). dmlref reads UseMean FALSE as Mean 0 throughout, so the variance is the mean square (RMS normalization, what ONNX Runtime's SimplifiedLayerNormalization asks for): X = 1, 7 has mean square 25, so X / 5 = 0.2, 1.4, rounded once. The alternative reading, X not centred but divided by the root of the variance about the mean (9), would give 1/3, 7/3.",
 "MEAN_VARIANCE_NORMALIZATION2", {"InputTensor":T([2]),"OutputTensor":T([2]),"AxisCount":1,"Axes":[0],"UseMean":0,"UseVariance":1,"Epsilon":0},
 {"InputTensor":[1,7]}, mvn_vals([1,7],use_mean=False))
case("use_variance_false_centres_only",
 "UseVariance FALSE (MVN2) as NormalizeVariance FALSE (MVN1's page: Output = FusedActivation(Scale * (Input - Mean) + Bias)): X = 1, 2, 3, 4, Scale 2, Bias 1: 2 (X - 5/2) + 1 = -2, 0, 2, 4, exact; Epsilon (here 1) is unused.",
 "MEAN_VARIANCE_NORMALIZATION2", {"InputTensor":T([1,4]),"ScaleTensor":T([1,1]),"BiasTensor":T([1,1]),"OutputTensor":T([1,4]),"AxisCount":1,"Axes":[1],"UseMean":1,"UseVariance":0,"Epsilon":1},
 {"InputTensor":[1,2,3,4],"ScaleTensor":[2],"BiasTensor":[1]}, [-2.0,0.0,2.0,4.0])
case("zero_variance_without_epsilon",
 "MvnSpecialValues (docs/golden.md, Mean variance normalization): IEEE's rules on the exact formula. The first row, 5, 5, has Variance 0, and with Epsilon 0 each value is 0 / 0: NaN (canonical). The second row, 2, 6, has Mean 4 and Variance 4: -1, 1.",
 "MEAN_VARIANCE_NORMALIZATION1", {"InputTensor":T([2,2]),"OutputTensor":T([2,2]),"AxisCount":1,"Axes":[1],"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[5,5,2,6]}, ["nan","nan",-1.0,1.0])
case("scale_without_bias",
 "MvnScaleBias (docs/golden.md, Mean variance normalization): from DML_FEATURE_LEVEL_5_2 ScaleTensor may come without BiasTensor (Bias 0) and the other way round (Scale 1); before it each requires the other (dmlref validate --feature-level 5.1 says so). X = 1, 3 | 2, 6, each row its own group, normalizes to -1, 1 | -1, 1; Scale 1.5, 0.25 (Sizes 1, 2, broadcast down the rows) gives -1.5, 0.25, -1.5, 0.25, with no Bias.",
 "MEAN_VARIANCE_NORMALIZATION1", {"InputTensor":T([2,2]),"ScaleTensor":T([1,2]),"OutputTensor":T([2,2]),"AxisCount":1,"Axes":[1],"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[1,3,2,6],"ScaleTensor":[1.5,0.25]}, [-1.5,0.25,-1.5,0.25])
case("large_offset_exact_statistics",
 "MvnVariance: the statistics are exact, so a large common offset changes nothing: X = 1000.5, 1001, 1001.5, 1002 has Mean 1001.25 and Variance 5/16, and the values equal those of X = 1, 2, 3, 4 (page_formula_population_variance). A float32 backend computing E[X^2] - E[X]^2 loses most of the variance's bits to cancellation here; docs/tolerance.md, Mean variance normalization, bounds that form too.",
 "MEAN_VARIANCE_NORMALIZATION1", {"InputTensor":T([1,4]),"OutputTensor":T([1,4]),"AxisCount":1,"Axes":[1],"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[1000.5,1001,1001.5,1002]}, mvn_vals([1000.5,1001,1001.5,1002]))
case("fused_relu_after_rounding",
 "BnFusedActivation: the fused activation takes the rounded normalized value, as BATCH_NORMALIZATION's: X = 1, 2, 3, 4 over one group with ACTIVATION_RELU: 0, 0, 0.4472136, 1.3416408.",
 "MEAN_VARIANCE_NORMALIZATION", {"InputTensor":T([1,1,2,2]),"OutputTensor":T([1,1,2,2]),"CrossChannel":1,"NormalizeVariance":1,"Epsilon":0,"FusedActivation":{"Type":"ACTIVATION_RELU"}},
 {"InputTensor":[1,2,3,4]}, [0.0,0.0]+mvn_vals([1,2,3,4])[2:])
case("float16_rounded_once",
 "ComputedValue in FLOAT16: X = 1, 2, 3, 4, Mean 5/2, Variance 5/4: -1.3417969, -0.4472656, 0.4472656, 1.3417969 (0xBD5E, 0xB728, 0x3728, 0x3D5E), the exact values rounded once to FLOAT16, not through FLOAT32.",
 "MEAN_VARIANCE_NORMALIZATION1", {"InputTensor":T([4],"FLOAT16"),"OutputTensor":T([4],"FLOAT16"),"AxisCount":1,"Axes":[0],"NormalizeVariance":1,"Epsilon":0},
 {"InputTensor":[1,2,3,4]}, [rn((Dd(x)-Dd('2.5'))/Dd('1.25').sqrt(),11,-14) for x in [1,2,3,4]])
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, c in cases:
    open(os.path.join(out, name+'.json'),'w').write(json.dumps(c, indent=2)+'\n')
