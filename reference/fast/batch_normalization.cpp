// The fast paths of BATCH_NORMALIZATION, _TRAINING, _GRAD and _TRAINING_GRAD (batch_normalization.hpp):
// FLOAT32 and FLOAT16 data. docs/golden.md ("How batch normalization's golden is computed") sums up
// why each element is the plain loop's bits; the derivations are here.
//
// Element i is V = s (x - m) D^(-1/2) + b with D = v + Epsilon (x, m, v, s, b the element's
// InputTensor, MeanTensor, VarianceTensor, ScaleTensor and BiasTensor values, each statistic
// broadcast on its own), rounded once to T, then the fused activation applied to that rounded
// value (BnFusedActivation). u = 2^-53; fl() is a float64 operation, correctly rounded (+, -, *, /
// and sqrt only: no libm). Every FLOAT32 or FLOAT16 value, and Epsilon (a finite FLOAT32), is a
// double, a multiple of 2^-149 below 2^128 in magnitude. While every operand is finite:
//   1. D~ = fl(v + Epsilon) = D (1 + d1), |d1| <= u: the exact D is a multiple of 2^-149 below
//      2^129, so it is 0 or a normal double's neighbourhood (no underflow), and D~ has D's sign
//      (a rounding keeps the sign and gives 0 only for an exact 0). D~ <= 0 (D <= 0: sqrt of a
//      negative, K / 0) and a non-finite D~ take the plain element (step 7).
//   2. r~ = fl(1 / fl(sqrt(D~))) = D^(-1/2) (1 + d3) / ((1 + d1)^(1/2) (1 + d2)); D in
//      [2^-149, 2^129] puts r in [2^-64.5, 2^74.5], normal. Computed once per VarianceTensor element.
//   3. sr~ = fl(s r~) = s r~ (1 + d4) (once per run where s and r are constant), d~ = fl(x - m) =
//      (x - m)(1 + d5), t~ = fl(sr~ d~): |s r~| is 0 (s = 0) or in [2^-213.5, 2^202.5], x - m is 0
//      or in [2^-149, 2^129] in magnitude, so t~ is 0 exactly when t = s (x - m) D^(-1/2) is, and
//      otherwise |t| is in [2^-363, 2^332]: every step normal.
//   4. t~ = t (1 + d3)(1 + d4)(1 + d5)(1 + d6) / ((1 + d1)^(1/2) (1 + d2)): |t~ - t| <= theta |t| with
//      theta = (1 + u)^4 / (1 - u)^(3/2) - 1 = 5.5 u + O(u^2) < 6 u, so |t~ - t| <= 6 u |t~| / (1 - 6 u).
//   5. y~ = fl(t~ + b): |y~ - (t~ + b)| <= u |t~ + b| <= u |y~| / (1 - u) (a sum in float64's
//      subnormal range is exact).
//   6. |y~ - V| <= u |y~| / (1 - u) + 6 u |t~| / (1 - 6 u) <= E = u (1 + 2^-49) (|y~| + 6 |t~|).
//   7. The interval. y0 = y~ + 0 (a -0 becomes +0). t~ = 0 (s = 0 or x = m) makes y~ = b + +-0 = V
//      exactly: w = 0 (b = +-0 gives y0 = +0, the plain loop's exact zero). Otherwise
//      w = fl(fl(fl(|t~| C1) + fl(|y~| C2)) + 2^-1072), C1 = 6 2^-53 (1 + 2^-40), C2 = 2^-52 (1 + 2^-40)
//      (both exact doubles), lo = fl(y0 - w), hi = fl(y0 + w). A rounding moves y0 -+ w by at most
//      u |y0 -+ w| + 2^-1075 (below the normal range), so lo <= y~ - E and hi >= y~ + E, [lo, hi]
//      holds V, when w (1 - u) >= E + u |y~| + 2^-1075; and w (1 - u) >= (1 - u)^4 (1 + 2^-40)
//      (6 u |t~| + 2 u |y~|) + (1 - u)^2 2^-1072 >= (1 + 2^-41)(6 u |t~| + 2 u |y~|) + 2^-1073, which
//      is more. An end at 0 is +0 (y0 - w and y0 + w are never -0).
//      test/test_fast_batch_normalization.cpp checks theta < 6u ((1 + u)^8 < (1 + 6u)^2 (1 - u)^3),
//      1 / (1 - u) and 6 / (1 - 6u) within (1 + 2^-49), and (1 - u)^4 (1 + 2^-40) >= 1 + 2^-41 in
//      exact rationals, and that estimates stay within w of the exact value.
//   8. The decision, as fast/decide.hpp's: rounding to T is monotone, so when lo and hi round to the
//      same bits every real between them does, V among them, and those bits are the golden's. FLOAT32:
//      lo and hi converted to float. FLOAT16: as rounds_to_one, through FLOAT32 (see decide_one; with F16C,
//      decide8, which also decides a float on a FLOAT16 midpoint from the ends' side of it).
//      A NaN or infinite operand makes y~ or w NaN or infinite (t~ is non-finite whenever x, m or s
//      is; b = +-inf makes y~ infinite), and D~ <= 0 or a non-finite D~ makes r~ NaN by
//      construction: all undecided. Every undecided element (V on or within about 2^-50 relative of
//      a rounding boundary or tie of T: a perfect-square D can put V on a tie) takes the plain
//      loop's element, batch_normalization_element (exact rationals and Ziv's loop,
//      reference/batch_normalization.cpp), fused activation included.
//   9. The fused activation of a decided element is applied to its rounded value, as the plain
//      loop does: RELU inline (y > 0 ? y : +0; a decided y is never NaN), every other one through
//      the plain loop's own fused_activation (reference/fused_activation.cpp); for FLOAT16, whose
//      65,536 values can all occur, each value's activation is computed once per call and kept.
//  F1. On a run of constant statistics (per-channel statistics), FLOAT32: a first stage with one half-width W for a
//      whole chunk in place of each element's w (as step G5 below). With xm the chunk's largest |x| (a float; the
//      largest of |x|'s bits), rounding is monotone and odd (fl(-e) = -fl(e)), so every element has |fl(x - m)|
//      <= fl(xm + |m|), |t~| = fl(|sr~| |fl(x - m)|) <= Tm = fl(|sr~| fl(xm + |m|)) and |y~| = fl(|t~ + b|) <= Ym =
//      fl(Tm + |b|). Step 7's w is a sum and products of nonnegative values, each rounded, so it grows with |t~|
//      and |y~|: W = fl(fl(fl(Tm C1) + fl(Ym C2)) + 2^-1072) (forward_width) is at least every element's w (0
//      where t~ = 0). So fl(y~ - W) <= fl(y0 - w) and fl(y~ + W) >= fl(y0 + w) (y0 differs from y~ only for
//      y~ = -0, where y~ -+ W and y0 -+ W are the same values): [fl(y~ - W), fl(y~ + W)] holds V, and where both
//      ends round to one float that float is the golden (step 8). A y~ of +-0 gives ends of both signs:
//      undecided. The stage runs only where xm is finite and W < 2^900 (false for a NaN or an infinite m, sr~ or
//      b, so for D <= 0); then |y~| <= Ym < 2^900 / C2, and y~ -+ W are finite. The elements it leaves take steps
//      3 to 8 with their own w, then the plain element. On random data W is about 8 double ulps of the chunk's
//      largest |y~|, against float spacings of 2^29 ulps: few elements are left. test/test_fast_batch_normalization.cpp
//      puts y~ and V 2 to 4.5 ulps below midpoints (W at least 6 ulps: both stages must leave them) and small
//      elements beside a large one (the first stage leaves them, the second decides them).
//
// BATCH_NORMALIZATION_TRAINING. Statistics element k has the M elements X_i of its reduced set;
// mean = sum X_i / M, var = sum (X_i - mean)^2 / M (exact), and each OutputTensor element is
// V = s (x - mean) (var + Epsilon)^(-1/2) + b + f (f the FusedAdd element, 0 without one).
//  T1. The moments exactly: X = m 2^(e - 150) with an integer m < 2^24, so sum X and sum X^2 (X^2 =
//      m^2 2^(2e - 300), exact) are integer sums in bins by e (Moments), exact in any order (FLOAT16:
//      X 2^24 is an integer below 2^41, summed in one int64, its square in 128 bits). A NaN
//      or an infinity in X: the whole operator takes the plain loop. With S = sum X and Q = sum X^2,
//      mean = S / M and var = (M Q - S^2) / M^2 exactly (sum (X - mean)^2 = Q - S^2 / M); OutputMean
//      and OutputVariance are them rounded once, as the plain loop's.
//  T2. Per k: mu~ = RN(mean), |mu~ - mean| <= u |mean| <= u (1 + 2u) |mu~|; D~ = RN(var + Epsilon) (the
//      sign decided exactly: D <= 0 makes r~ NaN, the plain element), so D~ = D (1 + d1) as in
//      step 1; r~ and sr~ = fl(s r~) as in steps 2 and 3 (var >= 2^-418 unless 0, mean 0 or at least
//      2^-209 for M < 2^60: all in float64's normal range, as is every step below).
//  T3. t~ = fl(sr~ fl(x - mu~)) = (t - eta)(1 + theta') with t = s (x - mean) D^(-1/2), |theta'| < 6u as
//      in step 4, and eta = s D^(-1/2) (mu~ - mean), |eta| <= u (1 + 8u) |sr~| |mu~| (|s D^(-1/2)| <=
//      |sr~| (1 + 5u)): |t~ - t| <= 6u (1 + 2^-50) |t~| + |eta|. bf = fl(b + f), within u |bf| / (1 - u)
//      of b + f (exact without a FusedAdd); y~ = fl(t~ + bf) within u |y~| / (1 - u) of t~ + bf.
//  T4. So |y~ - V| <= E = u (1 + 2^-49)(|y~| + |bf| + 6 |t~| + |sr~| |mu~|). The run's constant
//      A = fl(fl(|sr~| |mu~|) 2^-53 (1 + 2^-39)) and w = fl(fl(fl(fl(|t~| C1) + fl(|y~| C2)) +
//      fl(|bf| C4)) + A) + 2^-1072, C4 = 2^-53 (1 + 2^-40): each term passes at most six roundings
//      counting w (1 - u), (1 - u)^6 (1 + 2^-40) >= 1 + 2^-41 and (1 - u)^6 (1 + 2^-39) >= 1 + 2^-40 for
//      A, so w (1 - u) >= E + u |y~| + 2^-1075 as in step 7, and [fl(y~ - w), fl(y~ + w)] holds V.
//      (No exact shortcut for x = mu~: mu~ is not the mean.)
//  T5. Steps 8 and 9 as for the forward; the plain element is batch_normalization_training_element,
//      from the exact mean and variance of T1. test/test_fast_batch_normalization.cpp checks the
//      estimates against MPFR with the batch mean a third, x next to it.
//  T6. FLOAT16 X on runs of constant statistics: T2's constants, OutputMean and OutputVariance from integers
//      (half_training_constants), the rationals formed only for a channel with a plain element. S 2^24 = s and
//      Q 2^48 = q are integers (every FLOAT16 is a multiple of 2^-24), |s| < 2^62 and q < 2^104 (M < 2^22, |X| <
//      2^16), so N = M q - s^2 (an exact 128-bit integer, below 2^126) gives mean = s / (M 2^24) and var = N /
//      (M^2 2^48). quotient_rn(n, D, e) is RN53(n 2^e / D) exactly: step C3's long division
//      (reference/fast/batch_normalization_channel.cpp), the integer quotient's bits below its top 53 compared
//      with half their weight, the remainder breaking an exact half (round to nearest even), for a result 0 or
//      normal, which it is here (|mean| >= 2^-46, var >= 2^-92 unless 0). So mu = RN53(mean) and v = RN53(var)
//      exactly. A format of p <= 24 bits has its values and their midpoints among the doubles, and RN53 is
//      monotone, so RN53(z) lies on the same side of each of them as z, or on one: RNp(RN53(z)) = RNp(z)
//      unless RN53(z) is a midpoint of the format (is_midpoint; FLOAT16's midpoints include 65520, the overflow threshold, and the odd multiples of
//      2^-25 below 2^-14). Where none of mu (FLOAT32 and FLOAT16) and v (FLOAT16) is one, mu32 = RN24(mean),
//      OutputMean = RN16(mean) and OutputVariance = RN16(var) are their conversions; otherwise, or for Epsilon < 0,
//      D = 0 or integers too wide, T2 takes the channel in rationals. D~ = RN53(var + Epsilon) likewise: Epsilon
//      = e 2^k with an integer e < 2^24, var + Epsilon = (N 2^g1 + e M^2 2^g2) / (M^2 2^(48 + g1)) with g1 =
//      max(0, -(k + 48)) and g2 = max(0, k + 48), where both terms stay below 2^125. Then r~, sr~ and A as T2
//      computes them: the same doubles, and the same bits everywhere.
//
// BATCH_NORMALIZATION_GRAD (Mean and Variance given). OutputBiasGradient = sum dY and
// OutputScaleGradient = r sum dY (X - Mean) = r (sum dY X - Mean sum dY): dY X, a product of two
// floats, is an exact double (48 significant bits), so both sums are exact integer sums in bins by
// exponent as in T1 (GradSums), rounded once (the scale gradient through the plain loop's own
// K r rounding, batch_normalization_scale_gradient, once per statistics element), unless step G0
// decides them first:
//  G0. k = mpq_get_d(sum), the exact sum truncated to float64 (from its integer, step C2 of
//      reference/fast/batch_normalization_channel.cpp, which gives the same k): |k - sum| <= 2u |sum| (53 bits; sum is 0
//      or at least 2^-298 and below 2^300 in magnitude: normal). Bias: p = k, w = fl(|p| 2^-51) = 4u |p|
//      (exact); then lo = fl(p - w) is at most p - w + u |p - w| <= p - (3u - 4u^2) |p| <= sum (|p - sum|
//      <= 2u |sum| <= 2u |p| / (1 - 2u)), and likewise hi >= sum. Scale: p = fl(k r~) with r~ of step 2,
//      p = V (1 + theta), |theta| <= (1 + 2u)(1 + u)^2 / (1 - u)^(3/2) - 1 < 6u, and w = fl(|p| 2^-50) =
//      8u |p|: fl(p -+ w) moves p by at least (7u - 8u^2) |p| >= 6u |p| / (1 - 6u) >= |p - V|. Step 8
//      decides [lo, hi] (r~ NaN: undecided). A zero sum, a decided zero and an undecided value take the
//      plain loop's rounding (round_rational, batch_normalization_scale_gradient). A NaN or an
// infinity in X, dY or Mean sends the operator to the plain loop. OutputGradient = dY Scale r is
// the forward's steps 1 to 9 with x = dY, m = 0, b = 0 (t~ = 0 only for dY = 0 or Scale = 0: the
// exact zero, +0), its undecided elements batch_normalization_grad_element; on runs of constant
// statistics a first stage decides most elements from y~ alone (G4, G6; FLOAT16: H6). With AVX-512, one pass
// writes OutputGradient and takes float64 sums that decide the two statistics without the exact sums (G8, G9).
//
// BATCH_NORMALIZATION_TRAINING_GRAD: the same sums and the same two statistics outputs; dX = s r I
// with I = dY - a - (X - Mean) c, a = sum dY / M and c = sum dY (X - Mean) / (M D) exact rationals.
//  G1. a~ = RN(a), c~ = RN(c) per statistics element (D <= 0 or a non-finite Variance: r~ NaN, the
//      plain element), by integer division where it fits (step C3 of batch_normalization_channel.cpp: the
//      same doubles), otherwise from the rationals. h = fl(dY - a~) is within u (|h| + |a~|) / (1 - u) of dY - a; q = fl(fl(X - Mean)
//      c~) within 3u (1 + 2^-50) |q| of (X - Mean) c (three relative roundings); g = fl(h - q) within
//      u |g| / (1 - u) of h - q: |g - I| <= u (1 + 2^-49) G, G = |g| + |h| + |a~| + 3 |q|.
//  G2. z = fl(sr~ g) = s D^(-1/2) g (1 + theta), |theta| < 5u (the roundings of steps 1 to 3 and the
//      product; two under the root), so with |s D^(-1/2)| <= |sr~| (1 + 5u),
//      |z - V| <= u (1 + 2^-48) |sr~| G + 5u (1 + 2^-50) |z|. Values may reach float64's subnormal range
//      here (c~ small, g cancelling): each rounding there errs by at most 2^-1075 absolutely.
//  G3. |z| <= (1 + u) |sr~| |g| + 2^-1075, so 5u (1 + 2^-50) |z| plus the rounding of z0 -+ w (u |z0|) is at most
//      u (1 + 2^-48) 6 |sr~| |g| + 2^-1070, and |z - V| + u |z0| <= u (1 + 2^-48) |sr~| G' + 2^-1070 with
//      G' = 7 |g| + |h| + 3 |q| + |a~|. w = fl(fl(G~ K1) + K2) + 2^-1068, G~ = fl(fl(fl(7 |g|) + |h|) + fl(3 |q|)),
//      and the run's constants K1 = fl(|sr~| 2^-53 (1 + 2^-40)) and K2 = fl(fl(|sr~| |a~|) 2^-53 (1 + 2^-40)):
//      each term passes at most eight roundings counting w (1 - u), (1 + 2^-40)(1 - u)^9 > 1 + 2^-48, and
//      2^-1068 covers 2^-1070 and the absolute errors of subnormal steps (values may reach float64's
//      subnormal range here: c~ small, g cancelling; each rounding there errs by at most 2^-1075). Then
//      step 8.
//      test/test_fast_batch_normalization.cpp checks the estimates against MPFR.
//  G4. BATCH_NORMALIZATION_GRAD's OutputGradientTensor on a run of constant statistics (FLOAT32): a first stage
//      decides from y~ = fl(sr~ dY), steps 3 and 4 with x = dY and m = 0 (x - m exact), and one half-width W for
//      the whole chunk. |y~ - V| <= theta |V| with theta < 6u, so |y~ - V| <= theta |y~| / (1 - theta) < 6u (1 +
//      2^-49) |y~| (V = 0 exactly when y~ = +-0: dY or Scale 0). The sums' pass keeps the chunk's largest |dY|,
//      dm (a float), and |y~| = fl(|sr~| |dY|) <= Y = fl(|sr~| dm) (rounding is monotone). W = fl(Y C), C = 7u (1 +
//      2^-45) (an exact double), is at least 7u (1 + 2^-45)(1 - u) |y~| (Y C is 0 or at least 2^-416, normal:
//      |sr~| >= 2^-213.5 and dm >= 2^-149 unless 0). With y0 = y~ + 0, lo = fl(y0 - W) <= y0 - W + u (|y0| + W):
//      lo <= V when W (1 - u) >= 6u (1 + 2^-49) |y~| + u |y~|, which holds as 7 (1 + 2^-45)(1 - u)^2 >= 7 (1 +
//      2^-49); likewise hi = fl(y0 + W) >= V. Where lo and hi round to one float it is the golden (step 8). A
//      zero y~ gives y0 = +0: W = 0 (all of the chunk's dY, or Scale, 0) makes lo = hi = +0, the plain loop's
//      exact zero; W > 0 leaves it (ends of both signs). The stage runs where W < 2^900 (false for a NaN or an
//      infinite sr~ or dm); then |y~| <= Y < 2^900 / C and lo, hi are finite. The elements it leaves take steps
//      5 to 8 (the float64 interval with the element's own w), then the plain element. On random data W is 3.5
//      double ulps of the chunk's largest |y~|, against float spacings of 2^29 ulps: few elements are left.
//      test/test_fast_batch_normalization.cpp puts y~ and V 2.5 to 4.5 ulps below a midpoint with W above that
//      and checks that this stage leaves every such element.
//
//  G5. BATCH_NORMALIZATION_TRAINING_GRAD's OutputGradientTensor on a run of constant statistics (FLOAT32): a first
//      stage with one half-width W for a whole chunk in place of each element's w. The sums' pass keeps each
//      chunk's largest |dY| and |X|, dm and xm (floats). Rounding is monotone and odd (fl(-e) = -fl(e)), so every
//      element of the chunk has |h| = fl(|dY - a~|) <= Hm = fl(dm + |a~|), |fl(X - Mean)| <= fl(xm + |Mean|),
//      |q| = fl(|fl(X - Mean)| |c~|) <= Qm = fl(fl(xm + |Mean|) |c~|) and |g| = fl(|h - q|) <= Gm = fl(Hm + Qm).
//      G3's G~ and w are sums and products of nonnegative values, each rounded, so they grow with |g|, |h| and
//      |q|: W, the same expression of Gm, Hm and Qm (training_grad_width), is at least every element's w. Then
//      fl(z0 - W) <= fl(z0 - w) and fl(z0 + W) >= fl(z0 + w), so [fl(z0 - W), fl(z0 + W)] holds V (G3), and
//      where both ends round to one float that float is the golden (step 8). z0 = z + 0 differs from z only for
//      z = -0, where z -+ W and z0 -+ W are the same values: the stage takes z. A z of 0 gives ends -W and W,
//      whose floats differ in sign: undecided. The stage runs only where W < 2^900 (false for a NaN r~, so for
//      D <= 0); then every operand is finite (dY, X and Mean are, or the plain loop takes the operator; |a~| <=
//      max |dY|; |c~| < 2^406 as D >= 2^-149), K1 >= |sr~| 2^-53 (a normal product by a power of two), so
//      |sr~ g| <= 2^53 fl(Gm K1) (1 + u) <= 2^54 W < 2^954: z and z -+ W are finite, and step 8 needs no
//      other check. The elements the stage leaves take G1 to G3 and step 8, then the plain element. On random
//      data W is a few units of |sr~| 2^-53 against z's float spacing of about |z| 2^-24: nearly every element
//      is decided here. test/test_fast_batch_normalization.cpp puts z and V 2.5 to 4.5 ulps below midpoints
//      (W about 8 ulps: this stage and G3's must leave them), and small elements beside a large one (W several
//      float spacings of their z, their own w far less: this stage leaves them, G3's decides them).
//  G6. What runs in place of G4 where the chunk allows it (grad_bits_f32; sixteen lanes at a time where the machine
//      has AVX-512, grad_bits_avx512): a decision from y~'s own bits, with no width, as H6 does for FLOAT16. As in G4,
//      y~ = fl(sr~ dY) is 0 or normal (step 3), V = 0 exactly where y~ = +-0, and otherwise |y~ - V| < 6u (1 + 2^-49)
//      |y~|. Let y~ != 0 lie in the binade [2^e, 2^(e+1)), where doubles are U = 2^(e-52) apart: |y~ - V| < 12u (1 +
//      2^-49) 2^e = 6 (1 + 2^-49) U. For e >= -126, FLOAT32's rounding boundaries in that binade are its midpoints
//      2^e + (k + 1/2) 2^(e-23), the doubles whose 29 bits below a float's last (L: the low 29 bits of the
//      significand, the same for y~ and -y~) are 2^28; the last of binade 127 is 2^128 - 2^103, the overflow
//      threshold (rounding to nearest sends what lies above it to infinity, as the golden's rounding does). The
//      boundaries outside the binade lie at least 2^(e-25) below 2^e (binade e - 1's midpoints, or below 2^-126 the
//      subnormal floats' odd multiples of 2^-150) and 2^(e-23) above 2^(e+1): at least 2^27 U from y~. So where L
//      lies outside [2^28 - 8, 2^28 + 7] (y~'s bits less 2^28 - 8, masked to bits 4 to 28, not all zero: kNearMask)
//      no boundary lies within 8 U of y~; V, within 6 (1 + 2^-49) U < 7 U of it, lies on the same side of every
//      boundary, and y~ rounded to float by the conversion (to nearest) is V's rounding, the golden. For e >= 128
//      both y~ and V (> y~ (1 - 7u) > 2^128 - 2^103) round to an infinity of y~'s sign. y0 = y~ + 0 makes a zero
//      +0: L = 0, decided, and the conversion gives +0, the plain loop's exact zero. The condition e >= -126 holds
//      for every nonzero y~ of the chunk where fl(|sr~| lf) >= 2^-126, lf the chunk's least nonzero |dY| (a float,
//      kept by the sums' pass beside the largest): |y~| = fl(|sr~| |dY|) >= fl(|sr~| lf) (rounding is monotone).
//      The stage runs where that holds (or every dY is +-0) and |sr~| <= 2^1000 (false for a NaN sr~, so for D <=
//      0, and for an infinite Scale; dY is finite, or the plain loop takes the operator), grad_bits_apply; other
//      chunks take G4. The elements it leaves take steps 5 to 8, then the plain element, as G4's. Per element it
//      takes no width, one conversion in place of two and an integer add and test in place of a compare: on
//      random data it leaves an element with probability 2^-25 (16 of the 2^29 values of L), G4 about as few.
//      test/test_fast_batch_normalization.cpp puts y~ 2 to 11 ulps below midpoints and counts the elements this
//      stage decides against L computed apart, puts y~ exactly on FLOAT32 midpoints with V below them (D~ = 4 <
//      D), normal (L = 2^28: left) and subnormal (L = 0: only the chunk condition keeps the stage off), and runs
//      the tests with G4 forced (batch_normalization_grad_width).
//  G7. BATCH_NORMALIZATION_TRAINING_GRAD's first stage where the machine has AVX-512 (training_grad_fused_avx512,
//      sixteen elements at a time; a run's last n % 16 elements take G5), in place of G5: V = P I regrouped as
//      V = P dY - P c X + P (c m - a) (m the Mean), evaluated with two fused multiply-adds, each rounded once to
//      nearest: t = fl(K0 - K X), z = fl(sr~ dY + t), with the run's constants (fused_run) K = fl(sr~ c~), e1 =
//      fl(fl(c~ m) - a~) and K0 = fl(sr~ e1). Ranges: a = sum dY / M and c = sum_c / (M D) are 0 or at least 2^-187
//      and 2^-465 in magnitude (sums of multiples of 2^-149 and 2^-298, M < 2^38, D < 2^129), so a~ and c~ are 0
//      or normal; K is 0 or at least 2^-679, c~ m 0 or at least 2^-614 (normal), e1 a rounded difference (within
//      u |e1|: a difference in the subnormal range is exact); |sr~| <= 2^202.5, |c~| < 2^406, |m|, |a~| < 2^128, so
//      every constant and product is finite. K0, t and z may be subnormal: each such rounding errs by at most
//      2^-1075 absolutely. Steps 1 to 3 give sr~ = P (1 + theta), |theta| < 4u, so |sr~ - P| <= 4u (1 + 2^-50)
//      |sr~|; with |c~ - c| <= u (1 + u) |c~|, |K - P c| <= |K - sr~ c~| + |sr~| |c~ - c| + |sr~ - P| |c| <= 6u (1 +
//      2^-48) |K|. P (c m - a) - K0 = P (c m - a - e1) + (P - sr~) e1 + (sr~ e1 - K0), |c m - a - e1| <= u (2 + u)
//      |c~| |m| + u (1 + u) |a~| + u |e1|, so |K0 - P (c m - a)| <= E = u (1 + 2^-48) |sr~| (6 |e1| + 2 |c~| |m| +
//      |a~|) + 2^-1075. Then z - V = (z - (sr~ dY + t)) + (sr~ - P) dY + (t - (K0 - K X)) + (K0 - P (c m - a)) -
//      (K - P c) X, and |z - V| <= u |z| + u |t| + 4u (1 + 2^-50) |sr~| |dY| + 6u (1 + 2^-48) |K| |X| + E +
//      2^-1074. As in G4, lo = fl(z - W) <= V and hi = fl(z + W) >= V when W (1 - u) >= |z - V| + u |z| + 2^-1075.
//      The chunk's max |dY| and |X| (dm, xm) bound every element: Sd = fl(|sr~| dm), Kx = fl(|K| xm), Tm = fl(Kx +
//      |K0|) and Zm = fl(Sd + Tm) give |t| <= Tm (1 + u) / (1 - u)^2 + 2^-1075 and |z| <= Zm (1 + u)^2 / (1 - u)^4
//      + 2^-1074, and W = fl(fl(fl(fl(fl(2 Zm + Tm) + 4 Sd) + fl(6 Kx)) C) + E0) + 2^-1068 (fused_width), C = 2^-53
//      (1 + 2^-40) and E0 = fl(fl(fl(fl(6 |e1|) + fl(3 fl(|c~| |m|))) + fl(2 |a~|)) fl(|sr~| C)) (3 and 2 for 2 (1 +
//      u) and 1 + u): each term passes at most twelve roundings, (1 + 2^-40)(1 - u)^13 > (1 + 2^-48)(1 + u)^2 and
//      2^-1068 covers the absolute terms, including those of products below float64's normal range in W and E0.
//      The stage runs where W < 2^900 (false for a NaN sr~, so for D <= 0; dY, X and Mean are finite, or the plain
//      loop takes the operator); then z -+ W are finite. z = +-0 gives ends -W and W: undecided. Where both ends
//      round to one float, that float is the golden (step 8); the elements left take G1 to G3, then the plain
//      element. Per element, two fused multiply-adds in place of G5's five operations; W is about as wide as
//      G5's. test/test_fast_batch_normalization.cpp runs the training grad's tests with G5 forced too (the
//      four-lane sums), and checks z and W against exact values with dm = |dY|, xm = |X|.
//
//  G8. BATCH_NORMALIZATION_GRAD (FLOAT32) where the machine has AVX-512 (grad_pass_avx512), in place of steps S1 to
//      S3, G0 and G6, where the statistics are constant along the inner run, dY, X and OutputGradient are contiguous
//      there and OutputGradient meets no input (element_sums): one pass over a statistics element's chunks writes
//      OutputGradient and takes float64 sums of dY and of dY X, from which step G9 decides OutputBiasGradient and
//      OutputScaleGradient; only an element G9 leaves takes S1 to S3 and G0 (its outputs are already written).
//      Outputs: y0 = fl(sr~ dY + 0), one fused multiply-add (sr~ dY rounded once, a -0 made +0: G6's y0), decided as
//      G6 decides it, with G6's chunk condition fl(|sr~| lf) >= 2^-126 replaced per element: an element with 0 <
//      |dY| < tau is left, tau a float with fl(|sr~| tau) >= 2^-126 (grad_pass_threshold), so every other nonzero
//      dY has |y~| = fl(|sr~| |dY|) >= fl(|sr~| tau) >= 2^-126 (rounding is monotone): G6's e >= -126. dY = +-0
//      gives y0 = +0 = V. The pass runs where |sr~| <= 2^1000 (G6's other condition; false for a NaN sr~) and such
//      a tau exists (sr~ = 0: tau = 2^-149, which no nonzero |dY| lies below; every y0 is then +0 = V). The
//      elements it leaves take steps 3 to 8, then the plain element. Sums: each term, a float dY or the product
//      of two floats, is an exact double; the pass adds them in sixteen lanes per sum (two registers of eight), a
//      chunk's last n % 16 terms with zeros beside them, its steps of sixteen terms (at most 256 in a chunk of n <=
//      4096) in blocks of sixteen, each block summed into zeroed lanes and then added to the lanes' totals, then the
//      two registers and the eight lanes pairwise: each term passes at most 16 + 16 + 1 + 3 = 36 additions (chunk16); the chunks' sums are
//      then added in task order, one addition per chunk (c chunks): at most d = 36 + c < 2^39 in all (c <= M < 2^38). Every partial sum is a
//      multiple of 2^-149 (dY) or 2^-298 (products) below 2^166 or 2^294 in magnitude: none overflows, and a sum
//      in float64's subnormal range is exact. So each term is multiplied by at most d factors (1 + delta), |delta|
//      <= u (Higham, Accuracy and Stability of Numerical Algorithms, section 4.2): the pass's b and p have |b -
//      sum dY| <= gamma_d sum |dY| <= gamma_d M dm and |p - sum dY X| <= gamma_d M dm xm, gamma_d = d u / (1 - d
//      u), dm and xm the element's largest |dY| and |X| (the lanes' maxima of the floats' bits, sign cleared). A
//      NaN or an infinity makes dm or xm at least 0x7f800000: the exact sums then find it (the plain loop).
//  G9. The statistics from b and p (pass_statistics). b, q = fl(Mean b) and p are 0 or multiples of 2^-149, 2^-298
//      and 2^-298 at least that in magnitude, so every value below is 0 or normal (|fl(e) - e| <= u |fl(e)|, and a
//      product by a power of two is exact). g = fl(d 2^-53 (1 + 2^-12)) >= gamma_d (d u < 2^-14), dB =
//      fl(fl(fl(M dm) g) (1 + 2^-30)) >= (1 + 2^-31) gamma_d M dm and dP = fl(fl(fl(fl(M dm) xm) g) (1 + 2^-30)) >= (1
//      + 2^-31) gamma_d M dm xm (at most four roundings: (1 - u)^4 (1 + 2^-30) >= 1 + 2^-31). OutputBiasGradient is RN(B), B = sum dY: with
//      wB = fl(dB + |b| 2^-51) >= (1 - u)(dB + 4u |b|), lo = fl(b - wB) <= b - (1 - u) wB + u |b| <= b - (1 - u)^2
//      dB <= b - gamma_d M dm <= B, and likewise hi = fl(b + wB) >= B. OutputScaleGradient is RN(C r), C = sum dY X - Mean B (G0): c =
//      fl(p - q) has |c - C| <= u |c| + (dP + u |q| + |Mean| dB) <= dC = fl(fl(fl(dP + fl(|Mean| dB)) + fl(|c| +
//      |q|) 2^-52) (1 + 2^-30)). ps = fl(c r~) with r~ = r (1 + theta), |theta| < 3u (steps 1 and 2): |ps - C r| <=
//      |c| r ((1 + 3u)(1 + u) - 1) + |c - C| r <= 4.02u |ps| + dC r~ (1 + 3.01u). wS = fl(fl(|ps| 2^-50) + fl(fl(dC
//      r~) (1 + 2^-20))): (1 - u) wS - u |ps| >= 4.02u |ps| + dC r~ (1 + 3.01u) ((1 - u)^2 8u - u > 4.02u, (1 -
//      u)^4 (1 + 2^-20) > 1 + 3.01u), so [fl(ps - wS), fl(ps + wS)] holds C r as for the bias. Step 8 decides
//      each interval (decide_nonzero: a zero, and a NaN r~ for D <= 0, is left). On data of one scale the half-widths
//      are about d u M dm (xm) against sums of about M^(1/2) dm xm, whose float spacings are about 2^16 times
//      wider at M = 12,544: nearly every element is decided here. test/test_fast_batch_normalization.cpp checks b, p
//      and the bounds against exact sums on sums that cancel, puts B and C r on FLOAT32 midpoints (G9 must leave
//      them) and next to them, and runs the grad's tests with the exact sums forced.
//  G10. BATCH_NORMALIZATION_TRAINING_GRAD (FLOAT32) where G8 would run, in place of S1 to S3, G0 and G7: one pass over
//      a statistics element's chunks takes float64 sums b of dY and c of dY fl(X - Mean) (training_sums_avx512: G8's
//      lanes and blocks, one fused multiply-add per term, so each running sum is rounded once per term), G9 decides
//      the statistics from them (decide_statistics), and a second pass writes OutputGradient by G7 with a' = fl(b /
//      M) and c' = fl(c / fl(M D~)) in place of a~ and c~ and a wider half-width; where G9 leaves a statistic or this
//      pass an element, the element takes S1 to S3 and its exact constants (G0, G1's a~ and c~), and each element
//      left takes G1 to G3 with them, then the plain element (element_sums' mend). Bounds: each addition (a fused
//      multiply-add's included) s = fl(e) of either sum has e - s = delta s with |delta| <= u (Higham's (2.5); exact
//      in float64's subnormal range), so a sum's error is at most u times the sum of the magnitudes of all the
//      partial sums it formed (a running error bound: Higham, Accuracy and Stability of Numerical Algorithms, section
//      3.3). The pass adds those magnitudes as it goes (ea, ec: the lanes' after every step and every block, the
//      lanes' combination in tree8, the chunks' totals), in float64 through fewer than 2^39 additions of
//      nonnegative values, so the exact sum of them is at most ea (1 + 2^-13). The terms of c are dY fl(X - Mean)
//      (|fl(X - Mean) - (X - Mean)| <= u |fl(X - Mean)|, and |fl(X - Mean)| <= fl(xm + |Mean|)), which adds at most u
//      M dm fl(xm + |Mean|). So dB = fl(fl(ea 2^-53)(1 + 2^-12)) has (1 - u)^2 dB >= |b - sum dY|, and dC =
//      fl(fl(fl(ec 2^-53)(1 + 2^-12)) + fl(fl(fl(M dm) fl(xm + |Mean|)) 2^-53 (1 + 2^-30))) >= |c - C| (training_bounds),
//      what G9's decision needs. Outputs: let V' = P (dY - a' - (X - Mean) c'). G7's argument holds for V' with a' and
//      c' as its a~ and c~: its terms for their roundings bound nothing that is there, and its ranges hold (b is 0 or
//      at least 2^-149 in magnitude and c, a multiple of 2^-298 as dY's products with X and Mean, 0 or at least
//      2^-298, so a' is 0 or at least 2^-187 and c' 0 or at least 2^-466; |c'| < 2^407), so G7's W7 (fused_width with
//      the element's largest |dY| and |X|) has W7 (1 - u) >= |z - V'| + u |z| + 2^-1075. And |V - V'| <= |P| (|a -
//      a'| + |X - Mean| |c - c'|): |a - a'| <= u |a'| + dB / M <= Da = fl(fl(|a'| 2^-52) + fl(fl(dB / M)(1 + 2^-30)));
//      c' = (c / (M D))(1 + d3) / ((1 + d1)(1 + d2)) (the roundings of D~, of M D~ and of the quotient), so |c' -
//      C / (M D)| <= 3.01u |c'| + dC (1 + 2.01u) / fl(M D~) <= Dc = fl(fl(|c'| 2^-51) + fl(fl(dC / fl(M D~))(1 +
//      2^-30))); |P| <= |sr~| (1 + 4.01u) (steps 1 to 3) and |X - Mean| <= xm + |Mean|. Wac = fl(fl(|sr~| (1 + 2^-40))
//      fl(Da + fl(fl(xm + |Mean|) Dc))) has (1 - u)^2 Wac >= |V - V'| ((1 - u)^7 (1 + 2^-40) > 1 + 4.01u), and W' =
//      fl(fl(W7 (1 + 2^-49)) + Wac) has (1 - u) W' >= (1 - u)^3 (1 + 2^-49) W7 + (1 - u)^2 Wac >= |z - V| + u |z| +
//      2^-1075: [fl(z - W'), fl(z + W')] holds V, and G7 decides from it (training_pass). The second pass runs where W'
//      < 2^900 (false for D~ <= 0, a non-finite D~ or a NaN sr~), every element sixteen at a time (a chunk's last n %
//      16 from a zero-padded copy). On data of one scale the running bounds are tens of times tighter than G9's
//      gamma_d M dm, and Wac about W7: about one channel in twenty goes to the exact sums (1x64x112x112 of
//      bench_ops' data: 3 of 64, 2 of them for a zero sum). test/test_fast_batch_normalization.cpp checks b, c and
//      their bounds against exact sums, and plants sums whose float64 errors only Wac (targets with V = -(1 + X)
//      2^-12 off by |X| times c's error) and only dC (a scale gradient of 1 the float64 sum misses by more than
//      2^-24) keep from wrong decisions.
// FLOAT16 runs of constant statistics (per-channel statistics), where the machine has F16C: two stages.
// A FLOAT16 output needs V only to about 2^-12 relative, so a float32 estimate, eight elements at a time,
// decides nearly every element; the float64 estimates above (then the plain element) take the rest.
// Here v = 2^-24 and fl() is a float32 operation (+, - and * only), correctly rounded to nearest:
// |fl(e) - e| <= v |e| and <= v |fl(e)| wherever fl(e) is normal (Higham's (2.4) and (2.5)), a sum or
// difference is exact in float32's subnormal range, and a product below 2^-126 errs by at most 2^-150
// absolutely. Every FLOAT16 value is a float32, a multiple of 2^-24 below 2^16 in magnitude; P = s D^(-1/2).
//  H1. The run constants, rounded from the float64 ones: S = fl32(sr~), with |sr~ - P| < 4u |P| (steps 1
//      to 3) and 4u (1 + v) / (1 - 4u) < 2^-26 v, so |S - P| <= v (1 + 2^-26) |S|; the training's
//      mu32 = RN32(mean), |mu32 - mean| <= v |mu32|; the training grad's a32 = fl32(a~) and c32 = fl32(c~),
//      within v (1 + 2^-27) |a32| and v (1 + 2^-27) |c32| of a and c (u |a~| <= u (1 + v) |a32| on top of
//      v |a32|). The stage runs only where |S| is in [2^-32, 2^32] or S = sr~ = 0 (Scale 0), and for the
//      training grad |a32| in [2^-60, 2^60] and |c32| in [2^-40, 2^40] or a~, c~ exactly 0 (in_range): a
//      NaN or an infinity fails (D <= 0, a non-finite D or Scale), and the float64 stage takes the run.
//      Then, with finite operands, every product of an estimate below is 0 or normal: x - m is a multiple
//      of 2^-24 (forward; the grad's x is dY, m = 0) or of 2^-69 (training: mean = sum X / M with M < 2^22
//      is 0 or at least 2^-46 in magnitude, and so is mu32), so t = fl(S d) is 0 or at least 2^-101; the
//      training grad's q = fl(fl(x - m) c32) is 0 or at least 2^-64 (a multiple of 2^-87), h = fl(dY - a32)
//      a multiple of 2^-83, so g = fl(h - q) is 0 or at least 2^-87 and z = fl(S g) 0 or at least 2^-119.
//      And every value stays below 2^93 in magnitude.
//  H2. Forward and training: d = fl(x - m32) (m32 the Mean, or mu32), t = fl(S d), bf = fl(b + f) (f the
//      FusedAdd; without one bf = b, exact), y = fl(t + bf). |t - S d| <= v |t|, |d - (x - m32)| <= v |d|
//      and |S d| <= (1 + v) |t|, so |t - P (x - m32)| <= v |t| (1 + (1 + v) + (1 + 2^-26)(1 + v)^2) <=
//      3v (1 + 2^-22) |t|; P (m32 - mean) is 0 (forward) or at most v (1 + 2^-23) |S| |mu32| in magnitude.
//      So |y - V| <= E = v |y| + 3v (1 + 2^-22) |t| + v |bf| + v (1 + 2^-23) |S| |mu32|, the last two terms
//      only with a FusedAdd and for the training. w = fl(fl(e 4v) + K), e = fl(|t| + |y|) (with a FusedAdd
//      fl(fl(|t| + |y|) + |bf|)), K = 2^-125 (forward) or, per run, K = fl32(fl64(fl64(|S| |mu32|) 2^-23) +
//      2^-125) >= (1 - v)(1 - u)^2 (2v |S| |mu32| + 2^-125) (training). e 4v is exact but below 2^-126,
//      where it errs by at most 2^-150, so w (1 - v) >= (1 - v)^4 4v (|t| + |y| + |bf|) + (1 - v)^2 (K - 2^-150)
//      >= E + v |y|: 4 (1 - v)^4 >= 3 (1 + 2^-22), 2 (1 - v)^3 (1 - u)^2 >= 1 + 2^-23 and (1 - v)^3 2^-125 >=
//      2^-150.
//  H3. The decision: lo = fl(y - w) <= y - w + v (|y| + w) <= y - E <= V when w (1 - v) >= E + v |y|, and
//      likewise hi = fl(y + w) >= V. VCVTPS2PH rounds lo and hi to FLOAT16 (to nearest even, each the
//      correct rounding of a float); where both give the same bits h, every real between them rounds to h
//      (rounding is monotone), V among them: h is the golden. A +0 from both ends needs lo >= 0 (a
//      negative float rounds to -0 or below), so V >= 0 and an exact zero is +0, the plain loop's; a -0
//      needs hi < 0 (y + w, w > 0, is never -0). The stage also asks w < 2^100: with finite operands w
//      stays below 2^71, and a NaN or an infinite x, f, Bias or Mean (the training's X and the grads' dY
//      and X are finite, or the whole operator takes the plain loop) makes t, bf or y, and so w, which
//      takes |t| and |y| (0 inf is NaN), infinite or NaN: undecided.
//  H4. Training grad: h = fl(dY - a32), q = fl(fl(x - m) c32) (m the Mean, a FLOAT16), g = fl(h - q),
//      z = fl(S g). As in H2 and G1, |q - (x - m) c| <= v |q| (1 + (1 + v) + (1 + v)^2 (1 + 2^-27)) <=
//      3v (1 + 2^-22) |q|, |h - (dY - a)| <= v |h| + v (1 + 2^-27) |a32| and |g - (h - q)| <= v |g|, so
//      |g - I| <= v (1 + 2^-22) G, G = |g| + |h| + |a32| + 3 |q|; then with |S| |g| <= (1 + v) |z|,
//      |z - V| <= v |z| + |S| |g - I| + |S - P| |I| <= 2v (1 + 2^-24) |z| + v (1 + 2^-21) |S| G. w =
//      fl(fl(fl(fl(|S| G~) + fl(|z| + |z|)) 2v) + 2^-125), G~ = fl(fl(fl(|g| + |h|) + fl(3 |q|)) + |a32|) >=
//      (1 - v)^3 G: w (1 - v) >= (1 - v)^7 2v |S| G + (1 - v)^3 4v |z| + (1 - v)^2 2^-125 - 2^-150 >=
//      E + v |z| (2 (1 - v)^7 >= 1 + 2^-21, 4 (1 - v)^3 >= 3 (1 + 2^-24)). Then H3.
//  H5. A run (half_run): the float32 stage on elements j to j + 7 (j + 8 <= n) where the run meets H1's
//      ranges; the elements it leaves undecided and the last n % 8 take the float64 stage (steps 3 to 7,
//      T3 and T4, G1 to G3; decide8's decision, step 8), and what that leaves, the plain element. Every
//      decided value is the correct rounding of V, so which stage decides does not change the bits. The float64
//      stage estimates eight left elements at once in four-lane registers (twofold8, gather8): per lane the same
//      IEEE operations, in the same order, as the scalar estimate, estimate_training and estimate_training_grad,
//      so the same y and w.
//      test/test_fast_batch_normalization.cpp checks these constants in exact rationals, the float32
//      estimates against MPFR, and counts the elements each stage decides.
//  H6. BATCH_NORMALIZATION_GRAD (x = dY, Mean and Bias 0): the float32 stage decides from y = fl(S dY) alone,
//      where the run meets H1's range for S. y = +-0 exactly when dY or S is 0 (S = 0 only for Scale 0): V = 0,
//      +0. Otherwise |S dY| is in [2^-56, 2^48] (normal), |y - S dY| <= v |y|, and |S dY - V| = |S - P| |dY| <=
//      v (1 + 2^-26) |S dY| <= v (1 + 2^-26)(1 + 2^-23) |y| (|S dY| <= |y| / (1 - v)): |y - V| <= v (2 + 2^-22) |y|. Let |y| be in [2^e,
//      2^(e+1)) with e in [-14, 15] (FLOAT16's normal binades) and U = 2^(e-23) its float spacing: v |y| < U,
//      so |y - V| < 3U. FLOAT16's rounding boundaries in that binade are the midpoints 2^e + (k + 1/2)
//      2^(e-10), the floats whose 13 bits below FLOAT16's last are 0x1000 (L = 0x1000, L those bits of y);
//      the last of binade 15, 65520, is the overflow threshold (to infinity, as to the even side). Binade
//      e - 1's boundaries lie at or below 2^e - 2^(e-12) = 2^e - 2^11 U, binade e + 1's at or above 2^(e+1) +
//      2^(e-10). So where |L - 0x1000| >= 4 no boundary lies within 3U of y: VCVTPS2PH's rounding of y to
//      nearest is V's, the golden. The stage decides where L lies outside [0xffc, 0x1003] (y's bits less 0xffc,
//      masked to bits 3 to 12, not all zero; then |L - 0x1000| >= 4) and |y| lies in [2^-14, 2^16) (y's bits
//      shifted left by one, sign out, less those of 2^-14 so shifted, below those of 2^16 less those of 2^-14, as
//      unsigned integers), or y = +0. Other elements take the float64 stage, then the plain element, as in H5.
//      Sixteen elements at a time where the machine has AVX-512 (the same y and the same test).
//      test/test_fast_batch_normalization.cpp puts y 1 or 2 ulps below a midpoint and checks that this stage
//      leaves every such element.
//  H7. The forward's, the training's (without a FusedAdd) and the training grad's float32 stage first with one
//      half-width W for the whole chunk (as step F1 for FLOAT32). With xm the chunk's largest |x| (the largest of the
//      FLOAT16 bits with the sign cleared), every element has |d| = fl(|x - m32|) <= fl(xm + |m32|), |t| <= Tm = fl(|S|
//      fl(xm + |m32|)), |y| <= Ym = fl(Tm + |b|) and e <= fl(Tm + Ym) (rounding is monotone and odd), so step H2's w <=
//      W = fl(fl(fl(Tm + Ym) 4v) + K), each step a rounded sum or product of nonnegative values. Then [fl(y - W), fl(y
//      + W)] holds V and step H3 decides it, where W < 2^100 (false for an infinite or NaN x, Mean, Scale or Bias; then
//      |y| <= Ym < 2^122 and the ends are finite). A block of eight elements with an element it leaves takes each
//      element's own w (H2, H4: the same y, a narrower interval), then H5's float64 stage. Sixteen elements at a time where the machine
//      has AVX-512 (the same float32 operations per element). On random data W is about 8 float ulps of the chunk's
//      largest |y| against FLOAT16 spacings of 2^13 of them: about one element in a hundred (those near 0) is left. The
//      training grad's stage (step H4) likewise: with dm and xm the chunk's largest |dY| and |x|, |h| <= Hm = fl(dm +
//      |a32|), |q| <= Qm = fl(fl(xm + |m32|) |c32|), |g| <= Gm = fl(Hm + Qm) and |z| <= Zm = fl(|S| Gm), and W is H4's
//      w with those bounds in place of |h|, |q|, |g| and |z| (TrainingGradHalf::width); the operands are finite (dY and
//      X are, or the plain loop takes the operator; H1's ranges), and W < 2^100 bounds z.
//      test/test_fast_batch_normalization.cpp puts small elements beside a large one and elements near 0 that only the
//      float64 stage decides.
//  H8. Where the machine has AVX-512, the forward's and the training's float32 stage (a FusedAdd or not) takes each
//      element's own w (step H2) on every element, sixteen at a time, in place of step H7 (AffineHalf::own16): per
//      element the same float32 operations as H2's eight lanes (d, t, bf, y, e and w), then step H3's decision, the
//      FLOAT16 bits of fl(y - w) where they equal those of fl(y + w) and w < 2^100. The training grad's likewise
//      with step H4's z and w (TrainingGradHalf::own16; z in place of y below). A lane with w not below 2^100
//      (NaN included) has its two ends' bits replaced by two different values, so it stays undecided, as in H3; with
//      w < 2^100, y -+ w are finite (H3). So every element it decides has the golden's bits, and which of H7 and H8
//      runs does not change them. The elements it leaves take H5's float64 stage; a run's last n % 16 elements take
//      H2's eight lanes (one block) and the float64 stage. H8 needs no pass for the chunk's largest |x| and leaves only
//      the elements near a FLOAT16 rounding boundary or near 0 (y cancelling), where H7 leaves every block of eight
//      holding a small |y|. test/test_fast_batch_normalization.cpp runs the FLOAT16 tests both ways (forcing H7) and
//      plants zeros of both signs, FLOAT16 subnormals, midpoints, infinities and NaN in runs not a multiple of 16 long.
//  H9. Where the machine has AVX-512, H8's stage with directed ends in place of y and w (AffineHalf::own16,
//      TrainingGradHalf::own16): AVX-512's embedded rounding gives RD (toward -inf) and RU (toward +inf) per
//      instruction, and RD(e) <= e <= RU(e) for every real e, underflow included (no floor for subnormal values).
//      Forward and training: d = fl(x - m32) and t = fl(S d) as in H2 (to nearest), so |t - P (x - m32)| <= 3v (1 +
//      2^-22) |t| (H2; t is 0 or normal, H1), and e = RU(|t| c) with the float c = 3v (1 + 2^-22) = 0x1.800006p-23
//      is at least that. The forward's V is P (x - m32) + b exactly; the training's V = P (x - mu32) + (P (mu32 -
//      mean) + b) + f, where |P (mu32 - mean)| <= |S| (1 + v (1 + 2^-26)) v |mu32| <= 2^-24 (1 + 2^-23) |S| |mu32|
//      (H1), at most A = RU32(fl64(fl64(|S| |mu32|) 2^-24 (1 + 2^-22))) (|S| |mu32| is exact in float64, and (1 - u)
//      (1 + 2^-22) >= 1 + 2^-23), raised to 2^-149 if smaller; bl = RD(b - A) and bh = RU(b + A) (the forward's:
//      bl = bh = b). So V lies in [t - e + bl + f, t + e + bh + f] (f = 0 without a FusedAdd), and lo =
//      RD(RD(t - e) + bl) <= V <= RU(RU(t + e) + bh) = hi (with a FusedAdd, RD(bl + f) and RU(bh + f) in place of
//      bl and bh). Training grad: h, q, g = fl(h - q) and z = fl(S g) as in H4; |z - S g| <= v |S g| (z is 0 or
//      normal), |S| |g - I| <= v (1 + 2^-22) |S| G (H4) and |S - P| |I| <= v (1 + 2^-26) |S| (|g| + |g - I|), so
//      |z - V| <= v (1 + 2^-21) |S| (2 |g| + G) = v (1 + 2^-21) |S| (3 |g| + |h| + 3 |q| + |a32|); with |g| <= (1 +
//      v)(|h| + |q|) that is at most v (1 + 2^-20) |S| (4 |h| + 6 |q| + |a32|). e = RU(RU(RU(|h| C1) + RU(|q| C2)) +
//      Ka) with the run's C1 = RU32(|S| 2^-22 (1 + 2^-20)) and C2 = RU32(|S| 1.5 2^-22 (1 + 2^-20)) (products exact
//      in float64) and Ka = RU32(fl64(fl64(|S| |a32|) 2^-24 (1 + 2^-19))) ((1 - u)(1 + 2^-19) >= 1 + 2^-20) is at
//      least that: lo = RD(z - e) <= V <= RU(z + e) = hi. The decision is H3's on lo and hi: both rounded to
//      FLOAT16 by VCVTPS2PH, and where the bits agree, every real between them, V among them, rounds to those bits.
//      Zeros: bits of -0 need hi <= 0, and hi is never -0 (RU gives -0 only for a sum of two -0, and e, a rounded
//      sum and product of values >= +0, is never -0, so RU(t + e) and RU(z + e) are not), so hi < 0 and V < 0,
//      whose rounding to -0 is the golden's; bits of +0 need lo >= 0, so V >= 0, and V = 0 is the plain loop's +0.
//      A lane decides only where e < 2^100 (false for a NaN or an infinite x, dY, X or Mean, which make t or h and
//      q, so e, infinite or NaN), and with a FusedAdd where RD(bl + f) < RU(bh + f), which holds for every finite f
//      (bl < bh, as A > 0) and fails for an infinite or NaN one; the forward and the training take the stage only
//      where b is finite (otherwise H7). Then lo and hi are finite (H1's ranges bound t, z and the constants). Per
//      element, two (forward, training) and seven (training grad) fewer float32 operations than H8; the interval
//      is about as wide (3v |t| against 4v (|t| + |y|)). test/test_fast_batch_normalization.cpp runs H8's tests on
//      it and puts t exactly on FLOAT16 midpoints with V half a float ulp below them (S rounded up to 1.5).
//  H10. What runs where the machine has AVX-512 (AffineHalf::own16, TrainingGradHalf::own16), in place of H9's
//      ends: H9's decision and its argument for zeros, on ends computed with fused multiply-adds, which round a b +
//      c once in the instruction's direction: RD(a b + c) <= a b + c <= RU(a b + c) for every real, underflow
//      included. Forward and training: V = P x + T with T = b - P m (the forward's m the Mean, a FLOAT16;
//      the training's the batch mean, m = mu = RN53(mean) in the run's constants) and, with a FusedAdd, + f. The run
//      constant c = fl64(sr~ m): sr~ = P (1 + theta), |theta| < 4u (H1), mu = mean (1 + eps), |eps| <= u (T2; eps = 0
//      for the forward), so c = P m' (1 + theta)(1 + eps)(1 + eps1) (m' the Mean or the mean) and |c - P m'| <= 6.1u
//      |P m'| <= 7u |c| < 2^-50 |c| (c is 0 exactly where m' is, and otherwise normal: |sr~| >= 2^-213.5, |m'| >=
//      2^-46); bl = RD32(RD64(RD64(b - c) - |c| 2^-50)) <= T <= RU32(RU64(RU64(b - c) + |c| 2^-50)) = bh (|c| 2^-50
//      is exact). With S = RN32(sr~), |S - P| <= v (1 + 2^-26) |S| (H1), so |S x - P x| <= delta |x| with delta =
//      RU32(|S| 2^-24 (1 + 2^-25)) (the product in float64 is exact: 24 and 26 bits). Then lo = RD(RD(S x + bl) -
//      delta |x|) <= S x - delta |x| + bl <= P x + T = V, and likewise hi = RU(RU(S x + bh) + delta |x|) >= V (with a
//      FusedAdd, RD(bl + f) and RU(bh + f) in place of bl and bh). hi is never -0: delta |x| >= +0, and RU of a sum
//      of +0 and -0, or of an exact zero sum of nonzero terms, is +0. A lane decides only where x is finite (|x| <
//      2^16), bl and bh are finite (false for an infinite or NaN Mean), and with a FusedAdd where f is finite (|f| <
//      2^16); b is finite (own()). Then every value is finite (H1's ranges). Training grad: h = fl(dY - a32) and
//      xm = fl(x - m32) as in H4 (x - m32 exact or normal: both FLOAT16), g = fl(h - xm c32) (one fused multiply-add,
//      to nearest; 0 or normal, a multiple of 2^-87 as in H1) and z = fl(S g). |xm - (X - Mean)| <= v |xm| and
//      |c32 - c| <= v (1 + 2^-27) |c32| give |xm c32 - (X - Mean) c| <= v (2 + 2^-26) |xm| |c32|, so |g - I| <= v (|g|
//      + |h| + (1 + 2^-27) |a32| + (2 + 2^-26) |xm| |c32|); as in H9, |z - V| <= v |z| + |S| |g - I| + |S - P| (|g| +
//      |g - I|) <= v (1 + 2^-21) |S| (3 |g| + |h| + |a32| + 2 |xm| |c32|), and with |g| <= (1 + v)(|h| + |xm| |c32|)
//      at most v (1 + 2^-20) |S| (4 |h| + 5 |xm| |c32| + |a32|). e = RU(|h| C1 + RU(|xm| C2 + Ka)) (two fused
//      multiply-adds rounded up, in either order) with C1 and Ka as in H9 and C2 = RU32(fl64(fl64(|S| |c32|) 5v (1 +
//      2^-19))) (|S| |c32| exact in float64, (1 - u)(1 + 2^-19) >= 1 + 2^-20) is at least that, and lo = RD(z - e),
//      hi = RU(z + e) as in H9, deciding where e < 2^100. Per element, three fewer float32 operations than H9 (each
//      row, a FusedAdd or not). The intervals are about as wide as H9's, except that the forward's and the
//      training's grow with |x| in place of |x - m|: where |x - m| << |m| more elements go to the float64 stage, so
//      the forward and the training take H10 on a run's first 128 elements and, where it leaves two or more of them,
//      H9 on the rest (AffineHalf::own16; each decides only correct bits, so the choice does not change them). test/test_fast_batch_normalization.cpp runs H9's tests on it and puts b - P m 2^-54 below
//      a FLOAT16 midpoint that fl64(sr~ m) meets exactly (only the margin |c| 2^-50 leaves those elements).
//
// The exact sums (T1's sum X and sum X^2, the grads' sum dY and sum dY X) where the statistics are constant
// along the inner run of the layout below: by extraction (Rump, Ogita and Oishi's ExtractVector, on
// Dekker's FastTwoSum), a chunk of n <= 2^12 terms per task, in float64 lanes. Every term v (a float, a
// half, or the product of two, exact in float64) is finite (a NaN or an infinity: the plain loop).
//  S1. |v| < 2^E for every term (E from the largest |X| or |dY| and |X|: a float's or a half's exponent
//      field e >= 1 bounds it by 2^(e - 126)); sigma = 2^k with k = E + 13. s = fl(sigma + v), q = fl(s - sigma),
//      r = fl(v - q): FastTwoSum (|sigma| >= |v|, rounding to nearest, underflow harmless) makes q = s - sigma
//      and r = v - q exactly, so v = q + r. s lies in [sigma/2, 2 sigma], so q is a multiple of 2^(k - 53),
//      and |r| <= 2^(k - 53), half the spacing at sigma + v. |q| <= |v| + 2^(k - 53), so any sum of at most
//      2^12 of them is below 2^12 (2^(k - 13) + 2^(k - 53)) < 2^k: a multiple of 2^(k - 53) below 2^k, a
//      double. The float64 sum of the q, in any order and grouping (eight lanes), is exact.
//  S2. Three levels: the residuals r are the next level's terms, with k' = k - 40 (|r| <= 2^(k' - 13), as S1
//      needs), so sum v = sum q1 + sum q2 + sum q3 + sum r3 exactly. Where every r3 is 0 (so for terms that are
//      multiples of 2^(k - 132), twice q3's unit: r3 is one with |r3| at most half of it; for the products
//      of two floats in [-1, 1), k = 13: those of magnitude 2^-72 or more, and zero) the three level sums are the chunk's exact sum; otherwise the chunk is summed in
//      bins (Moments, GradSums). With k >= -237 (e >= 1 twice) every step stays in float64's range.
//  S3. The level sums of a statistics element's chunks, doubles m 2^e (integer |m| < 2^53), are added
//      exactly as integers in units of 2^-298, with the chunks' bins (ExactTotal: step C1 of
//      reference/fast/batch_normalization_channel.cpp); the totals are exact whatever the chunking and the
//      thread count. Elsewhere (statistics that vary along the inner run) the terms
//      go to the bins in one pass (serial_sums).
//  S4. FLOAT16 terms where the machine has F16C (half_chunk_sums), in place of S1 and S2: every FLOAT16 is a
//      multiple of 2^-24 below 2^16 in magnitude, so n <= 2^12 of them sum exactly in float64, in any order
//      (multiples of 2^-24 below 2^28). The product p of two is exact in float32 (22 significant bits, a
//      multiple of 2^-48 below 2^32: normal unless 0) and so in float64. With sigma = 2^45 > |p|,
//      q = fl(fl(sigma + p) - sigma) and r = fl(p - q) split p exactly (S1's FastTwoSum; fl(sigma + p) lies in
//      [2^44, 2^46], where doubles are 2^-8 and 2^-7 apart): q is a multiple of 2^-8 with |q| <= |p| + 2^-8,
//      r a multiple of 2^-48 (p and q are) with |r| <= 2^-8. So n of the q sum to below 2^12 (2^32 + 2^-8) <
//      2^45 and n of the r to at most 2^4: multiples of 2^-8 and of 2^-48 of at most 53 bits, exact doubles
//      in any order and grouping (four lanes; eight with AVX-512). sum p is the two sums' total exactly; they go
//      to S3 as level sums. An infinity or a NaN among the terms makes a sum infinite or NaN (inf - inf is NaN):
//      the plain loop.
//  S6. FLOAT16 terms where the machine has AVX-512 (half_chunk_sums_split32), in place of S4's products: the
//      product p of two FLOAT16 (exact in float32, S4) is split in float32 with sigma = 2^17: q = fl32(fl32(sigma +
//      p) - sigma), r = fl32(p - q). Where |p| <= 2^8, fl32(sigma + p) lies in [2^17 - 2^8, 2^17 + 2^8], where
//      floats are 2^-7 and 2^-6 apart, so (FastTwoSum, |sigma| >= |p|) q = fl32(sigma + p) - sigma exactly, a
//      multiple of 2^-7 with |q| <= |p| + 2^-7, and r = p - q exactly, |r| <= 2^-7, a multiple of 2^-48 (p is, and
//      q is one of 2^-7). Each of sixteen float32 lanes sums the q of at most 256 terms (n <= 2^12, the last n % 16
//      terms padded with zeros): every partial sum is a multiple of 2^-7 of magnitude at most 256 (2^8 + 2^-7) <
//      2^17, a float32 (24 bits), so the float32 sums are exact, and so is their total in float64 (below 2^21). The
//      r sum in float64 lanes as S4's: n of them are multiples of 2^-48 of at most 2^5, exact doubles in any order
//      and grouping; sum a as S4's. The pass keeps the largest |p| (float32 max); where it exceeds 2^8 (or is
//      NaN) the chunk takes S4 again, and an infinity or a NaN among the terms makes a sum infinite or NaN, as in S4.
//      A chunk with a product above 2^6 among its first 64 terms takes S4 at once (large data: no pass wasted).
//      On data of magnitude below 16 (products below 256) every chunk takes it: per sixteen terms the split and
//      the q sum are three float32 operations and one, in place of S4's float64 split of each half (two
//      conversions, six operations).
//  S5. A chunk of float or half factors whose exponents span little (chunk_sums, in place of S2 where it applies):
//      with e the largest exponent field among the a (at least 1; Ea = e - 126, |a| < 2^Ea as in S1), let every
//      nonzero a have a field f >= e - 16 (narrow), and likewise the b (Eb). Then every a is a multiple of
//      2^(Ea - 40): for f >= 1 a is one of 2^(f - 150) >= 2^(e - 166) = 2^(Ea - 40), for f = 0 (only where e <= 16)
//      one of 2^-149, and 2^(Ea - 40) <= 2^-150 there. So n <= 2^12 of them sum to multiples of 2^(Ea - 40) below
//      2^(Ea + 12) in magnitude, 2^52 units: sum a is exact in float64 in any order and grouping. Each product
//      p = a b is exact (S1), a multiple of 2^(Ea + Eb - 80) below 2^(Ea + Eb). One level of S1 with sigma = 2^k, k
//      = Ea + Eb + 13, gives p = q + r exactly, the q summing exactly (S1), and |r| <= 2^(k - 53) = 2^(Ea + Eb -
//      40), r a multiple of 2^(Ea + Eb - 80) (p is, and q is one of 2^(k - 53)): n of the r sum to multiples of
//      2^(Ea + Eb - 80) of at most 2^(Ea + Eb - 28), 2^52 units, exact in any order and grouping too (p and q are
//      multiples of 2^-298 as well, so every partial sum is one of max(2^(Ea + Eb - 80), 2^-298), at most 2^52 of
//      them). sum a, sum q and sum r go to S3 as level sums.
//      A chunk that is not narrow takes S2 (the levels, then the bins). FLOAT32 in one pass (one_pass_sums): the
//      sums are computed with Ea and Eb from the first 64 terms' largest fields while the pass finds the chunk's
//      largest and least nonzero |a| and |b|; they are kept only where the chunk's largest fields are the guessed
//      ones (so sigma is the one above) and the chunk is narrow; otherwise the chunk takes S5 again with its own
//      Ea and Eb, or S2. On data of one sign-symmetric scale nearly every chunk is narrow (a value 2^17 below the
//      largest is rare); test/test_fast_batch_normalization.cpp puts the least allowed terms, and ones a binade
//      below them, beside a FLOAT32 tie that only they decide.
//
// Layout: the logical index space is walked as for_each_run (dmlref/tensor.hpp) does: dimensions
// of size 1 dropped, neighbours merged where they are contiguous in the input, the output and
// every statistic (the statistics as packed logical copies, stride 0 where broadcast). The inner
// run is cut into chunks of 4096 elements; chunks are the tasks of parallel_for. Each element is
// computed by one task, the same way whatever the thread count or chunking, so the bits never
// depend on them. A contiguous output is written in place; one whose bytes meet the input's gets a
// chunk's values in a scratch row first, its undecided elements computed before anything is
// written, so that an output bound in place over the input (same layout) reads only inputs. The
// grads with constant statistics along the inner run and an output that meets no input take one
// task per statistics element where those spread evenly over the threads (element_sums): its
// chunks' sums, its constants, then its chunks' outputs, the same functions on the same chunks (the FLOAT32
// grad with AVX-512: step G8's pass first, then those only where step G9 leaves a statistic).
#include "batch_normalization.hpp"
#include "batch_normalization_channel.hpp"
#include "half_rows.hpp"

#include "../batch_normalization_internal.hpp"
#include "../common.hpp"
#include "../exact_rational.hpp"
#include "../fused_activation.hpp"
#include "parallel.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <gmpxx.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define DMLREF_F16C_PATHS 1
#define DMLREF_F16C __attribute__((target("avx2,f16c")))
#endif

#include <algorithm>
#include <optional>
#include <numeric>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

// Inlined into each clone (the loops below are cloned per instruction set: a call would run the baseline's code).
#if defined(__GNUC__)
#define DMLREF_INLINE inline __attribute__((always_inline))
#else
#define DMLREF_INLINE inline
#endif

namespace dmlref::reference::fast {

namespace {

using BN = DML_BATCH_NORMALIZATION_OPERATOR_DESC;

constexpr int64_t kChunk = 4096;  // elements per task
constexpr size_t K = 6;           // input, output, mean, variance (its r~), scale, bias
enum { kX, kY, kMean, kRoot, kScale, kBias };

std::atomic<uint64_t> decided_count{0}, plain_count{0}, single_count{0};

// Step 2: r~ = fl(1 / fl(sqrt(fl(v + Epsilon)))), NaN where D~ <= 0 or is not finite (the plain
// element decides those).
inline double root_estimate(double v, float epsilon) {
    const double D = v + double(epsilon);
    if (!(D > 0) || !std::isfinite(D)) return std::numeric_limits<double>::quiet_NaN();
    return 1.0 / std::sqrt(D);
}

// Steps 3 to 7 for one element, from sr~ = fl(s r~): y0 into y and w into w.
DMLREF_INLINE void estimate(double x, double m, double sr, double b, double& y, double& w) {
    const double t = sr * (x - m);
    const double yt = t + b;
    y = yt + 0.0;
    const double w0 = (std::fabs(t) * (6 * 0x1p-53 * (1 + 0x1p-40)) + std::fabs(yt) * (0x1p-52 * (1 + 0x1p-40))) +
                      0x1p-1072;
    // w = t == 0 ? 0 : w0, as a mask (a select on a floating comparison is a branch to the vectoriser).
    w = from_bits<double>(to_bits(w0) & (uint64_t(0) - uint64_t(t != 0)));
}

// A FLOAT16's bits as a double: exact for every finite value, infinite or NaN for +-inf and NaN
// (which leave the element undecided; the plain element reads the original bits). Through a
// float built on 32-bit lanes with masks rather than branches, so that the loops vectorise
// without F16C: a normal value rebiased (exponent + 112, mantissa << 13), a subnormal one
// M 2^-24 (exact), inf and NaN with the float's exponent all ones.
DMLREF_INLINE float half_bits_to_float(uint16_t h) {
    const uint32_t E = (uint32_t(h) >> 10) & 31u, M = uint32_t(h) & 1023u, sign = (uint32_t(h) & 0x8000u) << 16;
    const uint32_t base = ((E == 0 ? 113u : E == 31 ? 255u : E + 112u) << 23) | (M << 13);
    const float sub = from_bits<float>(base) - 0x1p-14f;  // E = 0: 2^-14 (1 + M 2^-10) - 2^-14 = M 2^-24, exact
    const uint32_t mask = 0u - uint32_t(E == 0);
    return from_bits<float>((to_bits(sub) & mask) | (base & ~mask) | sign);
}
DMLREF_INLINE double half_bits_to_double(uint16_t h) { return double(half_bits_to_float(h)); }
template <class T> DMLREF_INLINE double load(const T& v) {
    if constexpr (is_half_v<T>) return half_bits_to_double(to_bits(v));
    else return double(v);
}

// What a chunk's value holds for an element the decision leaves undecided: a NaN's bits, which
// no decided value has (a decided value rounds a finite interval).
template <class T> constexpr auto undecided_bits() {
    if constexpr (is_half_v<T>) return uint16_t(0x7fadu);
    else return uint32_t(0x7fcadbadu);
}
template <class T> inline bool is_undecided(T v) { return to_bits(v) == undecided_bits<T>(); }

// Step 8 for FLOAT32: both ends rounded to float; their bits, or undecided_bits.
DMLREF_INLINE float decide_float(double y, double w, bool& undecided) {
    constexpr double kMax = std::numeric_limits<double>::max();
    const double lo = y - w, hi = y + w;
    const float a = static_cast<float>(lo), b = static_cast<float>(hi);
    undecided = !(std::fabs(y) <= kMax) | !(w <= kMax) | (to_bits(a) != to_bits(b));
    return a;
}
DMLREF_INLINE float decide_one(double y, double w, float*) {
    bool undecided;
    const float a = decide_float(y, w, undecided);
    const uint32_t mask = 0u - uint32_t(undecided);
    return from_bits<float>((undecided_bits<float>() & mask) | (to_bits(a) & ~mask));
}

// Step 8 for FLOAT16, as rounds_to_one (fast/decide.hpp) does it, without a float-to-half
// conversion instruction: the FLOAT32 decision first (every real of the interval rounds to one
// float f), then f's FLOAT16 rounding, which is every real's unless f is a FLOAT16 midpoint
// (rounding twice errs only where the first rounding lands on a midpoint of the second: the
// midpoints are floats). On f's bits u (sign aside):
//   - |f| >= 2^-14 (u >= 0x38800000): a midpoint when the 13 bits below FLOAT16's last are
//     1000000000000; the rounding, to nearest even, is (u + 0xfff + bit 13 of u) >> 13 rebiased
//     (a carry moves to the next binade; 65520 and above give 0x7c00, inf);
//   - below 2^-14: FLOAT16's values are the multiples of 2^-24: |f| + 0.5 (a float sum, rounded to
//     nearest even on 2^-24) minus 0.5 is the rounding; the midpoints are the odd multiples of 2^-25,
//     which |f| + 0.25 (spacing 2^-25 there) keeps exactly.
DMLREF_INLINE half decide_one(double y, double w, half*) {
    bool undecided;
    const float f = decide_float(y, w, undecided);
    const uint32_t bits = to_bits(f), u = bits & 0x7fffffffu, sign = (bits >> 16) & 0x8000u;
    // Normal FLOAT16 range (and inf).
    const uint32_t normal_midpoint = uint32_t((u & 0x1fffu) == 0x1000u);
    const uint32_t over = 0u - uint32_t(u >= 0x477ff000u);
    const uint32_t normal = ((((u + 0xfffu + ((u >> 13) & 1u)) >> 13) - (112u << 10)) & ~over) | (0x7c00u & over);
    // Subnormal FLOAT16 range.
    const float m = from_bits<float>(u);
    const float half_sum = m + 0.5f, quarter = m + 0.25f, back = quarter - 0.25f;
    const uint32_t sub = to_bits(half_sum) - to_bits(0.5f);
    const uint32_t sub_midpoint = uint32_t(to_bits(back) == u) & (to_bits(quarter) - to_bits(0.25f)) & 1u;
    // Masks rather than selects, so that the loops vectorise.
    const uint32_t is_normal = 0u - uint32_t(u >= 0x38800000u);
    const uint32_t midpoint = (normal_midpoint & is_normal) | (sub_midpoint & ~is_normal);
    const uint32_t h = sign | (normal & is_normal) | (sub & ~is_normal);
    const uint32_t out = 0u - (uint32_t(undecided) | midpoint);
    return from_bits<half>(uint16_t((undecided_bits<half>() & out) | (h & ~out)));
}

// Steps 3 to 7 over a run of n elements whose statistics are constant (per-channel statistics):
// x contiguous. Cloned for AVX-512 and AVX2 and the baseline: each clone performs the same IEEE
// operations (no FMA: -ffp-contract=off), so the bits do not depend on which one runs.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DMLREF_CLONES
#endif
// value[j] = decide_one of element j's estimate (y, w), which estimate_of(j, y, w) gives, j < n, for
// the forward's, the training's and the training grad's runs. Returns whether any element is
// undecided.
template <class T, class EstimateOf>
DMLREF_INLINE bool decide_run(int64_t n, EstimateOf&& estimate_of, T* __restrict value) {
    // Stored as bits (a half's assignment is a struct copy to the vectoriser).
    using Bits = decltype(undecided_bits<T>());
    Bits* __restrict out = reinterpret_cast<Bits*>(value);
    uint32_t any = 0;
    for (int64_t j = 0; j < n; ++j) {
        double y, w;
        estimate_of(j, y, w);
        const Bits v = to_bits(decide_one(y, w, value));
        any |= uint32_t(v == undecided_bits<T>());
        out[j] = v;
    }
    return any != 0;
}
template <class T>
DMLREF_INLINE bool uniform_run(const T* __restrict x, int64_t n, double m, double sr, double b, T* __restrict value) {
    return decide_run(
        n, [x, m, sr, b](int64_t j, double& y, double& w) { estimate(load(x[j]), m, sr, b, y, w); }, value);
}
DMLREF_CLONES bool uniform_run_f32(const float* x, int64_t n, double m, double sr, double b, float* value) {
    return uniform_run(x, n, m, sr, b, value);
}
DMLREF_CLONES bool uniform_run_f16(const half* x, int64_t n, double m, double sr, double b, half* value) {
    return uniform_run(x, n, m, sr, b, value);
}
// The grad's FLOAT32 first stage (header, step G4): y0 = fl(sr~ dY) + 0 rounded to float where fl(y0 - W) and
// fl(y0 + W) round to the same float, W = grad_width of the chunk (below 2^900: the caller's check); otherwise
// undecided_bits. Returns whether any element is undecided.
inline double grad_width(float dm, double sr) { return (std::fabs(sr) * double(dm)) * (7 * 0x1p-53 * (1 + 0x1p-45)); }
DMLREF_CLONES bool grad_run_f32(const float* __restrict dy, int64_t n, double sr, double W, float* __restrict value) {
    uint32_t* __restrict out = reinterpret_cast<uint32_t*>(value);
    uint32_t any = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double y = double(dy[j]) * sr + 0.0;
        const uint32_t lo = to_bits(static_cast<float>(y - W)), hi = to_bits(static_cast<float>(y + W));
        const uint32_t mask = 0u - uint32_t(lo != hi);
        any |= mask;
        out[j] = (lo & ~mask) | (undecided_bits<float>() & mask);
    }
    return any != 0;
}
// The grad's FLOAT32 first stage without a width (header, step G6), where grad_bits_apply: y0 = fl(sr~ dY) + 0
// rounded to float unless its bits lie within 8 double ulps of a float midpoint (kNearMidpoint); then
// undecided_bits. Returns whether any element is undecided.
std::atomic<bool> grad_bits_forced_off{false};  // for the tests: step G4 in place of G6
constexpr uint64_t kNearMidpoint = (uint64_t(1) << 28) - 8, kNearMask = (uint64_t(1) << 29) - 16;
inline bool grad_bits_apply(double sr, uint32_t least) {
    const double s = std::fabs(sr);
    return s <= 0x1p1000 && (least == 0 || s * double(from_bits<float>(least)) >= 0x1p-126);
}
DMLREF_CLONES bool grad_bits_f32(const float* __restrict dy, int64_t n, double sr, float* __restrict value) {
    uint32_t* __restrict out = reinterpret_cast<uint32_t*>(value);
    uint32_t any = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double y = double(dy[j]) * sr + 0.0;
        const uint32_t mask = 0u - uint32_t(((to_bits(y) - kNearMidpoint) & kNearMask) == 0);
        any |= mask;
        out[j] = (to_bits(static_cast<float>(y)) & ~mask) | (undecided_bits<float>() & mask);
    }
    return any != 0;
}
// Steps G8 and G10 (FLOAT32, AVX-512): a chunk's float64 sums of dY and of dY X (G10: of dY fl(X - Mean)), its max |dY|
// and max |X| as a float's bits, and (G10) the sums ea and ec of the magnitudes of every partial sum each formed.
struct PassSums {
    double dy = 0, product = 0, ea = 0, ec = 0;
    uint32_t dm = 0, xm = 0;
};
constexpr uint64_t kPassDepth = 36;  // the additions a term goes through in its chunk's sums (chunk16), at most
// A statistics element's sums (steps G8 and G10): its chunks' PassSums added in task order, one addition a chunk, with
// the magnitudes of those additions' results in the running sums (G10's ea and ec), the largest |dY| and |X|, and
// the number of chunks (G8's depth: a term goes through at most kPassDepth additions in its chunk, then one a chunk).
struct ChannelSums {
    double dy = 0, product = 0, ea = 0, ec = 0;
    uint32_t dm = 0, xm = 0;
    uint64_t chunks = 0;
    void add(const PassSums& s) {
        ea += s.ea + std::fabs(dy += s.dy);
        ec += s.ec + std::fabs(product += s.product);
        dm = std::max(dm, s.dm);
        xm = std::max(xm, s.xm);
        ++chunks;
    }
    bool finite() const { return std::max(dm, xm) < 0x7f800000u; }  // else a NaN or an infinity: the exact sums find it
    uint64_t depth() const { return kPassDepth + chunks; }
};
// Step G8's tau for sr~: the bits of a positive float tau with fl(|sr~| tau) >= 2^-126, so that fl(|sr~| |dY|) >=
// 2^-126 wherever |dY| >= tau (rounding is monotone); 1 (no |dY| lies in (0, 2^-149)) for sr~ = 0, whose y~ are
// all zero; 0 (the pass does not run) where |sr~| > 2^1000 (NaN included) or no float tau is large enough.
inline uint32_t grad_pass_threshold(double sr) {
    const double s = std::fabs(sr);
    if (!(s <= 0x1p1000)) return 0;
    if (s == 0) return 1;
    float tau = static_cast<float>(0x1p-126 / s);
    while (std::isfinite(tau) && !(s * double(tau) >= 0x1p-126))
        tau = std::nextafter(tau, std::numeric_limits<float>::infinity());
    return std::isfinite(tau) ? to_bits(tau) : 0;
}
// The forward's FLOAT32 first stage on a run of constant statistics (header, step F1): the chunk's largest |x|,
// its W (forward_width), then y~ = fl(fl(sr~ fl(x - m)) + b) rounded to float where fl(y~ - W) and fl(y~ + W)
// round to the same float; otherwise undecided_bits. Returns whether any element is undecided, or -1 (nothing
// written) where the chunk's largest |x| is not finite or W is not below 2^900.
inline double forward_width(float xm, double m, double sr, double b) {
    const double t = std::fabs(sr) * (double(xm) + std::fabs(m));
    const double y = t + std::fabs(b);
    return (t * (6 * 0x1p-53 * (1 + 0x1p-40)) + y * (0x1p-52 * (1 + 0x1p-40))) + 0x1p-1072;
}
DMLREF_CLONES int forward_first_f32(const float* __restrict x, int64_t n, double m, double sr, double b,
                                    float* __restrict value) {
    uint32_t largest = 0;
    for (int64_t j = 0; j < n; ++j) largest = std::max(largest, to_bits(x[j]) & 0x7fffffffu);
    const double W = forward_width(from_bits<float>(largest), m, sr, b);
    if (!(largest < 0x7f800000u && W < 0x1p900)) return -1;
    uint32_t* __restrict out = reinterpret_cast<uint32_t*>(value);
    uint32_t any = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double y = sr * (double(x[j]) - m) + b;
        const uint32_t lo = to_bits(static_cast<float>(y - W)), hi = to_bits(static_cast<float>(y + W));
        const uint32_t mask = 0u - uint32_t(lo != hi);
        any |= mask;
        out[j] = (lo & ~mask) | (undecided_bits<float>() & mask);
    }
    return any != 0;
}
// The float64 stage after a first stage (steps F1, G4, G5 and G6): each element j < n the first stage left undecided
// (`any`: whether there is one) decided from estimate_of(j, y, w) as decide_one decides; single receives n less
// those elements. Returns whether any element is still undecided.
template <class T, class EstimateOf>
bool second_stage(bool any, T* value, int64_t n, uint64_t& single, EstimateOf&& estimate_of) {
    single = uint64_t(n);
    if (!any) return false;
    bool left = false;
    for (int64_t j = 0; j < n; ++j)
        if (is_undecided(value[j])) {
            --single;
            double y, w;
            estimate_of(j, y, w);
            value[j] = decide_one(y, w, value);
            left |= is_undecided(value[j]);
        }
    return left;
}

// Step 8 for FLOAT16 with F16C's conversions, over eight elements' y0 and w (decide8): the FLOAT32
// decision of decide_one (the ends lo = fl(y0 - w) and hi = fl(y0 + w), both finite, rounded to one
// float f: every real between them rounds to f), then f's FLOAT16 rounding unless f is a FLOAT16
// midpoint. f is one when f rounded down and up to FLOAT16 differ and sum to 2 f, |f| below 65536
// (adjacent FLOAT16 values sum exactly in float, as does f + f), or when |f| = 65520, the midpoint
// between 65504 and the overflow to infinity (f rounded up is infinite there). At a midpoint the
// ends decide against f itself: lo > f puts every real of [lo, hi] above the midpoint and below the
// next float, so all round to f rounded up; hi < f, to f rounded down; otherwise undecided. (The
// scalar decide_one leaves every midpoint undecided: a float's rounding lands on one about once in
// 2^13.) Undecided elements get undecided_bits. The decided values are the correct roundings, as
// decide_one's: the same bits. half_run (below, "FLOAT16 runs in two stages") decides with it the
// elements its float32 stage leaves.
#if defined(DMLREF_F16C_PATHS)
// The float ends of four elements (a non-finite end makes them 0 and 1: undecided).
DMLREF_F16C inline __m128 float_end(__m256d e, __m256d finite, double otherwise) {
    return _mm256_cvtpd_ps(_mm256_blendv_pd(_mm256_set1_pd(otherwise), e, finite));
}
// 32-bit lane masks as 16-bit ones.
DMLREF_F16C inline __m128i narrow(__m256i m) {
    return _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
}
DMLREF_F16C inline __m256 join(__m256d a, __m256d b) { return _mm256_set_m128(_mm256_cvtpd_ps(b), _mm256_cvtpd_ps(a)); }
// Eight FLOAT16 values as floats (exact), and magnitudes.
DMLREF_F16C inline __m256 load8(const half* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
DMLREF_F16C inline __m256 magnitude8(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

// Eight elements' y0 and w (two groups of four): their FLOAT16 bits or undecided_bits, and a mask of
// 0xffff per undecided element.
DMLREF_F16C inline __m128i decide8(__m256d y0, __m256d w0, __m256d y1, __m256d w1, __m128i& mask) {
    const __m256d sign = _mm256_set1_pd(-0.0), top = _mm256_set1_pd(std::numeric_limits<double>::max());
    const __m256d lo0 = _mm256_sub_pd(y0, w0), hi0 = _mm256_add_pd(y0, w0);
    const __m256d lo1 = _mm256_sub_pd(y1, w1), hi1 = _mm256_add_pd(y1, w1);
    // A non-finite end makes the float ends 0 and 1: undecided.
    const __m256d finite0 = _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, lo0), top, _CMP_LE_OQ),
                                          _mm256_cmp_pd(_mm256_andnot_pd(sign, hi0), top, _CMP_LE_OQ));
    const __m256d finite1 = _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, lo1), top, _CMP_LE_OQ),
                                          _mm256_cmp_pd(_mm256_andnot_pd(sign, hi1), top, _CMP_LE_OQ));
    const __m256 f = _mm256_set_m128(float_end(lo1, finite1, 0.0), float_end(lo0, finite0, 0.0));
    const __m256 g = _mm256_set_m128(float_end(hi1, finite1, 1.0), float_end(hi0, finite0, 1.0));
    const __m256i same = _mm256_cmpeq_epi32(_mm256_castps_si256(f), _mm256_castps_si256(g));
    const __m128i down_h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m128i up_h = _mm256_cvtps_ph(f, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    const __m256 down = _mm256_cvtph_ps(down_h), up = _mm256_cvtph_ps(up_h);
    const __m256 magnitude = _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
    const __m256 midpoint = _mm256_or_ps(
        _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(_mm256_add_ps(down, up), _mm256_add_ps(f, f), _CMP_EQ_OQ),
                                    _mm256_cmp_ps(down, up, _CMP_NEQ_UQ)),
                      _mm256_cmp_ps(magnitude, _mm256_set1_ps(65536.0f), _CMP_LT_OQ)),
        _mm256_cmp_ps(magnitude, _mm256_set1_ps(65520.0f), _CMP_EQ_OQ));
    // At a midpoint f, the sign of the ends' distance to f (a double difference is zero only when
    // exact; its float rounding keeps the sign or gives a zero, which stays undecided).
    const __m256d f0 = _mm256_cvtps_pd(_mm256_castps256_ps128(f)), f1 = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
    const __m256 above = _mm256_cmp_ps(join(_mm256_sub_pd(lo0, f0), _mm256_sub_pd(lo1, f1)), _mm256_setzero_ps(),
                                       _CMP_GT_OQ);
    const __m256 below = _mm256_cmp_ps(join(_mm256_sub_pd(hi0, f0), _mm256_sub_pd(hi1, f1)), _mm256_setzero_ps(),
                                       _CMP_LT_OQ);
    const __m256i open = _mm256_castps_si256(_mm256_andnot_ps(_mm256_or_ps(above, below), midpoint));
    const __m256i undecided = _mm256_or_si256(_mm256_andnot_si256(same, _mm256_set1_epi32(-1)), open);
    const __m128i nearest = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i side = _mm_blendv_epi8(down_h, up_h, narrow(_mm256_castps_si256(above)));
    const __m128i h = _mm_blendv_epi8(nearest, side, narrow(_mm256_castps_si256(midpoint)));
    mask = narrow(undecided);
    return _mm_blendv_epi8(h, _mm_set1_epi16(int16_t(undecided_bits<half>())), mask);
}

#endif

// A run of constant statistics (per-channel statistics); returns whether any element is undecided. FLOAT16's
// (defined below, "FLOAT16 runs in two stages") adds to `single` the elements its float32 stage decided.
inline bool run_uniform(const float* x, int64_t n, double m, double sr, double b, float* value, uint64_t& single) {
    const int first = forward_first_f32(x, n, m, sr, b, value);
    if (first < 0) return uniform_run_f32(x, n, m, sr, b, value);
    return second_stage(first != 0, value, n, single,
                        [&](int64_t j, double& y, double& w) { estimate(double(x[j]), m, sr, b, y, w); });
}
bool run_uniform(const half* x, int64_t n, double m, double sr, double b, half* value, uint64_t& single);

// The fused activation applied to a decided, rounded value (step 8).
template <class T> class Activation {
public:
    explicit Activation(const std::optional<DML_FUSED_ACTIVATION>& a) : a_(a) {
        if (!a || a->name() == "ACTIVATION_IDENTITY") kind_ = None;
        else if (a->name() == "ACTIVATION_RELU") kind_ = Relu;
        else {
            kind_ = Other;
            if constexpr (is_half_v<T>) memo_ = std::make_unique<std::atomic<uint32_t>[]>(65536);
        }
    }
    // values[j] for the j < n that are decided (a RELU overwrites the undecided ones too: the
    // caller has noted them and writes their plain element over them afterwards).
    void apply(T* __restrict values, int64_t n) const {
        if (kind_ == None) return;
        if (kind_ == Relu) {
            for (int64_t j = 0; j < n; ++j) values[j] = load(values[j]) > 0 ? values[j] : T(0.0f);
            return;
        }
        for (int64_t j = 0; j < n; ++j)
            if (!is_undecided(values[j])) values[j] = other(values[j]);
    }

private:
    T other(T y) const {
        if constexpr (is_half_v<T>) {
            // 0 is "not yet"; a kept value is its bits with bit 16 set. Two threads may compute the
            // same value at once: both store the same bits.
            std::atomic<uint32_t>& slot = memo_[to_bits(y)];
            uint32_t kept = slot.load(std::memory_order_relaxed);
            if (kept == 0) {
                kept = 0x10000u | to_bits(fused_activation<T>(*a_, y));
                slot.store(kept, std::memory_order_relaxed);
            }
            return from_bits<T>(uint16_t(kept));
        } else {
            return fused_activation<T>(*a_, y);
        }
    }
    enum Kind { None, Relu, Other } kind_ = None;
    const std::optional<DML_FUSED_ACTIVATION>& a_;
    std::unique_ptr<std::atomic<uint32_t>[]> memo_;
};

// A chunk's decided values, and the positions left undecided, per thread.
template <class T> struct Scratch {
    std::vector<T> value, other;
    std::vector<int32_t> undecided;
};
template <class T> Scratch<T>& scratch() {
    thread_local Scratch<T> s;
    s.value.resize(size_t(kChunk));
    return s;
}

struct Dim {
    int64_t size;
    std::array<int64_t, K> stride;
};

// A fast path's loop nest: the dimensions of size above 1, neighbours merged where every tensor's
// strides allow (as for_each_run merges them); the last, `inner`, is cut in chunks of kChunk, and
// task t is chunk t % chunks of outer index t / chunks.
struct Nest {
    std::vector<Dim> dims;
    Dim inner{1, {}};
    int64_t outer = 1, chunks = 1;

    struct Task {
        std::array<int64_t, K> at{};  // offsets into every tensor
        int64_t first = 0, n = 0;     // the chunk's first inner index and its length
    };
    Task task(int64_t t) const {
        Task r;
        int64_t rest = t / chunks;
        r.first = (t % chunks) * kChunk;
        r.n = std::min(kChunk, inner.size - r.first);
        for (size_t i = dims.size(); i-- > 0;) {
            const int64_t c = rest % dims[i].size;
            rest /= dims[i].size;
            for (size_t k = 0; k < K; ++k) r.at[k] += c * dims[i].stride[k];
        }
        for (size_t k = 0; k < K; ++k) r.at[k] += r.first * inner.stride[k];
        return r;
    }
};

// The nest of a tensor of these sizes, strides_of(i) giving every tensor's stride along dimension i.
template <class F> Nest nest_of(const std::vector<uint32_t>& sizes, F&& strides_of) {
    Nest s;
    for (size_t i = 0; i < sizes.size(); ++i) {
        const int64_t size = sizes[i];
        if (size == 1) continue;
        const Dim dim{size, strides_of(i)};
        if (!s.dims.empty()) {
            bool contiguous = true;
            for (size_t k = 0; k < K; ++k) contiguous = contiguous && s.dims.back().stride[k] == dim.stride[k] * size;
            if (contiguous) {
                s.dims.back() = {s.dims.back().size * size, dim.stride};
                continue;
            }
        }
        s.dims.push_back(dim);
    }
    if (s.dims.empty()) s.dims.push_back({1, {}});
    s.inner = s.dims.back();
    s.dims.pop_back();
    for (const Dim& dim : s.dims) s.outer *= dim.size;
    s.chunks = (s.inner.size + kChunk - 1) / kChunk;
    return s;
}

// Whether two buffers share a byte (an output written over an input).
bool overlaps(std::span<const std::byte> a, std::span<const std::byte> b) {
    return a.data() < b.data() + b.size() && b.data() < a.data() + a.size();
}

// The stride of each logical dimension in a statistic's packed logical copy: 0 where it broadcasts.
std::vector<int64_t> stat_strides(const std::vector<uint32_t>& stat) {
    std::vector<int64_t> s = packed_strides(stat);
    for (size_t i = 0; i < stat.size(); ++i)
        if (stat[i] == 1) s[i] = 0;
    return s;
}

template <class T> bool forward(const BN& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor")), Y(d.OutputTensor, b.at("OutputTensor"));
    const std::vector<T> mean = logical_values<T>(d.MeanTensor, b.at("MeanTensor"));
    const std::vector<T> var = logical_values<T>(d.VarianceTensor, b.at("VarianceTensor"));
    const std::vector<T> scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
    const std::vector<T> bias = logical_values<T>(d.BiasTensor, b.at("BiasTensor"));
    std::vector<double> root(var.size());
    for (size_t k = 0; k < var.size(); ++k) root[k] = root_estimate(load(var[k]), d.Epsilon);

    // The dimensions, merged as for_each_run merges them.
    const std::array<std::vector<int64_t>, 4> stat = {
        stat_strides(d.MeanTensor.Sizes), stat_strides(d.VarianceTensor.Sizes), stat_strides(d.ScaleTensor.Sizes),
        stat_strides(d.BiasTensor.Sizes)};
    const Nest nest = nest_of(d.InputTensor.Sizes, [&](size_t i) {
        return std::array<int64_t, K>{X.strides[i], Y.strides[i], stat[0][i], stat[1][i], stat[2][i], stat[3][i]};
    });
    const int64_t outer = nest.outer, chunks = nest.chunks;

    const Activation<T> activation(d.FusedActivation);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    const T* M = mean.data();
    const T* V = var.data();
    const T* S = scale.data();
    const T* B = bias.data();
    const double* R = root.data();
    // Whether the output's bytes meet the input's.
    const std::span<std::byte> xb = b.at("InputTensor"), yb = b.at("OutputTensor");
    const bool overlap = overlaps(xb, yb);
    std::atomic<uint64_t> plain{0}, single{0};
    parallel_for(outer * chunks, [&](int64_t task) {
        const auto [at, first, n] = nest.task(task);
        const std::array<int64_t, K>& step = nest.inner.stride;
        Scratch<T>& s = scratch<T>();
        uint64_t by_single = 0;
        // The values go straight to a contiguous output, unless it overlaps the input (an undecided
        // element reads its input after the decided ones are written).
        T* out = y + at[kY];
        const bool direct = step[kY] == 1 && !overlap;
        T* value = direct ? out : s.value.data();
        const T* xr = x + at[kX];
        const T *mr = M + at[kMean], *sr = S + at[kScale], *br = B + at[kBias];
        const double* rr = R + at[kRoot];
        bool any = false;
        if (step[kMean] == 0 && step[kRoot] == 0 && step[kScale] == 0 && step[kBias] == 0 && step[kX] == 1) {
            // Statistics constant along the run (per-channel statistics): one of each.
            any = run_uniform(xr, n, load(*mr), load(*sr) * *rr, load(*br), value, by_single);
        } else {
            for (int64_t j = 0; j < n; ++j) {
                double ye, we;
                estimate(load(xr[j * step[kX]]), load(mr[j * step[kMean]]),
                         load(sr[j * step[kScale]]) * rr[j * step[kRoot]], load(br[j * step[kBias]]), ye, we);
                value[j] = decide_one(ye, we, value);
                any |= is_undecided(value[j]);
            }
        }
        std::vector<int32_t>& undecided = s.undecided;
        undecided.clear();
        if (any)
            for (int64_t j = 0; j < n; ++j)
                if (is_undecided(value[j])) undecided.push_back(int32_t(j));
        activation.apply(value, n);
        for (const int32_t j : undecided)
            value[j] = batch_normalization_element<T>(xr[j * step[kX]], mr[j * step[kMean]],
                                                      V[at[kRoot] + j * step[kRoot]], sr[j * step[kScale]],
                                                      br[j * step[kBias]], d.Epsilon, d.FusedActivation);
        if (!undecided.empty()) plain.fetch_add(undecided.size(), std::memory_order_relaxed);
        if (by_single != 0) single.fetch_add(by_single, std::memory_order_relaxed);
        if (direct) return;
        if (step[kY] == 1) std::memcpy(static_cast<void*>(out), value, size_t(n) * sizeof(T));
        else
            for (int64_t j = 0; j < n; ++j) out[j * step[kY]] = value[j];
    });
    plain_count = plain.load();
    decided_count = uint64_t(outer * nest.inner.size) - plain_count.load();
    single_count = single.load();
    return true;
}

// ---- Exact sums by extraction (header, steps S1 to S3) ----------------------------------------

constexpr int kLevels = 3;
// For the tests: the last split_sums call's chunks summed by step S5, and by the others (S1 and S2, the bins, S4).
std::atomic<uint64_t> narrow_chunks{0}, other_chunks{0};
static_assert(kChunk <= 4096, "the extraction's sigmas assume at most 2^12 terms");
enum SumsState { kExtracted, kLeft, kNotFinite, kNarrow };  // kNarrow: extracted by step S5
// A chunk's max |a|, max |b| and least nonzero |a| (0 where every a is +-0), as a float's bits (steps G4 to G6).
using Bounds = std::array<uint32_t, 3>;

// |v| as a float's bits: the largest of them is max |v|, at least 0x7f800000 for an infinity or a NaN.
template <class T> DMLREF_INLINE uint32_t magnitude_bits(const T& v) {
    if constexpr (is_half_v<T>) return to_bits(half_bits_to_float(to_bits(v))) & 0x7fffffffu;
    else return to_bits(v) & 0x7fffffffu;
}
// The largest |a| and |b| (ma, mb) and the least nonzero ones (la, lb) as a float's bits in one pass (b = a with
// kSquares); la is 0 where every a is +-0 (|a|'s bits less 1, as unsigned, wrap 0 to the largest).
template <class T, bool kSquares>
DMLREF_INLINE void magnitude_ranges(const T* __restrict a, const T* __restrict b, int64_t n, uint32_t& ma, uint32_t& mb,
                                    uint32_t& la, uint32_t& lb) {
    uint32_t x = 0, y = 0, lx = ~0u, ly = ~0u;
    for (int64_t j = 0; j < n; ++j) {
        const uint32_t u = magnitude_bits(a[j]);
        x = std::max(x, u);
        lx = std::min(lx, u - 1u);
        if constexpr (!kSquares) {
            const uint32_t v = magnitude_bits(b[j]);
            y = std::max(y, v);
            ly = std::min(ly, v - 1u);
        }
    }
    ma = x;
    la = lx + 1u;
    mb = kSquares ? x : y;
    lb = kSquares ? la : ly + 1u;
}

// Step S2 for the n terms a_j and a_j b_j (b_j = a_j with kSquares): the levels' sums into tau (sum a
// at levels 0 to kLevels - 1, then sum a b), and whether a residual is left (nonzero). Four lanes (eight
// with AVX-512) at a time in registers (each lane sums its own terms; every partial sum is exact, so the grouping does not
// matter), in blocks: the first level of sum a and the first two of sum a b over a block (a float or a
// half in the largest 17 binades below 2^E leaves no residual at level 0, a product in the largest 33
// none at level 1), then, only for a block that still has a residual, the terms again with the levels
// left (the same operations give the same residuals; a level leaves a zero term zero).
typedef double V4d __attribute__((vector_size(32)));
typedef int64_t V4i __attribute__((vector_size(32)));
// Terms j to j + 3 of both sums, zero from n on (zero terms: q = r = 0).
template <class T, bool kSquares>
DMLREF_INLINE void four_terms(const T* __restrict a, const T* __restrict b, int64_t j, int64_t n, V4d& r, V4d& rp) {
    if (j + 4 <= n) {
        r = V4d{load(a[j]), load(a[j + 1]), load(a[j + 2]), load(a[j + 3])};
        if constexpr (kSquares) rp = r * r;  // the product of two floats or halves is exact
        else rp = r * V4d{load(b[j]), load(b[j + 1]), load(b[j + 2]), load(b[j + 3])};
        return;
    }
    r = rp = V4d{0, 0, 0, 0};
    for (int64_t k = 0; j + k < n; ++k) {
        r[k] = load(a[j + k]);
        rp[k] = r[k] * (kSquares ? r[k] : load(b[j + k]));
    }
}
// Terms j to j + 7 of both sums for FLOAT32, eight lanes (AVX-512 holds them in one register):
// FLOAT32 chunks where the machine has AVX-512 (chunk_sums_f32_wide), and in the tests on any
// machine (batch_normalization_wide_sums).
typedef double V8d __attribute__((vector_size(64)));
typedef int64_t V8i __attribute__((vector_size(64)));
typedef float V8f __attribute__((vector_size(32)));
typedef float V4f __attribute__((vector_size(16)));
typedef uint32_t V4u __attribute__((vector_size(16)));
typedef uint32_t V8u __attribute__((vector_size(32)));
typedef uint32_t V16u __attribute__((vector_size(64)));
// A float vector's values as doubles: element by element, which GCC 12 turns into one conversion (VCVTPS2PD of
// eight floats with AVX-512; __builtin_convertvector converts the halves apart and joins them).
DMLREF_INLINE void widen(const V4f& f, V4d& d) { d = V4d{f[0], f[1], f[2], f[3]}; }
DMLREF_INLINE void widen(const V8f& f, V8d& d) { d = V8d{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]}; }

template <bool kSquares>
DMLREF_INLINE void eight_terms(const float* __restrict a, const float* __restrict b, int64_t j, int64_t n, V8d& r,
                               V8d& rp) {
    if (j + 8 <= n) {
        V8f f;
        std::memcpy(&f, a + j, sizeof f);
        widen(f, r);
        if constexpr (kSquares) rp = r * r;  // the product of two floats is exact
        else {
            V8f g;
            std::memcpy(&g, b + j, sizeof g);
            V8d d;
            widen(g, d);
            rp = r * d;
        }
        return;
    }
    r = rp = V8d{};
    for (int64_t k = 0; j + k < n; ++k) {
        r[k] = a[j + k];
        rp[k] = r[k] * (kSquares ? r[k] : double(b[j + k]));
    }
}

// W lanes: their vector types and the terms j to j + W - 1 of both sums.
template <int W> struct Lanes;
template <> struct Lanes<4> {
    using D = V4d;
    using I = V4i;
    using F = V4f;  // the floats of W terms, and their bits
    using U = V4u;
    using U2 = V8u;  // the bits of 2 W floats
    template <class T, bool kSquares>
    static DMLREF_INLINE void terms(const T* __restrict a, const T* __restrict b, int64_t j, int64_t n, D& r, D& rp) {
        four_terms<T, kSquares>(a, b, j, n, r, rp);
    }
};
template <> struct Lanes<8> {
    using D = V8d;
    using I = V8i;
    using F = V8f;
    using U = V8u;
    using U2 = V16u;
    template <class T, bool kSquares>
    static DMLREF_INLINE void terms(const T* __restrict a, const T* __restrict b, int64_t j, int64_t n, D& r, D& rp) {
        eight_terms<kSquares>(a, b, j, n, r, rp);
    }
};
// One level on W terms: q = fl(fl(sigma + r) - sigma) into acc, r - q left in r.
template <class V> DMLREF_INLINE void level(const V& sigma, V& r, V& acc) {
    const V q = (sigma + r) - sigma;
    r = r - q;
    acc += q;
}
// Lanes lo to lo + N - 1 of v combined by op in pairs: (v0 op v1) op (v2 op v3), and so on.
template <int N, class V, class Op> DMLREF_INLINE auto pairwise(const V& v, int lo, Op op) {
    if constexpr (N == 1) return v[lo];
    else return op(pairwise<N / 2>(v, lo, op), pairwise<N / 2>(v, lo + N / 2, op));
}
// Step S2 (above) on W lanes: 4, or 8 for FLOAT32 where AVX-512 holds them in one register.
template <class T, bool kSquares, int W>
DMLREF_INLINE uint64_t extract(const T* __restrict a, const T* __restrict b, int64_t n, const double* __restrict sigma,
                               double* __restrict tau) {
    using D = typename Lanes<W>::D;
    using I = typename Lanes<W>::I;
    constexpr int64_t kBlock = 256;
    D acc[2 * kLevels] = {}, s[2 * kLevels];
    for (int i = 0; i < 2 * kLevels; ++i) s[i] = D{} + sigma[i];
    I rest = {};
    for (int64_t first = 0; first < n; first += kBlock) {
        const int64_t end = std::min(n, first + kBlock);
        I left = {};
        for (int64_t j = first; j < end; j += W) {
            D r, rp;
            Lanes<W>::template terms<T, kSquares>(a, b, j, end, r, rp);
            level(s[0], r, acc[0]);
            for (int i = 0; i < kLevels - 1; ++i) level(s[kLevels + i], rp, acc[kLevels + i]);
            left |= (I)r | (I)rp;
        }
        if (pairwise<W>(left << 1, 0, std::bit_or<>{}) == 0) continue;  // sign aside (a -0 residual)
        for (int64_t j = first; j < end; j += W) {
            D r, rp, unused[2] = {};
            Lanes<W>::template terms<T, kSquares>(a, b, j, end, r, rp);
            level(s[0], r, unused[0]);
            for (int i = 1; i < kLevels; ++i) level(s[i], r, acc[i]);
            for (int i = 0; i < kLevels - 1; ++i) level(s[kLevels + i], rp, unused[1]);
            level(s[2 * kLevels - 1], rp, acc[2 * kLevels - 1]);
            rest |= ((I)r | (I)rp) << 1;
        }
    }
    for (int i = 0; i < 2 * kLevels; ++i) tau[i] = pairwise<W>(acc[i], 0, std::plus<>{});
    return uint64_t(pairwise<W>(rest, 0, std::bit_or<>{}));
}
std::atomic<bool> wide_sums_forced{false}, four_lanes_forced{false};

// Step S5's condition on one of the factors: every nonzero |v| (least, the least of them as a float's bits, 0
// where there is none) has an exponent field at least max(e, 1) - 16, e the largest |v|'s (largest).
DMLREF_INLINE bool narrow(uint32_t largest, uint32_t least) {
    return least == 0 || int(least >> 23) >= std::max(int(largest >> 23), 1) - 16;
}
// Step S5's sums of a chunk whose terms meet its condition: sum a plainly into tau[0], sum a b as one level at
// sigma (q into tau[3]) and the residuals summed plainly (tau[4]); the other levels 0. W lanes, two sets of
// them (the additions of one do not wait for the other's; every partial sum is exact, so the grouping does not
// matter).
template <class T, bool kSquares, int W>
DMLREF_INLINE void narrow_sums(const T* __restrict a, const T* __restrict b, int64_t n, double sigma,
                               double* __restrict tau) {
    using D = typename Lanes<W>::D;
    const D s = D{} + sigma;
    D A[2] = {}, Q[2] = {}, R[2] = {};
    for (int64_t j = 0; j < n; j += 2 * W)
        for (int h = 0; h < 2; ++h) {
            D r, rp;
            Lanes<W>::template terms<T, kSquares>(a, b, j + h * W, n, r, rp);  // zero terms from n on
            A[h] += r;
            const D q = (s + rp) - s;
            Q[h] += q;
            R[h] += rp - q;
        }
    tau[0] = pairwise<W>(A[0] + A[1], 0, std::plus<>{});
    tau[3] = pairwise<W>(Q[0] + Q[1], 0, std::plus<>{});
    tau[4] = pairwise<W>(R[0] + R[1], 0, std::plus<>{});
    tau[1] = tau[2] = tau[5] = 0;
}

// Step S5 on FLOAT32 terms in one pass: the sums of narrow_sums with sigma from a guess, the largest exponent
// fields of the first 64 a and b (ga, gb), and the chunk's largest and least nonzero |a| and |b| (ma, mb, la, lb,
// as magnitude_ranges gives them). The sums are step S5's where the guess is right (the caller's check: the
// chunk's largest fields, at least 1, are the guessed ones), and discarded otherwise.
template <bool kSquares, int W>
DMLREF_INLINE void one_pass_sums(const float* __restrict a, const float* __restrict b, int64_t n, uint32_t& ga,
                                 uint32_t& gb, uint32_t& ma, uint32_t& mb, uint32_t& la, uint32_t& lb,
                                 double* __restrict tau) {
    using L = Lanes<W>;
    using D = typename L::D;
    using F = typename L::F;
    using U = typename L::U;
    uint32_t x = 0, y = 0;
    for (int64_t j = 0; j < std::min<int64_t>(n, 64); ++j) {
        x = std::max(x, to_bits(a[j]) & 0x7fffffffu);
        if constexpr (!kSquares) y = std::max(y, to_bits(b[j]) & 0x7fffffffu);
    }
    ga = x;
    gb = kSquares ? x : y;
    const int ea = std::max(int(ga >> 23), 1) - 126, eb = std::max(int(gb >> 23), 1) - 126;
    const D s = D{} + pow2(ea + eb + 13);
    const U sign = U{} + 0x7fffffffu, one = U{} + 1u;
    U MA = {}, MB = {}, LA = ~U{}, LB = ~U{};
    using U2 = typename L::U2;
    const U2 sign2 = U2{} + 0x7fffffffu, one2 = U2{} + 1u;
    U2 MA2 = {}, MB2 = {}, LA2 = ~U2{}, LB2 = ~U2{};  // the same bounds over 2 W lanes (the main loop's)
    D A0 = {}, Q0 = {}, R0 = {}, A1 = {}, Q1 = {}, R1 = {};
    // The bounds of the bits v (U or U2) of floats into M and L: max |v| and min |v| - 1.
#define DMLREF_ONE_PASS_BOUNDS(v, M, L, sign, one) \
    {                                              \
        const auto u = v & sign;                   \
        M = M > u ? M : u;                         \
        L = L < u - one ? L : u - one;             \
    }
    // The sums of W terms from fa and fb (kSquares: fb unused) into A, Q and R.
#define DMLREF_ONE_PASS_STEP(A, Q, R)                          \
    {                                                          \
        D r, rb;                                               \
        widen(fa, r);                                          \
        D rp = r * r; /* the product of two floats is exact */ \
        if constexpr (!kSquares) {                             \
            widen(fb, rb);                                     \
            rp = r * rb;                                       \
        }                                                      \
        A += r;                                                \
        const D q = (s + rp) - s;                              \
        Q += q;                                                \
        R += rp - q;                                           \
    }
    int64_t j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
        // The bounds over 2 W terms at a time (half the integer operations), the sums W at a time.
        U2 wa, wb;
        std::memcpy(&wa, a + j, sizeof wa);
        DMLREF_ONE_PASS_BOUNDS(wa, MA2, LA2, sign2, one2)
        if constexpr (!kSquares) {
            std::memcpy(&wb, b + j, sizeof wb);
            DMLREF_ONE_PASS_BOUNDS(wb, MB2, LB2, sign2, one2)
        }
        F fa, fb = {};
        std::memcpy(&fa, a + j, sizeof fa);
        if constexpr (!kSquares) std::memcpy(&fb, b + j, sizeof fb);
        DMLREF_ONE_PASS_STEP(A0, Q0, R0)
        std::memcpy(&fa, a + j + W, sizeof fa);
        if constexpr (!kSquares) std::memcpy(&fb, b + j + W, sizeof fb);
        DMLREF_ONE_PASS_STEP(A1, Q1, R1)
    }
    for (; j < n; j += W) {  // the last terms, zero from n on (a zero term adds nothing and bounds nothing)
        F fa = {}, fb = {};
        for (int64_t k = 0; k < W && j + k < n; ++k) {
            fa[k] = a[j + k];
            if constexpr (!kSquares) fb[k] = b[j + k];
        }
        DMLREF_ONE_PASS_BOUNDS((U)fa, MA, LA, sign, one)
        if constexpr (!kSquares) DMLREF_ONE_PASS_BOUNDS((U)fb, MB, LB, sign, one)
        DMLREF_ONE_PASS_STEP(A0, Q0, R0)
    }
#undef DMLREF_ONE_PASS_BOUNDS
#undef DMLREF_ONE_PASS_STEP
    auto most = [](uint32_t u, uint32_t v) { return std::max(u, v); };
    auto least = [](uint32_t u, uint32_t v) { return std::min(u, v); };
    ma = std::max(pairwise<W>(MA, 0, most), pairwise<2 * W>(MA2, 0, most));
    la = std::min(pairwise<W>(LA, 0, least), pairwise<2 * W>(LA2, 0, least)) + 1u;
    mb = kSquares ? ma : std::max(pairwise<W>(MB, 0, most), pairwise<2 * W>(MB2, 0, most));
    lb = kSquares ? la : std::min(pairwise<W>(LB, 0, least), pairwise<2 * W>(LB2, 0, least)) + 1u;
    tau[0] = pairwise<W>(A0 + A1, 0, std::plus<>{});
    tau[3] = pairwise<W>(Q0 + Q1, 0, std::plus<>{});
    tau[4] = pairwise<W>(R0 + R1, 0, std::plus<>{});
    tau[1] = tau[2] = tau[5] = 0;
}

// Steps S1 and S2 (or S5) for one chunk of n <= 2^12 terms: kExtracted or kNarrow (tau holds the sums), kLeft (a
// residual is left: the caller sums the chunk in bins) or kNotFinite.
// largest: max |a| and max |b| as a float's bits (step G5's chunk constant).
template <class T, bool kSquares, bool kWide = false>
DMLREF_INLINE int chunk_sums(const T* a, const T* b, int64_t n, double* tau, uint32_t* largest) {
    uint32_t ma, mb, la, lb;
    bool guessed = false;  // tau holds step S5's sums with sigma from a guess (FLOAT32)
    if constexpr (std::is_same_v<T, float>) {
        uint32_t ga, gb;
        one_pass_sums<kSquares, kWide ? 8 : 4>(a, b, n, ga, gb, ma, mb, la, lb, tau);
        auto field = [](uint32_t bits) { return std::max(bits >> 23, 1u); };
        guessed = field(ga) == field(ma) && field(gb) == field(mb);
    } else magnitude_ranges<T, kSquares>(a, b, n, ma, mb, la, lb);
    largest[0] = ma;
    largest[1] = mb;
    largest[2] = la;
    if (std::max(ma, mb) >= 0x7f800000u) return kNotFinite;
    // |a| < 2^ea, |b| < 2^eb: a float's exponent field e (at least 1) bounds it by 2^(e - 126).
    const int ea = std::max(int(ma >> 23), 1) - 126, eb = std::max(int(mb >> 23), 1) - 126;
    if (narrow(ma, la) && narrow(mb, lb)) {
        if (guessed) return kNarrow;
        narrow_sums<T, kSquares, kWide ? 8 : 4>(a, b, n, pow2(ea + eb + 13), tau);
        return kNarrow;
    }
    double sigma[2 * kLevels];  // 2^-317 to 2^269: within pow2's range
    for (int i = 0; i < kLevels; ++i) {
        sigma[i] = pow2(ea + 13 - 40 * i);
        sigma[kLevels + i] = pow2(ea + eb + 13 - 40 * i);
    }
    return extract < T, kSquares, kWide ? 8 : 4 > (a, b, n, sigma, tau) == 0 ? kExtracted : kLeft;
}
DMLREF_CLONES int chunk_sums_f32(const float* a, const float* b, int64_t n, double* tau, uint32_t* largest) {
    return b ? chunk_sums<float, false>(a, b, n, tau, largest) : chunk_sums<float, true>(a, nullptr, n, tau, largest);
}
DMLREF_CLONES int chunk_sums_f16(const half* a, const half* b, int64_t n, double* tau, uint32_t* largest) {
    return b ? chunk_sums<half, false>(a, b, n, tau, largest) : chunk_sums<half, true>(a, nullptr, n, tau, largest);
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx512f"))) int chunk_sums_f32_avx512(const float* a, const float* b, int64_t n, double* tau,
                                                             uint32_t* largest) {
    return b ? chunk_sums<float, false, true>(a, b, n, tau, largest)
             : chunk_sums<float, true, true>(a, nullptr, n, tau, largest);
}
bool have_avx512() {
    static const bool yes = __builtin_cpu_supports("avx512f");
    return yes;
}
#endif
// Any machine (the tests).
int chunk_sums_f32_wide(const float* a, const float* b, int64_t n, double* tau, uint32_t* largest) {
    return b ? chunk_sums<float, false, true>(a, b, n, tau, largest)
             : chunk_sums<float, true, true>(a, nullptr, n, tau, largest);
}
// sum a and sum a b (b null: sum a^2) of a chunk, and max |a| and max |b| as a float's bits.
inline int run_chunk_sums(const float* a, const float* b, int64_t n, double* tau, uint32_t* largest) {
    if (four_lanes_forced.load(std::memory_order_relaxed)) return chunk_sums_f32(a, b, n, tau, largest);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if (have_avx512()) return chunk_sums_f32_avx512(a, b, n, tau, largest);
#endif
    if (wide_sums_forced.load(std::memory_order_relaxed)) return chunk_sums_f32_wide(a, b, n, tau, largest);
    return chunk_sums_f32(a, b, n, tau, largest);
}
#if defined(DMLREF_F16C_PATHS)
// Step S4 for a chunk of n <= 2^12 FLOAT16 terms with F16C: sum a into tau[0] and sum a b (b null: a^2) as
// tau[3] + tau[4], eight terms at a time, four float64 lanes per sum; kExtracted or kNotFinite.
DMLREF_F16C inline void add_split(__m128 x, __m128 p, __m256d& A, __m256d& Q, __m256d& R) {
    const __m256d sigma = _mm256_set1_pd(0x1p45), pd = _mm256_cvtps_pd(p);
    A = _mm256_add_pd(A, _mm256_cvtps_pd(x));
    const __m256d q = _mm256_sub_pd(_mm256_add_pd(sigma, pd), sigma);
    Q = _mm256_add_pd(Q, q);
    R = _mm256_add_pd(R, _mm256_sub_pd(pd, q));
}
// The terms j to n - 1 that the vector loop left, added to the lanes' sums one at a time; then tau as step S4
// fills it, and kExtracted or kNotFinite.
template <bool kSquares>
inline int finish_half_sums(const half* a, const half* b, int64_t j, int64_t n, double* sums, double* tau) {
    for (; j < n; ++j) {
        const double x = load(a[j]), p = x * (kSquares ? x : load(b[j]));
        const double q = (0x1p45 + p) - 0x1p45;
        sums[0] += x;
        sums[1] += q;
        sums[2] += p - q;
    }
    tau[0] = sums[0];
    tau[1] = tau[2] = tau[5] = 0;
    tau[3] = sums[1];
    tau[4] = sums[2];
    return std::isfinite(sums[0]) && std::isfinite(sums[1]) && std::isfinite(sums[2]) ? kExtracted : kNotFinite;
}
template <bool kSquares> DMLREF_F16C int half_chunk_sums(const half* a, const half* b, int64_t n, double* tau) {
    // Two sets of sums (the low and the high four terms), so that the additions of one do not wait for the other's.
    __m256d A = _mm256_setzero_pd(), Q = A, R = A, A1 = A, Q1 = A, R1 = A;
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256 x = load8(a + j), p = _mm256_mul_ps(x, kSquares ? x : load8(b + j));  // exact
        add_split(_mm256_castps256_ps128(x), _mm256_castps256_ps128(p), A, Q, R);
        add_split(_mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(p, 1), A1, Q1, R1);
    }
    alignas(32) double lanes[3][4];
    _mm256_store_pd(lanes[0], _mm256_add_pd(A, A1));
    _mm256_store_pd(lanes[1], _mm256_add_pd(Q, Q1));
    _mm256_store_pd(lanes[2], _mm256_add_pd(R, R1));
    double sums[3];
    for (int i = 0; i < 3; ++i) sums[i] = (lanes[i][0] + lanes[i][1]) + (lanes[i][2] + lanes[i][3]);
    return finish_half_sums<kSquares>(a, b, j, n, sums, tau);
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// The same with AVX-512: sixteen terms at a time, eight float64 lanes per sum (the sums are exact in any order
// and grouping). Masked forms with every lane on (GCC 12's plain ones start from an "undefined" register and
// warn).
#define DMLREF_AVX512 __attribute__((target("avx512f,avx2,f16c")))
DMLREF_AVX512 inline __m512 load16(const half* p) {
    return _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
DMLREF_AVX512 inline void add_split16(__m256 x, __m256 p, __m512d& A, __m512d& Q, __m512d& R) {
    const __m512d sigma = _mm512_set1_pd(0x1p45), pd = _mm512_maskz_cvtps_pd(0xff, p);
    A = _mm512_add_pd(A, _mm512_maskz_cvtps_pd(0xff, x));
    const __m512d q = _mm512_sub_pd(_mm512_add_pd(sigma, pd), sigma);
    Q = _mm512_add_pd(Q, q);
    R = _mm512_add_pd(R, _mm512_sub_pd(pd, q));
}
template <int kHalf> DMLREF_AVX512 inline __m256 eight(__m512 v) {  // lanes 0 to 7, or 8 to 15
    return _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xf, _mm512_castps_pd(v), kHalf));
}
template <bool kSquares>
DMLREF_AVX512 int half_chunk_sums_avx512(const half* a, const half* b, int64_t n, double* tau) {
    __m512d A = _mm512_setzero_pd(), Q = A, R = A, A1 = A, Q1 = A, R1 = A;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m512 x = load16(a + j), p = _mm512_mul_ps(x, kSquares ? x : load16(b + j));  // exact
        add_split16(eight<0>(x), eight<0>(p), A, Q, R);
        add_split16(eight<1>(x), eight<1>(p), A1, Q1, R1);
    }
    alignas(64) double lanes[3][8];
    _mm512_store_pd(lanes[0], _mm512_add_pd(A, A1));
    _mm512_store_pd(lanes[1], _mm512_add_pd(Q, Q1));
    _mm512_store_pd(lanes[2], _mm512_add_pd(R, R1));
    double sums[3];
    for (int i = 0; i < 3; ++i)
        sums[i] = ((lanes[i][0] + lanes[i][1]) + (lanes[i][2] + lanes[i][3])) +
                  ((lanes[i][4] + lanes[i][5]) + (lanes[i][6] + lanes[i][7]));
    return finish_half_sums<kSquares>(a, b, j, n, sums, tau);
}
// Step S6: the products split in float32 at 2^-7, their high parts summed in float32; where a product exceeds 2^8
// in magnitude, half_chunk_sums_avx512 takes the chunk again.
template <bool kSquares>
DMLREF_AVX512 inline void split16(__m512 x, __m512 p, __m512& Q, __m512& largest, __m512d& A, __m512d& A1, __m512d& R,
                                  __m512d& R1) {
    const __m512 sigma = _mm512_set1_ps(0x1p17f);
    const __m512 q = _mm512_sub_ps(_mm512_add_ps(sigma, p), sigma), r = _mm512_sub_ps(p, q);  // p = q + r exactly
    Q = _mm512_add_ps(Q, q);                                                                  // exact
    largest = _mm512_maskz_max_ps(0xffff, largest, kSquares ? p : _mm512_abs_ps(p));
    A = _mm512_add_pd(A, _mm512_maskz_cvtps_pd(0xff, eight<0>(x)));
    A1 = _mm512_add_pd(A1, _mm512_maskz_cvtps_pd(0xff, eight<1>(x)));
    R = _mm512_add_pd(R, _mm512_maskz_cvtps_pd(0xff, eight<0>(r)));
    R1 = _mm512_add_pd(R1, _mm512_maskz_cvtps_pd(0xff, eight<1>(r)));
}
template <bool kSquares>
DMLREF_AVX512 int half_chunk_sums_split32(const half* a, const half* b, int64_t n, double* tau) {
    __m512 Q = _mm512_setzero_ps(), largest = Q;
    __m512d A = _mm512_setzero_pd(), A1 = A, R = A, R1 = A;
    // A product above 2^6 among the first 64 terms: S4 at once (the chunk would likely fail the test below).
    __m512 early = Q;
    for (int64_t k = 0; k + 16 <= std::min<int64_t>(n, 64); k += 16) {
        const __m512 x = load16(a + k), p = _mm512_mul_ps(x, kSquares ? x : load16(b + k));
        early = _mm512_maskz_max_ps(0xffff, early, _mm512_abs_ps(p));
    }
    if (_mm512_cmp_ps_mask(early, _mm512_set1_ps(0x1p6f), _CMP_LE_OQ) != 0xffff)
        return half_chunk_sums_avx512<kSquares>(a, b, n, tau);
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m512 x = load16(a + j), p = _mm512_mul_ps(x, kSquares ? x : load16(b + j));  // exact
        split16<kSquares>(x, p, Q, largest, A, A1, R, R1);
    }
    if (j < n) {  // the last n % 16 terms, and zeros
        alignas(32) half ta[16] = {}, tb[16] = {};
        std::copy(a + j, a + n, ta);
        if constexpr (!kSquares) std::copy(b + j, b + n, tb);
        const __m512 x = load16(ta), p = _mm512_mul_ps(x, kSquares ? x : load16(tb));
        split16<kSquares>(x, p, Q, largest, A, A1, R, R1);
    }
    // Every |p| at most 2^8 (false for a NaN or an infinity): otherwise S4.
    if (_mm512_cmp_ps_mask(largest, _mm512_set1_ps(0x1p8f), _CMP_LE_OQ) != 0xffff)
        return half_chunk_sums_avx512<kSquares>(a, b, n, tau);
    alignas(64) double lanes[2][8];
    alignas(64) float high[16];
    _mm512_store_pd(lanes[0], _mm512_add_pd(A, A1));
    _mm512_store_ps(high, Q);
    _mm512_store_pd(lanes[1], _mm512_add_pd(R, R1));
    double sums[3];
    for (int i = 0; i < 2; ++i)
        sums[2 * i] = ((lanes[i][0] + lanes[i][1]) + (lanes[i][2] + lanes[i][3])) +
                      ((lanes[i][4] + lanes[i][5]) + (lanes[i][6] + lanes[i][7]));
    sums[1] = 0;
    for (const float h : high) sums[1] += double(h);
    return finish_half_sums<kSquares>(a, b, n, n, sums, tau);
}
// Sixteen doubles rounded to float, as the bits of one register.
DMLREF_AVX512 inline __m512i floats16(__m512d lo, __m512d hi) {
    return _mm512_castpd_si512(
        _mm512_maskz_insertf64x4(0xff, _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_maskz_cvtpd_ps(0xff, lo))),
                                 _mm256_castps_pd(_mm512_maskz_cvtpd_ps(0xff, hi)), 1));
}
// Step G6's test on sixteen doubles y0, y1 (an element a lane): the lanes whose bits plus 8 - 2^28, masked by kNearMask,
// are zero (within 8 ulps of a FLOAT32 midpoint: undecided).
DMLREF_AVX512 inline __mmask16 near16(__m512d y0, __m512d y1) {
    const __m512i c = _mm512_set1_epi64(-int64_t(kNearMidpoint)), m = _mm512_set1_epi64(int64_t(kNearMask));
    return _mm512_kunpackb(_mm512_testn_epi64_mask(_mm512_add_epi64(_mm512_castpd_si512(y1), c), m),
                           _mm512_testn_epi64_mask(_mm512_add_epi64(_mm512_castpd_si512(y0), c), m));
}
// The first n (< 16) floats of p, zeros beside them, into out: a run's last elements, for sixteen lanes.
inline void padded16(const float* p, int64_t n, float* out) {
    std::fill_n(out, 16, 0.0f);
    std::memcpy(out, p, size_t(n) * sizeof(float));
}
// Step G6 (grad_bits_f32) sixteen elements at a time, the decision in mask registers: y's bits plus 8 - 2^28
// tested against kNearMask (zero: within 8 ulps of a midpoint, undecided). Returns where it stopped (a multiple of
// 16) and whether any element is undecided in any.
DMLREF_AVX512 int64_t grad_bits_avx512(const float* dy, int64_t n, double sr, float* value, bool& any) {
    const __m512d s = _mm512_set1_pd(sr), zero = _mm512_setzero_pd();
    const __m512i undecided = _mm512_set1_epi32(int32_t(undecided_bits<float>()));
    __mmask16 near = 0;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m512d y0 = _mm512_add_pd(_mm512_mul_pd(_mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(dy + j)), s), zero);
        const __m512d y1 = _mm512_add_pd(_mm512_mul_pd(_mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(dy + j + 8)), s),
                                         zero);
        const __mmask16 k = near16(y0, y1);
        _mm512_storeu_si512(value + j, _mm512_mask_mov_epi32(floats16(y0, y1), k, undecided));
        near |= k;
    }
    any = near != 0;
    return j;
}
// Step G7's z of eight elements: fl(sr~ dY + fl(K0 - K x)) (k = -K).
DMLREF_AVX512 inline __m512d fused8(const float* dy, const float* x, __m512d s, __m512d k, __m512d k0) {
    const __m512d t = _mm512_fmadd_pd(k, _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(x)), k0);
    return _mm512_fmadd_pd(s, _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(dy)), t);
}
// Step G7's decision on sixteen elements (training_grad_fused_avx512's loop body): the lanes of `store` written to
// value, and those of them left undecided returned.
DMLREF_AVX512 inline __mmask16 fused16(const float* dy, const float* x, __m512d s, __m512d k, __m512d k0, __m512d w,
                                       float* value, __mmask16 store) {
    const __m512d z0 = fused8(dy, x, s, k, k0), z1 = fused8(dy + 8, x + 8, s, k, k0);
    const __m512i lo = floats16(_mm512_sub_pd(z0, w), _mm512_sub_pd(z1, w));
    const __m512i hi = floats16(_mm512_add_pd(z0, w), _mm512_add_pd(z1, w));
    const __mmask16 k16 = _mm512_cmpneq_epi32_mask(lo, hi);
    const __m512i undecided = _mm512_set1_epi32(int32_t(undecided_bits<float>()));
    _mm512_mask_storeu_epi32(value, store, _mm512_mask_mov_epi32(lo, k16, undecided));
    return k16 & store;
}
// Step G7 sixteen elements at a time: t = fl(K0 - K x) and z = fl(sr~ dY + t), each one fused multiply-add, then
// fl(z -+ W) rounded to float, the element decided where both give the same bits. Returns where it stopped (a
// multiple of 16) and whether any element is undecided in any.
DMLREF_AVX512 int64_t training_grad_fused_avx512(const float* dy, const float* x, int64_t n, double sr, double K,
                                                 double K0, double W, float* value, bool& any) {
    const __m512d s = _mm512_set1_pd(sr), k = _mm512_set1_pd(-K), k0 = _mm512_set1_pd(K0), w = _mm512_set1_pd(W);
    __mmask16 left = 0;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) left |= fused16(dy + j, x + j, s, k, k0, w, value + j, 0xffff);
    any = left != 0;
    return j;
}
// Steps G8's and G10's sums on sixteen elements (sixteen lanes per sum, two registers of eight): dY and X from dy and
// x, dY into A0, A1 and dY X (G10: dY fl(X - m), mm holding m) into P0, P1 (one fused multiply-add: G8's product is
// exact), the bits of |dY| and |X| into the lane maxima DM and XM. dY's doubles go to d0 and d1, the bits of |dY| to
// ad.
template <bool kCentred>
DMLREF_AVX512 inline void sums16(const float* dy, const float* x, __m512d mm, __m512d& d0, __m512d& d1, __m512i& ad,
                                 __m512d& A0, __m512d& A1, __m512d& P0, __m512d& P1, __m512i& DM, __m512i& XM) {
    const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
    ad = _mm512_and_si512(_mm512_loadu_si512(dy), magnitude);
    DM = _mm512_maskz_max_epu32(0xffff, DM, ad);
    XM = _mm512_maskz_max_epu32(0xffff, XM, _mm512_and_si512(_mm512_loadu_si512(x), magnitude));
    d0 = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(dy));
    d1 = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(dy + 8));
    __m512d x0 = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(x)),
            x1 = _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(x + 8));
    if constexpr (kCentred) {
        x0 = _mm512_sub_pd(x0, mm);
        x1 = _mm512_sub_pd(x1, mm);
    }
    A0 = _mm512_add_pd(A0, d0);
    A1 = _mm512_add_pd(A1, d1);
    P0 = _mm512_fmadd_pd(d0, x0, P0);
    P1 = _mm512_fmadd_pd(d1, x1, P1);
}
// Step G8's pass on sixteen elements (grad_pass_avx512): the sums (sums16), and y0 = fl(sr~ dY + 0) decided as step G6
// decides it, where also |dY| lies outside (0, tau) (tau1 = tau - 1). Writes the lanes of `store` to value and
// returns those of them left undecided.
DMLREF_AVX512 inline __mmask16 pass16(const float* dy, const float* x, __m512d s, __m512i tau1, __m512d& A0,
                                      __m512d& A1, __m512d& P0, __m512d& P1, __m512i& DM, __m512i& XM, float* value,
                                      __mmask16 store) {
    __m512d d0, d1;
    __m512i ad;
    const __m512d zero = _mm512_setzero_pd();
    sums16<false>(dy, x, zero, d0, d1, ad, A0, A1, P0, P1, DM, XM);
    const __m512d y0 = _mm512_fmadd_pd(d0, s, zero), y1 = _mm512_fmadd_pd(d1, s, zero);
    const __mmask16 left = near16(y0, y1) | _mm512_cmplt_epu32_mask(_mm512_sub_epi32(ad, _mm512_set1_epi32(1)), tau1);
    const __m512i undecided = _mm512_set1_epi32(int32_t(undecided_bits<float>()));
    _mm512_mask_storeu_epi32(value, store, _mm512_mask_mov_epi32(floats16(y0, y1), left, undecided));
    return left & store;
}
// The sum of eight lanes as the pairwise tree (v0 + v1) + (v2 + v3) and so on, with the magnitude of each of its seven
// partial sums added to e (step G10's running bound).
inline double tree8(const double* v, double& e) {
    double p[4];
    for (int i = 0; i < 4; ++i) e += std::fabs(p[i] = v[2 * i] + v[2 * i + 1]);
    const double l = p[0] + p[1], h = p[2] + p[3], t = l + h;
    e += (std::fabs(l) + std::fabs(h)) + std::fabs(t);
    return t;
}
// Steps G8 and G10: a chunk of n <= 4096 elements sixteen at a time, step(dy, x, A0, A1, P0, P1, DM, XM, j, store) on
// elements j to j + 15 (the lanes of `store` real; the last n % 16 elements from a zero-padded copy, zeros beside
// them), then the chunk's sums and maxima into sums. The steps go in blocks of sixteen, each summed into zeroed
// lanes and then added to the totals: a term passes at most 16 additions in its block, 16 in the totals (at most 256
// steps) and 4 combining the lanes (G8's 36). kRunning (G10): the magnitudes of every partial sum formed, after each
// step, each block and in the lanes' combination (tree8), summed into sums.ea and sums.ec.
template <bool kRunning, class Step>
DMLREF_AVX512 inline void chunk16(const float* dy, const float* x, int64_t n, PassSums& sums, Step&& step) {
    const __m512d zero = _mm512_setzero_pd();
    __m512d A0 = zero, A1 = zero, P0 = zero, P1 = zero, EA = zero, EP = zero;
    __m512i DM = _mm512_setzero_si512(), XM = DM;
    // The magnitudes of the partial sums a0, a1 and p0, p1 into EA and EP.
    auto running = [&](__m512d a0, __m512d a1, __m512d p0, __m512d p1) DMLREF_AVX512 {
        if constexpr (kRunning) {
            EA = _mm512_add_pd(EA, _mm512_add_pd(_mm512_abs_pd(a0), _mm512_abs_pd(a1)));
            EP = _mm512_add_pd(EP, _mm512_add_pd(_mm512_abs_pd(p0), _mm512_abs_pd(p1)));
        }
    };
    alignas(64) float pd[16], px[16];
    const int64_t steps = (n + 15) / 16;
    for (int64_t s0 = 0; s0 < steps; s0 += 16) {
        __m512d a0 = zero, a1 = zero, p0 = zero, p1 = zero;
        for (int64_t s = s0; s < std::min(steps, s0 + 16); ++s) {
            const int64_t j = 16 * s;
            if (j + 16 <= n) step(dy + j, x + j, a0, a1, p0, p1, DM, XM, j, __mmask16(0xffff));
            else {
                padded16(dy + j, n - j, pd);
                padded16(x + j, n - j, px);
                step(pd, px, a0, a1, p0, p1, DM, XM, j, __mmask16((1u << (n - j)) - 1));
            }
            running(a0, a1, p0, p1);
        }
        A0 = _mm512_add_pd(A0, a0);
        A1 = _mm512_add_pd(A1, a1);
        P0 = _mm512_add_pd(P0, p0);
        P1 = _mm512_add_pd(P1, p1);
        running(A0, A1, P0, P1);
    }
    const __m512d A = _mm512_add_pd(A0, A1), P = _mm512_add_pd(P0, P1);
    running(A, zero, P, zero);
    alignas(64) double lanes[4][8];
    _mm512_store_pd(lanes[0], A);
    _mm512_store_pd(lanes[1], P);
    _mm512_store_pd(lanes[2], EA);
    _mm512_store_pd(lanes[3], EP);
    double ea = 0, ec = 0;
    sums.dy = tree8(lanes[0], ea);
    sums.product = tree8(lanes[1], ec);
    if constexpr (kRunning) {
        for (int i = 0; i < 8; ++i) {
            ea += lanes[2][i];
            ec += lanes[3][i];
        }
        sums.ea = ea;
        sums.ec = ec;
    }
    alignas(64) uint32_t most[2][16];
    _mm512_store_si512(most[0], DM);
    _mm512_store_si512(most[1], XM);
    sums.dm = *std::max_element(most[0], most[0] + 16);
    sums.xm = *std::max_element(most[1], most[1] + 16);
}
// Step G8's pass over a chunk: OutputGradient into value (undecided_bits where it leaves an element) and the chunk's
// sums; returns whether any element is undecided.
DMLREF_AVX512 bool grad_pass_avx512(const float* dy, const float* x, int64_t n, double sr, uint32_t tau, float* value,
                                    PassSums& sums) {
    const __m512d s = _mm512_set1_pd(sr);
    const __m512i tau1 = _mm512_set1_epi32(int32_t(tau - 1));
    __mmask16 left = 0;
    chunk16<false>(dy, x, n, sums,
                   [&](const float* d, const float* xv, __m512d& A0, __m512d& A1, __m512d& P0, __m512d& P1, __m512i& DM,
                       __m512i& XM, int64_t j, __mmask16 store)
                       DMLREF_AVX512 { left |= pass16(d, xv, s, tau1, A0, A1, P0, P1, DM, XM, value + j, store); });
    return left != 0;
}
// Step G10's sums over a chunk of n <= 4096 elements (the training grad's): dY and dY fl(X - m), with the running
// sums of the magnitudes of their partial sums (chunk16<true>).
DMLREF_AVX512 void training_sums_avx512(const float* dy, const float* x, int64_t n, double m, PassSums& sums) {
    const __m512d mm = _mm512_set1_pd(m);
    chunk16<true>(dy, x, n, sums,
                  [&](const float* d, const float* xv, __m512d& A0, __m512d& A1, __m512d& P0, __m512d& P1, __m512i& DM,
                      __m512i& XM, int64_t, __mmask16) DMLREF_AVX512 {
        __m512d d0, d1;
        __m512i ad;
        sums16<true>(d, xv, mm, d0, d1, ad, A0, A1, P0, P1, DM, XM);
    });
}
// Step G10's outputs over a chunk: step G7 with the half-width W on every element (the last n % 16 from a
// zero-padded copy); returns whether any element is undecided.
DMLREF_AVX512 bool training_pass_avx512(const float* dy, const float* x, int64_t n, double sr, double K, double K0,
                                        double W, float* value) {
    bool any;
    const int64_t j = training_grad_fused_avx512(dy, x, n, sr, K, K0, W, value, any);
    if (j < n) {
        alignas(64) float pd[16], px[16];
        padded16(dy + j, n - j, pd);
        padded16(x + j, n - j, px);
        any |= fused16(pd, px, _mm512_set1_pd(sr), _mm512_set1_pd(-K), _mm512_set1_pd(K0), _mm512_set1_pd(W), value + j,
                       __mmask16((1u << (n - j)) - 1)) != 0;
    }
    return any;
}
#endif
#endif
inline int run_chunk_sums(const half* a, const half* b, int64_t n, double* tau, uint32_t* largest) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) {
        largest[0] = largest[1] = largest[2] = 0x7f800000u;  // not computed
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
        if (have_avx512())
            return b ? half_chunk_sums_split32<false>(a, b, n, tau) : half_chunk_sums_split32<true>(a, nullptr, n, tau);
#endif
        return b ? half_chunk_sums<false>(a, b, n, tau) : half_chunk_sums<true>(a, nullptr, n, tau);
    }
#endif
    return chunk_sums_f16(a, b, n, tau, largest);
}

// One task's sums (step S1's chunk): its statistics element, and the levels' sums or, where a
// residual was left, the chunk summed in Bins (Moments or GradSums).
template <class Bins> struct TaskSums {
    size_t stat = 0;
    int state = kExtracted;
    std::array<double, 2 * kLevels> tau{};
    Bounds largest{};  // max |a|, max |b| and least nonzero |a| over the chunk, as a float's bits
    std::unique_ptr<Bins> bins;
};

// The tasks of a nest (one per chunk), the chunk counters reset, and largest sized for them where given. The
// tasks' vector is the calling thread's, kept from call to call (task_list): chunk_task sets every field a
// task's readers use (stat, state, tau, largest; bins where state is kLeft), so a task left from an earlier
// call needs no reset, and the call's serial start allocates and clears nothing (on 16 threads a 1x64x112x112
// grad takes about 80 us, of which the work before the region was 7 to 9).
template <class Bins> std::vector<TaskSums<Bins>>& task_list() {
    thread_local std::vector<TaskSums<Bins>> tasks;
    return tasks;
}
template <class Bins> std::vector<TaskSums<Bins>>& start_tasks(const Nest& nest, std::vector<Bounds>* largest) {
    std::vector<TaskSums<Bins>>& tasks = task_list<Bins>();
    tasks.resize(size_t(nest.outer * nest.chunks));
    narrow_chunks = 0;
    other_chunks = 0;
    if (largest) largest->resize(tasks.size());
    return tasks;
}

// How many chunks step S5 summed in one level (narrow) and in levels (other), counted by a caller's work and
// added to the call's counters once at its end (an atomic shared by every thread and added to for each chunk
// would pass its cache line from core to core).
struct ChunkCounts {
    uint64_t narrow = 0, other = 0;
    ~ChunkCounts() {
        if (narrow != 0) narrow_chunks.fetch_add(narrow, std::memory_order_relaxed);
        if (other != 0) other_chunks.fetch_add(other, std::memory_order_relaxed);
    }
};

// Step S1 for one task's chunk into t (its statistics element, its sums, its largest |a| and |b| where
// largest is given), counted in counts; false where a value is not finite.
template <class T, class Bins, class Add>
bool chunk_task(const Nest& nest, int64_t task, const T* a, size_t ka, const T* b, size_t kb, size_t kstat, Add& add,
                TaskSums<Bins>& t, std::vector<Bounds>* largest, ChunkCounts& counts) {
    const auto [at, first, n] = nest.task(task);
    const std::array<int64_t, K>& step = nest.inner.stride;
    Scratch<T>& s = scratch<T>();
    const T* ar = a + at[ka];
    const T* br = b ? b + at[kb] : nullptr;
    if (step[ka] != 1) {  // gathered into the scratch rows
        for (int64_t j = 0; j < n; ++j) s.value[size_t(j)] = ar[j * step[ka]];
        ar = s.value.data();
    }
    if (br && step[kb] != 1) {
        s.other.resize(size_t(kChunk));
        for (int64_t j = 0; j < n; ++j) s.other[size_t(j)] = br[j * step[kb]];
        br = s.other.data();
    }
    t.stat = size_t(at[kstat]);
    t.state = run_chunk_sums(ar, br, n, t.tau.data(), t.largest.data());
    if (t.state == kNarrow) {
        ++counts.narrow;
        t.state = kExtracted;
    } else if (t.state == kExtracted || t.state == kLeft) ++counts.other;
    if (largest) (*largest)[size_t(task)] = t.largest;
    if (t.state == kLeft) {
        t.bins = std::make_unique<Bins>();
        for (int64_t j = 0; j < n; ++j) add(*t.bins, ar[j], br ? br[j] : ar[j]);
    }
    return t.state != kNotFinite;
}

// Step S3 for one statistics element: the sums of its tasks (order[first] to order[last - 1]) as integers;
// false (never, step C1) where a level sum is not a multiple of 2^-298.
template <class Bins>
bool channel_totals(const std::vector<TaskSums<Bins>>& tasks, const size_t* first, const size_t* last, ExactTotal& A,
                    ExactTotal& AB) {
    bool ok = true;
    for (const size_t* i = first; i != last; ++i) {
        const TaskSums<Bins>& t = tasks[*i];
        if (t.state == kLeft) {
            t.bins->add_to(A, AB);  // the bins' totals (step S3; units of 2^-298, step C1)
            continue;
        }
        for (int l = 0; l < kLevels; ++l) ok &= A.add(t.tau[size_t(l)]) & AB.add(t.tau[size_t(kLevels + l)]);
    }
    return ok;
}

// The tasks of each statistics element, in task order (a counting sort by stat_of(task)): element k's are
// order[begin[k]] to order[begin[k + 1] - 1].
// The vectors are the calling thread's, kept from call to call (as task_list's).
struct TaskOrder {
    std::vector<size_t> stat, begin, order, next;
};
inline TaskOrder& task_order() {
    thread_local TaskOrder o;
    return o;
}
template <class StatOf> void tasks_by_element(size_t tasks, size_t count, StatOf&& stat_of, TaskOrder& o) {
    o.stat.resize(tasks);
    o.begin.assign(count + 1, 0);
    o.order.resize(tasks);
    for (size_t i = 0; i < tasks; ++i) ++o.begin[(o.stat[i] = stat_of(i)) + 1];
    for (size_t k = 0; k < count; ++k) o.begin[k + 1] += o.begin[k];
    o.next.assign(o.begin.begin(), o.begin.end() - 1);
    for (size_t i = 0; i < tasks; ++i) o.order[o.next[o.stat[i]]++] = i;
}

// Steps S1 to S3 over a nest whose inner run has constant statistics (the stride kStat 0): sum a
// and sum a b (b null: sum a^2) of every statistics element, a chunk per task; false where a value
// is not finite (or, never, a level sum is not a multiple of 2^-298). add(bins, j, a, b) adds term j of
// the chunk to Bins. finish(k, A, AB) then takes statistics element k's two exact sums as integers
// (ExactTotal, step C1), the elements spread over the threads (each element's constants cost as much as
// hundreds of terms, thousands where they take rationals: with few statistics elements a serial loop over
// them would cap the speed-up on many cores). after(task) runs at the end of
// each task, on its thread (the grad's OutputGradient of the same chunk, where it needs no sum). largest,
// where given, receives each task's max |a| and max |b| (a float's bits; FLOAT16 with F16C: 0x7f800000).
template <class T, class Bins, class Add, class Finish, class After>
bool split_sums(const Nest& nest, const T* a, size_t ka, const T* b, size_t kb, size_t kstat, size_t count, Add&& add,
                Finish&& finish, After&& after, std::vector<Bounds>* largest = nullptr) {
    std::vector<TaskSums<Bins>>& tasks = start_tasks<Bins>(nest, largest);
    std::atomic<bool> finite{true};
    parallel_for(nest.outer * nest.chunks, [&](int64_t task) {
        ChunkCounts counts;
        if (!chunk_task(nest, task, a, ka, b, kb, kstat, add, tasks[size_t(task)], largest, counts)) finite = false;
        after(task);
    });
    if (!finite) return false;
    TaskOrder& o = task_order();
    tasks_by_element(
        tasks.size(), count, [&](size_t i) { return tasks[i].stat; }, o);
    const std::vector<size_t>&begin = o.begin, &order = o.order;
    std::atomic<bool> exact{true};
    parallel_for(int64_t(count), [&](int64_t k) {
        ExactTotal A, AB;
        if (channel_totals(tasks, order.data() + begin[size_t(k)], order.data() + begin[size_t(k) + 1], A, AB))
            finish(size_t(k), A, AB);
        else exact = false;  // never (step C1)
    });
    return exact.load();
}

// The statistics element (the offset at kstat) of each task of a nest whose inner run has constant statistics:
// Nest::task's offsets walked as an odometer over the outer indices, the last dimension fastest, without its
// four divisions a task (hundreds of tasks' divisions are microseconds of serial work before the threads
// start).
void task_stats(const Nest& nest, size_t kstat, std::vector<size_t>& stat) {
    stat.resize(size_t(nest.outer * nest.chunks));
    std::vector<int64_t> c(nest.dims.size(), 0);
    int64_t at = 0;
    for (size_t o = 0, t = 0; o < size_t(nest.outer); ++o) {
        for (int64_t j = 0; j < nest.chunks; ++j) stat[t++] = size_t(at);
        for (size_t i = nest.dims.size(); i-- > 0;) {
            at += nest.dims[i].stride[kstat];
            if (++c[i] < nest.dims[i].size) break;
            at -= c[i] * nest.dims[i].stride[kstat];
            c[i] = 0;
        }
    }
}

// Whether `count` statistics elements, a task each (element_sums), spread evenly over the threads that a call
// of `tasks` chunk tasks runs on: one thread, at least four elements a thread, or a multiple of the threads (64
// channels on 16 threads take 4 each).
inline bool spread_by_element(size_t count, int64_t tasks) {
    const int threads = parallel_threads(tasks);
    return threads == 1 || count >= 4 * size_t(threads) || count % size_t(threads) == 0;
}

// split_sums and the outputs in one parallel region, one statistics element per index (by element): its
// chunks' sums, finish(k, A, AB), then output(task) for each of its chunks, on one thread, the chunks read a
// second time while they are in the cache. For outputs that meet no input (the caller's check: an element's
// output must not change another element's inputs). False where a value is not finite; then some outputs may
// have been written. The same sums, constants and outputs as split_sums and a pass of output(task) after it:
// the same bits. The elements go to the threads in equal blocks (parallel_for_blocks: the elements cost about
// the same, and a thread takes the same channels call after call). On 16 threads a 1x64x112x112 grad takes
// about 80 us, so the serial work around the region counts: the tasks' elements come from task_stats, each
// element's chunk counts are added once, and the callers form no rationals that no element needs.
// first(k, begin, end), called first for each element k with its tasks [begin, end), may do part of that work
// another way: it returns 0 (none done), 1 (the outputs written: the sums and finish follow), 2 (all done) or 3 (the
// outputs written but some left: the sums and finish follow, then mend(task) for each of the element's tasks).
template <class T, class Bins, class Add, class Finish, class Output, class First, class Mend>
bool element_sums(const Nest& nest, const T* a, size_t ka, const T* b, size_t kb, size_t kstat, size_t count, Add&& add,
                  Finish&& finish, Output&& output, First&& first_part, Mend&& mend,
                  std::vector<Bounds>* largest = nullptr) {
    std::vector<TaskSums<Bins>>& tasks = start_tasks<Bins>(nest, largest);
    thread_local std::vector<size_t> stat_buffer;
    std::vector<size_t>& stat = stat_buffer;
    task_stats(nest, kstat, stat);
    TaskOrder& o = task_order();
    tasks_by_element(
        tasks.size(), count, [&](size_t i) { return stat[i]; }, o);
    const std::vector<size_t>&begin = o.begin, &order = o.order;
    std::atomic<bool> ok{true};
    parallel_for_blocks(int64_t(count), [&](int64_t k) {
        const size_t *first = order.data() + begin[size_t(k)], *last = order.data() + begin[size_t(k) + 1];
        const int done = first_part(size_t(k), first, last);
        if (done == 2) return;
        bool finite = true;
        ChunkCounts counts;
        for (const size_t* i = first; i != last; ++i)
            finite &= chunk_task(nest, int64_t(*i), a, ka, b, kb, kstat, add, tasks[*i], largest, counts);
        ExactTotal A, AB;
        if (!finite || !channel_totals(tasks, first, last, A, AB)) {
            ok = false;
            return;
        }
        finish(size_t(k), A, AB);
        if (done == 0)
            for (const size_t* i = first; i != last; ++i) output(int64_t(*i));
        if (done == 3)
            for (const size_t* i = first; i != last; ++i) mend(int64_t(*i));
    });
    return ok.load();
}

// The sums of every statistics element in Bins (Moments or GradSums), one pass in order (statistics
// that vary along the inner run): add(bins, a, b) adds the terms of an element of a and b (b = a for
// the moments), false for an infinity or a NaN; then finish(k, A, AB) as split_sums (stat's strides
// give an element's statistics element). False where a value is not finite.
template <class Bins, class T, class Add, class Finish>
bool serial_sums(const std::vector<uint32_t>& sizes, const T* a, const int64_t* a_strides, const T* b,
                 const int64_t* b_strides, const std::vector<int64_t>& stat, size_t count, Add&& add, Finish&& finish) {
    std::vector<Bins> bins(count);
    bool finite = true;
    const std::array<const int64_t*, 3> strides = {a_strides, b_strides, stat.data()};
    for_each_run<3>(sizes, strides, {0, 0, 0},
                    [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& step) {
        if (!finite) return;
        bool ok = true;
        for (int64_t j = 0; j < n; ++j)
            ok &= add(bins[size_t(off[2] + j * step[2])], a[off[0] + j * step[0]], b[off[1] + j * step[1]]);
        finite = finite && ok;
    });
    if (!finite) return false;
    parallel_for(int64_t(count), [&](int64_t k) {
        ExactTotal A, AB;
        bins[size_t(k)].add_to(A, AB);
        finish(size_t(k), A, AB);
    });
    return true;
}

// ---- BATCH_NORMALIZATION_TRAINING ----------------------------------------------------------------

using TRAINING = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC;

std::atomic<uint64_t> training_decided{0}, training_plain{0}, training_single{0};

// The exact moments of one statistics element: sum X and sum X^2 as integers in bins by the float
// exponent of X. X = m 2^(e - 150) (m < 2^24 with the hidden bit; a subnormal has e = 1 and no
// hidden bit), so bin e holds sum of +-m (an int64 for 2^39 terms) and sum of m^2 (X^2 = m^2
// 2^(2e - 300), an unsigned 128-bit integer). Exact whatever the order of the additions.
__extension__ typedef unsigned __int128 uint128;  // GCC's and Clang's
struct Moments {
    std::array<int64_t, 256> sum{};
    std::array<uint128, 256> squares{};
    int64_t half_sum = 0;      // FLOAT16: sum of X 2^24 (|X| 2^24 < 2^41: 2^22 terms)
    uint128 half_squares = 0;  // and of X^2 2^48
    // Adds the float whose bits are `bits`; false for an infinity or a NaN.
    bool add(uint32_t bits) {
        const uint32_t e = (bits >> 23) & 0xffu;
        const uint32_t m = (bits & 0x7fffffu) | (e != 0 ? 0x800000u : 0u);
        const size_t bin = e != 0 ? e : 1;
        sum[bin] += (bits >> 31) ? -int64_t(m) : int64_t(m);
        squares[bin] += uint64_t(m) * m;
        return e != 255;
    }
    // Adds the FLOAT16 whose bits are `bits` (X 2^24 = m 2^(E - 1), or M below 2^-14); false for an
    // infinity or a NaN.
    bool add_half(uint16_t bits) {
        const uint32_t E = (uint32_t(bits) >> 10) & 31u, M = uint32_t(bits) & 1023u;
        const int64_t v = E != 0 ? int64_t(M | 1024u) << (E - 1) : int64_t(M);
        half_sum += (bits & 0x8000u) ? -v : v;
        half_squares += uint128(uint64_t(v)) * uint64_t(v);
        return E != 31;
    }
    // S 2^149 and Q 2^298, the exact sums as integers, added to S and Q in units of 2^-298 (step C1).
    void add_to(ExactTotal& S, ExactTotal& Q) const {
        for (int e = 1; e < 255; ++e) {
            S.add(sum[size_t(e)], e + 148);
            Q.add(wide_int(squares[size_t(e)]), 2 * (e - 1));
        }
        S.add(half_sum, 125 + 149);
        Q.add(wide_int(half_squares), 250);
    }
};

// The interval of one OutputTensor element (the training header's steps T3 to T5): y0 into y and
// the half-width w into w, from sr~ = fl(s r~), mu~, bf = fl(Bias + FusedAdd) and the run's A.
DMLREF_INLINE void estimate_training(double x, double mu, double sr, double bf, double A, double& y, double& w) {
    const double t = sr * (x - mu);
    const double yt = t + bf;
    y = yt + 0.0;
    w = (((std::fabs(t) * (6 * 0x1p-53 * (1 + 0x1p-40)) + std::fabs(yt) * (0x1p-52 * (1 + 0x1p-40))) +
          std::fabs(bf) * (0x1p-53 * (1 + 0x1p-40))) +
         A) +
        0x1p-1072;
}

template <class T>
DMLREF_INLINE bool training_run(const T* __restrict x, const T* __restrict fa, int64_t n, double mu, double sr,
                                double b, double A, T* __restrict value) {
    return decide_run(
        n,
        [x, fa, mu, sr, b, A](int64_t j, double& y, double& w) {
        estimate_training(load(x[j]), mu, sr, fa ? b + load(fa[j]) : b, A, y, w);
        },
        value);
}
DMLREF_CLONES bool training_run_f32(const float* x, const float* fa, int64_t n, double mu, double sr, double b,
                                    double A, float* value) {
    return fa ? training_run(x, fa, n, mu, sr, b, A, value) : training_run<float>(x, nullptr, n, mu, sr, b, A, value);
}
DMLREF_CLONES bool training_run_f16(const half* x, const half* fa, int64_t n, double mu, double sr, double b, double A,
                                    half* value) {
    return fa ? training_run(x, fa, n, mu, sr, b, A, value) : training_run<half>(x, nullptr, n, mu, sr, b, A, value);
}
// As run_uniform, for the training's OutputTensor (mu32: the batch mean rounded to FLOAT32, for FLOAT16's float32
// stage).
inline bool run_training(const float* x, const float* fa, int64_t n, double mu, float, double sr, double b, double A,
                         float* value, uint64_t&) {
    return training_run_f32(x, fa, n, mu, sr, b, A, value);
}
bool run_training(const half* x, const half* fa, int64_t n, double mu, float mu32, double sr, double b, double A,
                  half* value, uint64_t& single);

// Step T2's constants of one statistics element: mu~ = RN(mean), r~ = fl(1 / fl(sqrt(RN(var +
// Epsilon)))) (NaN for var + Epsilon <= 0), sr~ = fl(s r~), A = fl(fl(|sr~| |mu~|) 2^-53 (1 + 2^-39)).
struct Run {
    double mu, sr, A;
};
Run run_constants(const mpq_class& mean, const mpq_class& var, double scale, float epsilon) {
    Run r;
    r.mu = round_rational<double>(mean);
    const mpq_class D = var + mpq_class(double(epsilon));
    const double root = sgn(D) > 0 ? 1.0 / std::sqrt(round_rational<double>(D))
                                   : std::numeric_limits<double>::quiet_NaN();
    r.sr = scale * root;
    r.A = (std::fabs(r.sr) * std::fabs(r.mu)) * (0x1p-53 * (1 + 0x1p-39));
    return r;
}

// FLOAT16's step T2 without rationals (header, step T6): RN53(N 2^e / D) for integers 0 <= N < 2^127 and
// 0 < D < 2^64, by step C3's long division (batch_normalization_channel.cpp) of N as a total; NaN where the
// result is neither 0 nor normal (never for T6's quotients, which lie between 2^-150 and 2^130).
int bit_length(uint128 v) {
    return v >> 64 ? 128 - std::countl_zero(uint64_t(v >> 64)) : 64 - std::countl_zero(uint64_t(v));
}
double quotient_rn(uint128 N, uint64_t D, int e) {
    ExactTotal n;
    n.add(wide_int(N), 0);
    return quotient_rn(n, D, e - ExactTotal::kUnit);
}
// Whether the double a (finite) is a midpoint between neighbours of a binary format of p significant bits whose
// values below 2^emin are the multiples of 2^(emin - p + 1), or one beyond its largest finite value's binade.
bool is_midpoint(double a, int p, int emin) {
    a = std::fabs(a);
    if (a == 0) return false;
    int e2;
    std::frexp(a, &e2);
    const double t = std::ldexp(a, p - std::max(e2 - 1, emin));  // a over half a spacing
    return t == std::floor(t) && std::fmod(t, 2.0) == 1.0;
}
struct HalfTraining {
    int64_t sum = 0;  // S 2^24
    uint128 var = 0;  // M Q - S^2 in units of 2^-48: var = this / (M^2 2^48)
};
// Step T6: from S = sum X and Q = sum X^2 (FLOAT16 X), the run's constants, OutputMean's and OutputVariance's
// values and the sums as integers; false (nothing to use) where a step cannot decide.
bool half_training_constants(const mpq_class& S, const mpq_class& Q, uint64_t M, double scale, float epsilon, Run& r,
                             float& mu32, half& out_mean, half& out_var, HalfTraining& h) {
    // S 2^24 and Q 2^48 are integers (sums of multiples of 2^-24 and of their squares): canonical denominators are
    // powers of two no larger.
    const mpz_class &sn = S.get_num(), &sd = S.get_den(), &qn = Q.get_num(), &qd = Q.get_den();
    const size_t sdb = mpz_sizeinbase(sd.get_mpz_t(), 2) - 1, qdb = mpz_sizeinbase(qd.get_mpz_t(), 2) - 1;
    if (sdb > 24 || qdb > 48 || mpz_popcount(sd.get_mpz_t()) != 1 || mpz_popcount(qd.get_mpz_t()) != 1) return false;
    if (mpz_sizeinbase(sn.get_mpz_t(), 2) + (24 - sdb) > 62 || sgn(qn) < 0 ||
        mpz_sizeinbase(qn.get_mpz_t(), 2) + (48 - qdb) > 104 || M >= (uint64_t(1) << 22))
        return false;
    const int64_t s = int64_t(mpz_get_si(sn.get_mpz_t())) * (int64_t(1) << (24 - sdb));
    uint128 q = 0;
    for (size_t i = 0; i < mpz_size(qn.get_mpz_t()) && i < 2; ++i)
        q |= uint128(mpz_getlimbn(qn.get_mpz_t(), mp_size_t(i))) << (64 * i);
    static_assert(GMP_NUMB_BITS == 64);
    q <<= (48 - qdb);
    const uint128 s2 = uint128(uint64_t(s < 0 ? -s : s)) * uint64_t(s < 0 ? -s : s);
    const uint128 mq = q * M;   // < 2^126
    if (mq < s2) return false;  // never (sum (X - mean)^2 >= 0)
    h.sum = s;
    h.var = mq - s2;
    const uint64_t M2 = M * M;
    // mu = RN53(S / M), the variance RN53((M Q - S^2) / M^2), each exactly.
    const double mu = (s < 0 ? -1.0 : 1.0) * quotient_rn(uint128(uint64_t(s < 0 ? -s : s)), M, -24);
    const double v = quotient_rn(h.var, M2, -48);
    if (std::isnan(mu) || std::isnan(v)) return false;  // never (quotient_rn's range)
    // RN24 and RN16 of the mean and RN16 of the variance from them, where they are not midpoints of the format.
    if (is_midpoint(mu, 24, -126) || is_midpoint(mu, 11, -14) || is_midpoint(v, 11, -14)) return false;
    mu32 = float(mu);
    out_mean = round_to_float<half>(mu);
    out_var = round_to_float<half>(v);
    // D~ = RN53(var + Epsilon) = RN53((N 2^g1 + e M^2 2^g2) / (M^2 2^(48 + g1))), Epsilon = e 2^k (e an integer).
    if (!(epsilon >= 0) || !std::isfinite(epsilon)) return false;
    int k = 0;
    const double f = std::frexp(double(epsilon), &k);
    const uint64_t em = uint64_t(std::ldexp(f, 24));  // exact: a float has 24 bits
    k -= 24;
    const int g1 = std::max(0, -(k + 48)), g2 = std::max(0, k + 48);
    if (em != 0 && (bit_length(h.var) + g1 > 125 || bit_length(uint128(em) * M2) + g2 > 125)) return false;
    const uint128 N = (h.var << g1) + (em != 0 ? (uint128(em) * M2) << g2 : uint128(0));
    if (N == 0) return false;  // D = 0: the plain element
    const double Dr = quotient_rn(N, M2, -48 - g1);
    if (std::isnan(Dr)) return false;  // never (quotient_rn's range)
    r.mu = mu;
    r.sr = scale * (1.0 / std::sqrt(Dr));
    r.A = (std::fabs(r.sr) * std::fabs(r.mu)) * (0x1p-53 * (1 + 0x1p-39));
    return true;
}

constexpr size_t kMaxStatistics = 4096;  // Moments are 6 KiB each

template <class T> bool training(const TRAINING& d, const Bindings& b) {
    const std::vector<T> scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
    const std::vector<T> bias = logical_values<T>(d.BiasTensor, b.at("BiasTensor"));
    const size_t count = scale.size();
    if (count > kMaxStatistics) return false;
    const uint64_t M = element_count(d.InputTensor) / count;
    if (M >= (uint64_t(1) << (is_half_v<T> ? 22 : 38))) return false;  // Moments' integers
    const TensorView X(d.InputTensor, b.at("InputTensor")), Y(d.OutputTensor, b.at("OutputTensor"));
    std::optional<TensorView> FA;
    if (d.FusedAddTensor) FA.emplace(*d.FusedAddTensor, b.at("FusedAddTensor"));
    const std::vector<int64_t> stat = stat_strides(d.ScaleTensor.Sizes);
    const T* x = X.data<T>();

    // The nest of OutputTensor's loop (step T3): kX, kY, then the fused add in kMean's place, the
    // statistics in kRoot's (kScale, kBias unused).
    const int64_t* fa_strides = FA ? FA->strides.data() : X.strides.data();
    const Nest nest = nest_of(d.InputTensor.Sizes, [&](size_t i) {
        return std::array<int64_t, K>{X.strides[i], Y.strides[i], fa_strides[i], stat[i], 0, 0};
    });
    constexpr size_t kFa = kMean, kStat = kRoot;

    // Step T1: the exact moments S = sum X and Q = sum X^2 (a NaN or an infinity in X: the plain
    // loop). Statistics constant along the inner run: by extraction, a chunk per task (steps S1 to
    // S3); otherwise in bins, one pass in order.
    // Step T2, per statistics element as its sums are known: the exact mean S / M and variance
    // (M Q - S^2) / M^2 (OutputMean and OutputVariance rounded once), mu~ and D~ rounded to float64,
    // r~ and sr~, and A.
    // The rationals only where formed (an mpq's construction allocates, and these are built before the threads
    // start).
    std::vector<std::optional<mpq_class>> mean(count), var(count);
    std::vector<double> mu(count), sr(count), A(count);
    std::vector<float> mu32(count);  // the mean rounded to FLOAT32 (FLOAT16's float32 stage)
    std::vector<T> out_mean(count), out_var(count);
    const mpq_class Mq{mpz_class(static_cast<unsigned long>(M))};
    auto add = [](Moments& m, T v, T) {
        if constexpr (is_half_v<T>) return m.add_half(to_bits(v));
        else return m.add(to_bits(v));
    };
    // FLOAT16 on runs of constant statistics: step T6 first; the exact mean and variance of a channel it decides
    // are formed only where an element needs the plain element (lazy).
    const bool uniform = nest.inner.stride[kStat] == 0;
    std::vector<char> lazy(count, 0);
    std::vector<HalfTraining> ints(count);
    auto finish = [&](size_t k, const mpq_class& S, const mpq_class& Q) {
        if constexpr (is_half_v<T>) {
            Run run;
            if (uniform && half_training_constants(S, Q, M, load(scale[k]), d.Epsilon, run, mu32[k], out_mean[k],
                                                   out_var[k], ints[k])) {
                lazy[k] = 1;
                mu[k] = run.mu;
                sr[k] = run.sr;
                A[k] = run.A;
                return;
            }
        }
        const mpq_class& m = mean[k].emplace(S / Mq);
        const mpq_class& v = var[k].emplace((Q * Mq - S * S) / (Mq * Mq));
        out_mean[k] = round_rational<T>(m);
        out_var[k] = round_rational<T>(v);
        const Run run = run_constants(m, v, load(scale[k]), d.Epsilon);
        mu[k] = run.mu;
        mu32[k] = round_rational<float>(m);
        sr[k] = run.sr;
        A[k] = run.A;
    };
    auto finish_exact = [&](size_t k, const ExactTotal& S, const ExactTotal& Q) {
        finish(k, S.rational(), Q.rational());
    };
    // Step T3 on: OutputTensor, as the forward's loop (runs of neighbouring elements in chunks).
    const int64_t outer = nest.outer, chunks = nest.chunks;
    const Activation<T> activation(d.FusedActivation);
    T* y = Y.data<T>();
    const T* fa = FA ? FA->data<T>() : nullptr;
    const std::span<std::byte> xb = b.at("InputTensor"), yb = b.at("OutputTensor");
    bool overlap = overlaps(xb, yb);
    if (FA) {
        const std::span<std::byte> fb = b.at("FusedAddTensor");
        overlap = overlap || overlaps(fb, yb);
    }
    std::atomic<uint64_t> plain{0}, single{0};
    auto output = [&](int64_t task) {
        const auto [at, first, n] = nest.task(task);
        const std::array<int64_t, K>& step = nest.inner.stride;
        Scratch<T>& s = scratch<T>();
        uint64_t by_single = 0;
        T* out = y + at[kY];
        const bool direct = step[kY] == 1 && !overlap;
        T* value = direct ? out : s.value.data();
        const T* xr = x + at[kX];
        const T* far = fa ? fa + at[kFa] : nullptr;
        const size_t k0 = size_t(at[kStat]);
        bool any = false;
        if (step[kStat] == 0 && step[kX] == 1 && (!fa || step[kFa] == 1)) {
            any = run_training(xr, far, n, mu[k0], mu32[k0], sr[k0], load(bias[k0]), A[k0], value, by_single);
        } else {
            for (int64_t j = 0; j < n; ++j) {
                const size_t k = k0 + size_t(j * step[kStat]);
                const double bk = load(bias[k]);
                double ye, we;
                estimate_training(load(xr[j * step[kX]]), mu[k], sr[k], far ? bk + load(far[j * step[kFa]]) : bk, A[k],
                                  ye, we);
                value[j] = decide_one(ye, we, value);
                any |= is_undecided(value[j]);
            }
        }
        std::vector<int32_t>& undecided = s.undecided;
        undecided.clear();
        if (any)
            for (int64_t j = 0; j < n; ++j)
                if (is_undecided(value[j])) undecided.push_back(int32_t(j));
        activation.apply(value, n);
        std::optional<mpq_class> lazy_mean, lazy_var;
        size_t lazy_k = count;
        for (const int32_t j : undecided) {
            const size_t k = k0 + size_t(j * step[kStat]);
            const mpq_class *mk = nullptr, *vk = nullptr;
            if (lazy[k]) {
                if (lazy_k != k) {
                    // S / M and (M Q - S^2) / M^2, from step T6's integers.
                    lazy_mean.emplace(mpz_class(static_cast<long>(ints[k].sum)),
                                      mpz_class(static_cast<unsigned long>(M)) << 24);
                    lazy_var.emplace(to_mpz(ints[k].var), mpz_class(static_cast<unsigned long>(M * M)) << 48);
                    lazy_mean->canonicalize();
                    lazy_var->canonicalize();
                    lazy_k = k;
                }
                mk = &*lazy_mean;
                vk = &*lazy_var;
            } else {
                mk = &*mean[k];
                vk = &*var[k];
            }
            value[j] = batch_normalization_training_element<T>(xr[j * step[kX]], *mk, *vk, scale[k], bias[k],
                                                               far ? &far[j * step[kFa]] : nullptr, d.Epsilon,
                                                               d.FusedActivation);
        }
        if (!undecided.empty()) plain.fetch_add(undecided.size(), std::memory_order_relaxed);
        if (by_single != 0) single.fetch_add(by_single, std::memory_order_relaxed);
        if (direct) return;
        if (step[kY] == 1) std::memcpy(static_cast<void*>(out), value, size_t(n) * sizeof(T));
        else
            for (int64_t j = 0; j < n; ++j) out[j * step[kY]] = value[j];
    };
    // As the grads': one parallel region (element_sums) where the statistics are constant along the inner run,
    // the output meets no input and the statistics elements spread evenly over the threads; otherwise the sums'
    // tasks, the constants, then the outputs.
    const bool by_element = uniform && !overlap && spread_by_element(count, outer * chunks);
    bool finite;
    if (by_element)
        finite = element_sums<T, Moments>(
            nest, x, kX, static_cast<const T*>(nullptr), kX, kStat, count, add, finish_exact, output,
            [](size_t, const size_t*, const size_t*) { return 0; }, [](int64_t) {});
    else if (uniform)
        finite = split_sums<T, Moments>(nest, x, kX, static_cast<const T*>(nullptr), kX, kStat, count, add,
                                        finish_exact, [](int64_t) {});
    else
        finite = serial_sums<Moments>(d.InputTensor.Sizes, x, X.strides.data(), x, X.strides.data(), stat, count, add,
                                      finish_exact);
    if (!finite) return false;
    if (!by_element) parallel_for(outer * chunks, output);
    write_logical<T>(d.OutputMeanTensor, b.at("OutputMeanTensor"), [&](uint64_t k) { return out_mean[k]; });
    write_logical<T>(d.OutputVarianceTensor, b.at("OutputVarianceTensor"), [&](uint64_t k) { return out_var[k]; });
    training_plain = plain.load();
    training_decided = uint64_t(outer * nest.inner.size) - training_plain.load();
    training_single = single.load();
    return true;
}

// ---- BATCH_NORMALIZATION_GRAD ---------------------------------------------------------------------

using GRAD = DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC;

std::atomic<uint64_t> grad_decided{0}, grad_plain{0}, grad_single{0};

// The exact sums of one statistics element: sum dY (as Moments' sum) and sum dY X, each product of
// two floats an exact double m_dy m_x 2^(e_dy + e_x - 300) with m_dy m_x < 2^48, summed in 128-bit
// bins by e_dy + e_x (FLOAT16: dY 2^24 in one int64, dY X 2^48 in one 128-bit integer).
__extension__ typedef __int128 int128;
struct GradSums {
    std::array<int64_t, 256> dy{};
    std::array<int128, 512> product{};
    int64_t half_dy = 0;
    int128 half_product = 0;
    // Adds the floats whose bits are dy and x; false for an infinity or a NaN in either.
    bool add(uint32_t db, uint32_t xb) {
        const uint32_t ed = (db >> 23) & 0xffu, ex = (xb >> 23) & 0xffu;
        const uint32_t md = (db & 0x7fffffu) | (ed != 0 ? 0x800000u : 0u);
        const uint32_t mx = (xb & 0x7fffffu) | (ex != 0 ? 0x800000u : 0u);
        const size_t bd = ed != 0 ? ed : 1, bx = ex != 0 ? ex : 1;
        dy[bd] += (db >> 31) ? -int64_t(md) : int64_t(md);
        const int64_t p = int64_t(uint64_t(md) * mx);
        product[bd + bx] += ((db ^ xb) >> 31) ? -int128(p) : int128(p);
        return ed != 255 && ex != 255;
    }
    bool add_half(uint16_t db, uint16_t xb) {
        auto scaled = [](uint16_t h) {  // h 2^24, an integer below 2^41
            const uint32_t E = (uint32_t(h) >> 10) & 31u, M = uint32_t(h) & 1023u;
            const int64_t v = E != 0 ? int64_t(M | 1024u) << (E - 1) : int64_t(M);
            return (h & 0x8000u) ? -v : v;
        };
        const int64_t d = scaled(db), x = scaled(xb);
        half_dy += d;
        half_product += int128(d) * x;
        return ((db >> 10) & 31u) != 31u && ((xb >> 10) & 31u) != 31u;
    }
    // sum dY 2^149 and sum dY X 2^298, the exact sums as integers, added to D and P in units of 2^-298 (step C1).
    void add_to(ExactTotal& D, ExactTotal& P) const {
        for (int e = 1; e < 255; ++e) D.add(dy[size_t(e)], e + 148);
        for (int e = 2; e < 510; ++e) P.add(product[size_t(e)], e - 2);
        D.add(half_dy, 125 + 149);
        P.add(half_product, 250);
    }
};

// a~ = RN(sum dY / M) and c~ = RN(sum dY (X - Mean) / (M D)) where D = Variance + Epsilon > 0 is finite
// (otherwise c~ is 0 and r~, hence sr~, NaN: every element of the statistic takes the plain element).
std::pair<double, double> training_grad_constants(const mpq_class& sum_dy, const mpq_class& sum_c, uint64_t M,
                                                  double variance, float epsilon) {
    const mpq_class Mq{mpz_class(static_cast<unsigned long>(M))};
    const mpq_class Dq = std::isfinite(variance) ? mpq_class(variance) + mpq_class(double(epsilon)) : mpq_class(0);
    return {round_rational<double>(sum_dy / Mq), sgn(Dq) > 0 ? round_rational<double>(sum_c / (Mq * Dq)) : 0.0};
}

// Step G0: OutputBiasGradient and OutputScaleGradient of one statistics element, decided from float64
// estimates, else (and for a zero) the plain loop's roundings. The decided and the left are counted.
std::atomic<uint64_t> statistics_decided{0}, statistics_plain{0};
// Of the last FLOAT32 grad's statistics elements, those step G9 decided and those it left to the exact sums.
std::atomic<uint64_t> pass_statistics_decided{0}, pass_statistics_exact{0};
// p and w as step 8 decides them: the value's bits, or undecided_bits for a zero or an undecided one.
template <class T> T decide_nonzero(double p, double w) {
    const T v = decide_one(p, w, static_cast<T*>(nullptr));
    return is_undecided(v) || load(v) == 0 ? from_bits<T>(undecided_bits<T>()) : v;
}
// The exact sums as integers (step C1): k = mpq_get_d(sum) is their truncation (step C2); the rationals only
// for a value left undecided.
template <class T> T bias_gradient_of(const ExactTotal& sum_dy, uint64_t& decided) {
    const double k = sum_dy.truncated();
    const T v = decide_nonzero<T>(k, std::fabs(k) * 0x1p-51);
    if (is_undecided(v)) return round_rational<T>(sum_dy.rational());
    ++decided;
    return v;
}
template <class T> T scale_gradient_of(const ExactTotal& sum_c, T variance, float epsilon, uint64_t& decided) {
    const double p = sum_c.truncated() * root_estimate(load(variance), epsilon);
    const T v = decide_nonzero<T>(p, std::fabs(p) * 0x1p-50);
    if (is_undecided(v)) return batch_normalization_scale_gradient<T>(sum_c.rational(), variance, epsilon);
    ++decided;
    return v;
}

// Step G9's dB and dP: bounds on the errors of step G8's sums of M terms, each of which went through at most `depth`
// additions, dm and xm the largest |dY| and |X| (a float's bits).
inline std::pair<double, double> pass_bounds(uint32_t dm, uint32_t xm, uint64_t M, uint64_t depth) {
    const double g = double(depth) * (0x1p-53 * (1 + 0x1p-12));
    const double md = double(M) * double(from_bits<float>(dm));
    return {(md * g) * (1 + 0x1p-30), ((md * double(from_bits<float>(xm))) * g) * (1 + 0x1p-30)};
}
// Step G9: OutputBiasGradient (bias) and OutputScaleGradient (scale) of a statistics element from step G8's
// sums b (of dY) and p (of dY X) over its M elements, each of which went through at most `depth` additions, dm
// and xm the largest |dY| and |X|; false, with nothing written, where either is undecided or zero.
// From b with (1 - u)^2 dB >= |b - sum dY| and c with dC >= |c - sum dY (X - Mean)| (G9, G10).
template <class T>
bool decide_statistics(double b, double dB, double c, double dC, T variance, float epsilon, T& bias, T& scale) {
    const T vb = decide_nonzero<T>(b, dB + std::fabs(b) * 0x1p-51);
    const double r = root_estimate(load(variance), epsilon), ps = c * r;
    const T vs = decide_nonzero<T>(ps, std::fabs(ps) * 0x1p-50 + (dC * r) * (1 + 0x1p-20));
    if (is_undecided(vb) || is_undecided(vs)) return false;
    bias = vb;
    scale = vs;
    return true;
}
template <class T>
bool pass_statistics(double b, double p, uint32_t dm, uint32_t xm, uint64_t M, uint64_t depth, double mean, T variance,
                     float epsilon, T& bias, T& scale) {
    const auto [dB, dP] = pass_bounds(dm, xm, M, depth);
    const double q = mean * b, c = p - q;
    const double dC = ((dP + std::fabs(mean) * dB) + (std::fabs(c) + std::fabs(q)) * 0x1p-52) * (1 + 0x1p-30);
    return decide_statistics(b, dB, c, dC, variance, epsilon, bias, scale);
}

// One OutputGradientTensor element of _TRAINING_GRAD (steps G1 to G3 of the header): z0 and w.
DMLREF_INLINE void estimate_training_grad(double dy, double x, double m, double a, double c, double sr, double& z0,
                                          double& w) {
    const double h = dy - a;
    const double q = (x - m) * c;
    const double g = h - q;
    const double z = sr * g;
    z0 = z + 0.0;
    // Step G3: K1 and K2 are the run's constants (the run loops hoist them).
    const double G = (std::fabs(g) * 7 + std::fabs(h)) + std::fabs(q) * 3;
    const double K1 = std::fabs(sr) * (0x1p-53 * (1 + 0x1p-40));
    const double K2 = (std::fabs(sr) * std::fabs(a)) * (0x1p-53 * (1 + 0x1p-40));
    w = (G * K1 + K2) + 0x1p-1068;
}

// estimate_training_grad and the decision over a run of n elements whose statistics are constant, dY
// and X contiguous (cloned as uniform_run); returns whether any element is undecided.
template <class T>
DMLREF_INLINE bool training_grad_run(const T* __restrict dy, const T* __restrict x, int64_t n, double m, double a,
                                     double c, double sr, T* __restrict value) {
    return decide_run(
        n,
        [dy, x, m, a, c, sr](int64_t j, double& z, double& w) {
        estimate_training_grad(load(dy[j]), load(x[j]), m, a, c, sr, z, w);
        },
        value);
}
DMLREF_CLONES bool training_grad_run_f32(const float* dy, const float* x, int64_t n, double m, double a, double c,
                                         double sr, float* value) {
    return training_grad_run(dy, x, n, m, a, c, sr, value);
}
DMLREF_CLONES bool training_grad_run_f16(const half* dy, const half* x, int64_t n, double m, double a, double c,
                                         double sr, half* value) {
    return training_grad_run(dy, x, n, m, a, c, sr, value);
}
inline bool run_training_grad(const float* dy, const float* x, int64_t n, double m, double a, double c, double sr,
                              float* value, uint64_t&) {
    return training_grad_run_f32(dy, x, n, m, a, c, sr, value);
}
// Step G5's W of a chunk from its max |dY| and max |X| (dm, xm): estimate_training_grad's w for |h|, |q| and
// |g| at their bounds fl(dm + |a~|), fl(fl(xm + |Mean|) |c~|) and the sum of those two.
inline double training_grad_width(float dm, float xm, double m, double a, double c, double sr) {
    const double h = double(dm) + std::fabs(a);
    const double q = (double(xm) + std::fabs(m)) * std::fabs(c);
    const double g = h + q;
    const double G = (g * 7 + h) + q * 3;
    const double K1 = std::fabs(sr) * (0x1p-53 * (1 + 0x1p-40));
    const double K2 = (std::fabs(sr) * std::fabs(a)) * (0x1p-53 * (1 + 0x1p-40));
    return (G * K1 + K2) + 0x1p-1068;
}
// Step G5's first stage on a FLOAT32 run: z = fl(sr~ g) as estimate_training_grad computes it, decided where
// fl(z - W) and fl(z + W) round to the same float (W < 2^900, the caller's check); otherwise undecided_bits.
// Returns whether any element is undecided.
DMLREF_CLONES bool training_grad_first_f32(const float* __restrict dy, const float* __restrict x, int64_t n, double m,
                                           double a, double c, double sr, double W, float* __restrict value) {
    uint32_t* __restrict out = reinterpret_cast<uint32_t*>(value);
    uint32_t any = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double h = double(dy[j]) - a;
        const double q = (double(x[j]) - m) * c;
        const double z = sr * (h - q);
        const uint32_t lo = to_bits(static_cast<float>(z - W)), hi = to_bits(static_cast<float>(z + W));
        const uint32_t mask = 0u - uint32_t(lo != hi);
        any |= mask;
        out[j] = (lo & ~mask) | (undecided_bits<float>() & mask);
    }
    return any != 0;
}

// Step G7's run constants and chunk width (header): K = fl(sr~ c~), e1 = fl(fl(c~ m) - a~), K0 = fl(sr~ e1) and
// E0, the bound on |K0 - P (c m - a)|; t = fl(K0 - K x) and z = fl(sr~ dY + t) (two fused multiply-adds).
struct FusedRun {
    double sr, K, K0, E0;
};
inline FusedRun fused_run(double m, double a, double c, double sr) {
    FusedRun r;
    r.sr = sr;
    r.K = sr * c;
    const double e1 = c * m - a;
    r.K0 = sr * e1;
    r.E0 = (((std::fabs(e1) * 6 + (std::fabs(c) * std::fabs(m)) * 3) + std::fabs(a) * 2) *
            (std::fabs(sr) * (0x1p-53 * (1 + 0x1p-40))));
    return r;
}
// The chunk's W from its max |dY| and max |X| (dm, xm); NaN or not below 2^900 where the stage must not run.
inline double fused_width(const FusedRun& r, float dm, float xm) {
    const double Sd = std::fabs(r.sr) * double(dm), Kx = std::fabs(r.K) * double(xm);
    const double Tm = Kx + std::fabs(r.K0), Zm = Sd + Tm;
    return ((((Zm * 2 + Tm) + Sd * 4) + Kx * 6) * (0x1p-53 * (1 + 0x1p-40)) + r.E0) + 0x1p-1068;
}

// ---- FLOAT16 runs in two stages (header, steps H1 to H5) ----------------------------------------

// The float32 stage's constants: 4v and 2v (v = 2^-24), and the floor of w (step H2).
constexpr float kFour = 0x1p-22f, kTwo = 0x1p-23f, kFloor = 0x1p-125f;

// For the tests: step H7 in place of step H8 on machines with AVX-512 (and H6 eight lanes at a time, not sixteen).
std::atomic<bool> chunk_width_forced{false};

// Step H1's range of a run constant k = fl32(k64): 0 only where k64 is 0, otherwise 2^-e <= |k| <= 2^e
// (false for a NaN or an infinity).
inline bool in_range(double k64, float k, int e) {
    return k64 == 0 || (std::fabs(k) >= std::ldexp(1.0f, -e) && std::fabs(k) <= std::ldexp(1.0f, e));
}

#if defined(DMLREF_F16C_PATHS)

// Step H3 on eight elements' y and w: the FLOAT16 bits of lo = fl(y - w) and hi = fl(y + w), each
// rounded to nearest even by VCVTPS2PH, where they are the same and w < 2^100 (false for NaN);
// otherwise undecided_bits, with 0xffff in mask.
DMLREF_F16C inline __m128i decide8f(__m256 y, __m256 w, __m128i& mask) {
    const __m128i lo = _mm256_cvtps_ph(_mm256_sub_ps(y, w), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i hi = _mm256_cvtps_ph(_mm256_add_ps(y, w), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i finite = narrow(_mm256_castps_si256(_mm256_cmp_ps(w, _mm256_set1_ps(0x1p100f), _CMP_LT_OQ)));
    mask = _mm_andnot_si128(_mm_and_si128(_mm_cmpeq_epi16(lo, hi), finite), _mm_set1_epi16(-1));
    return _mm_blendv_epi8(lo, _mm_set1_epi16(int16_t(undecided_bits<half>())), mask);
}

// Step H7's first stage: the largest |x| of n FLOAT16 values as a float (infinite or NaN where one is).
DMLREF_F16C inline float largest_half(const half* x, int64_t n) {
    const uint16_t* bits = reinterpret_cast<const uint16_t*>(x);
    __m256i m = _mm256_setzero_si256();
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        m = _mm256_max_epu16(m, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + j)),
                                                 _mm256_set1_epi16(0x7fff)));
    alignas(32) uint16_t lanes[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), m);
    uint16_t largest = 0;
    for (const uint16_t v : lanes) largest = std::max(largest, v);
    for (; j < n; ++j) largest = std::max(largest, uint16_t(bits[j] & 0x7fffu));
    return _cvtsh_ss(largest);
}
// Step H7's decision of eight or sixteen estimates y with the chunk's W: the FLOAT16 bits of fl(y - W) where
// fl(y +- W) round to the same FLOAT16, otherwise undecided_bits, stored at out; whether any is undecided (eight),
// or the mask of the same elements, two bits each (sixteen).
DMLREF_F16C inline bool store_decided8(__m256 y, float W, uint16_t* out) {
    const __m256 w = _mm256_set1_ps(W);
    const __m128i lo = _mm256_cvtps_ph(_mm256_sub_ps(y, w), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i hi = _mm256_cvtps_ph(_mm256_add_ps(y, w), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i same = _mm_cmpeq_epi16(lo, hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm_blendv_epi8(_mm_set1_epi16(int16_t(undecided_bits<half>())), lo, same));
    return _mm_movemask_epi8(same) != 0xffff;
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// Step H9's decision of sixteen elements' ends lo <= V <= hi: the FLOAT16 bits of lo where hi has the same ones
// and the lane is in `finite`, undecided_bits otherwise, stored to out + j; the undecided elements' indices
// (j + lane) appended to left from count. Lanes outside `finite` get two different bits: undecided. Returns the
// new count.
DMLREF_AVX512 inline int64_t store_decided_ends16(__m512 lo_end, __m512 hi_end, __mmask16 finite, uint16_t* out,
                                                  int64_t j, int32_t* left, int64_t count) {
    const __m256i none = _mm256_set1_epi16(int16_t(undecided_bits<half>()));
    const __m256i other = _mm256_set1_epi16(int16_t(undecided_bits<half>() + 1));
    const __m256i lo = _mm512_mask_cvtps_ph(none, finite, lo_end, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i hi = _mm512_mask_cvtps_ph(other, finite, hi_end, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i same = _mm256_cmpeq_epi16(lo, hi);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), _mm256_blendv_epi8(none, lo, same));
    // Two mask bits per element.
    for (uint32_t bits = ~uint32_t(_mm256_movemask_epi8(same)); bits != 0; bits &= bits - 1) {
        left[count++] = int32_t(j + (std::countr_zero(bits) >> 1));
        bits &= bits - 1;
    }
    return count;
}
// Step H9's directed roundings (AVX-512's embedded rounding: the rounding is the instruction's, not MXCSR's; the
// vector forms masked with every lane on, as above).
constexpr int kDown = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC, kUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
// RU32(v) for a double v, and RD32(a + b), RU32(a + b) for floats.
DMLREF_AVX512 inline float up32(double v) {
    return _mm_cvtss_f32(_mm_cvt_roundsd_ss(_mm_setzero_ps(), _mm_set_sd(v), kUp));
}
// RD32(v) for a double v, and RD64 or RU64 of a - b and a + b for doubles (mode kDown or kUp).
DMLREF_AVX512 inline float down32(double v) {
    return _mm_cvtss_f32(_mm_cvt_roundsd_ss(_mm_setzero_ps(), _mm_set_sd(v), kDown));
}
DMLREF_AVX512 inline double sub64(double a, double b, int mode) {
    return mode == kDown ? _mm_cvtsd_f64(_mm_sub_round_sd(_mm_set_sd(a), _mm_set_sd(b), kDown))
                         : _mm_cvtsd_f64(_mm_sub_round_sd(_mm_set_sd(a), _mm_set_sd(b), kUp));
}
DMLREF_AVX512 inline double add64(double a, double b, int mode) {
    return mode == kDown ? _mm_cvtsd_f64(_mm_add_round_sd(_mm_set_sd(a), _mm_set_sd(b), kDown))
                         : _mm_cvtsd_f64(_mm_add_round_sd(_mm_set_sd(a), _mm_set_sd(b), kUp));
}
DMLREF_AVX512 inline float add_down(float a, float b) {
    return _mm_cvtss_f32(_mm_add_round_ss(_mm_set_ss(a), _mm_set_ss(b), kDown));
}
DMLREF_AVX512 inline float add_up(float a, float b) {
    return _mm_cvtss_f32(_mm_add_round_ss(_mm_set_ss(a), _mm_set_ss(b), kUp));
}

DMLREF_AVX512 inline uint32_t store_decided16(__m512 y, float W, uint16_t* out) {
    const __m512 w = _mm512_set1_ps(W);
    const __m256i lo = _mm512_maskz_cvtps_ph(0xffff, _mm512_sub_ps(y, w),
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i hi = _mm512_maskz_cvtps_ph(0xffff, _mm512_add_ps(y, w),
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i same = _mm256_cmpeq_epi16(lo, hi);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                        _mm256_blendv_epi8(_mm256_set1_epi16(int16_t(undecided_bits<half>())), lo, same));
    return uint32_t(_mm256_movemask_epi8(same));
}
#endif
// Step H7's first stage on elements 0 to n8 - 1 (n8 a multiple of 8) of a run whose estimates F gives (y8: eight
// from j; y16: sixteen): the first index of every block of eight with an undecided element into blocks; returns
// their number. Sixteen at a time where the machine has AVX-512 (the same operations on each element: the same
// bits).
template <class F> DMLREF_F16C int64_t first_blocks(const F& f, int64_t n8, float W, uint16_t* out, int32_t* blocks) {
    int64_t count = 0;
    for (int64_t j = 0; j < n8; j += 8) {
        blocks[count] = int32_t(j);
        count += store_decided8(f.y8(j), W, out + j);
    }
    return count;
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
template <class F>
DMLREF_AVX512 int64_t first_blocks_avx512(const F& f, int64_t n8, float W, uint16_t* out, int32_t* blocks) {
    int64_t count = 0, j = 0;
    for (; j + 16 <= n8; j += 16) {
        const uint32_t same = store_decided16(f.y16(j), W, out + j);
        blocks[count] = int32_t(j);
        count += (same & 0xffffu) != 0xffffu;
        blocks[count] = int32_t(j + 8);
        count += (same >> 16) != 0xffffu;
    }
    if (j < n8) {
        blocks[count] = int32_t(j);
        count += store_decided8(f.y8(j), W, out + j);
    }
    return count;
}
#endif
template <class F>
DMLREF_F16C int64_t run_first_blocks(const F& f, int64_t n8, float W, uint16_t* out, int32_t* blocks) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if (have_avx512()) return first_blocks_avx512(f, n8, W, out, blocks);
#endif
    return first_blocks(f, n8, W, out, blocks);
}
// The float64 stage (step H5) on up to eight elements at once: the FLOAT16 values of elements idx[0] to
// idx[length - 1] of p as doubles, four to a register (exact; 0 from length on, lanes the caller ignores). The
// estimates below perform, lane by lane, the same IEEE operations as estimate, estimate_training and
// estimate_training_grad: the same y and w.
#if defined(DMLREF_F16C_PATHS)
DMLREF_F16C inline void gather8(const half* p, const int32_t* idx, int64_t length, __m256d& lo, __m256d& hi) {
    alignas(16) uint16_t bits[8] = {};
    for (int64_t k = 0; k < length; ++k) bits[k] = to_bits(p[idx[k]]);
    const __m256 f = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(bits)));
    lo = _mm256_cvtps_pd(_mm256_castps256_ps128(f));
    hi = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
}
DMLREF_F16C inline __m256d abs4(__m256d v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
// estimate (steps 3 to 7) and estimate_training (T3, T4: A > 0, no zero test) on four lanes.
template <bool kTraining>
DMLREF_F16C inline void estimate4(__m256d x, __m256d m, __m256d sr, __m256d bf, double A, __m256d& y, __m256d& w) {
    const __m256d t = _mm256_mul_pd(sr, _mm256_sub_pd(x, m));
    const __m256d yt = _mm256_add_pd(t, bf);
    y = _mm256_add_pd(yt, _mm256_setzero_pd());
    __m256d s = _mm256_add_pd(_mm256_mul_pd(abs4(t), _mm256_set1_pd(6 * 0x1p-53 * (1 + 0x1p-40))),
                              _mm256_mul_pd(abs4(yt), _mm256_set1_pd(0x1p-52 * (1 + 0x1p-40))));
    if constexpr (kTraining) {
        s = _mm256_add_pd(_mm256_add_pd(s, _mm256_mul_pd(abs4(bf), _mm256_set1_pd(0x1p-53 * (1 + 0x1p-40)))),
                          _mm256_set1_pd(A));
        w = _mm256_add_pd(s, _mm256_set1_pd(0x1p-1072));
    } else {
        // w = t != 0 ? w0 : 0 (t NaN: w0)
        w = _mm256_and_pd(_mm256_add_pd(s, _mm256_set1_pd(0x1p-1072)),
                          _mm256_cmp_pd(t, _mm256_setzero_pd(), _CMP_NEQ_UQ));
    }
}
#endif

// The forward's and the training's y = fl(fl(S fl(x - m32)) + b32) (step H2).
struct AffineY {
    const half* x;
    float m32, S, b32;
    DMLREF_F16C __m256 y8(int64_t j) const {
        return _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(S), _mm256_sub_ps(load8(x + j), _mm256_set1_ps(m32))),
                             _mm256_set1_ps(b32));
    }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    DMLREF_AVX512 __m512 y16(int64_t j) const {
        return _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(S), _mm512_sub_ps(load16(x + j), _mm512_set1_ps(m32))),
                             _mm512_set1_ps(b32));
    }
#endif
};
// The training grad's z = fl(S fl(fl(dY - a32) - fl(fl(x - m32) c32))) (step H4).
struct TrainingGradZ {
    const half *dy, *x;
    float m32, a32, c32, S;
    DMLREF_F16C __m256 y8(int64_t j) const {
        const __m256 h = _mm256_sub_ps(load8(dy + j), _mm256_set1_ps(a32));
        const __m256 q = _mm256_mul_ps(_mm256_sub_ps(load8(x + j), _mm256_set1_ps(m32)), _mm256_set1_ps(c32));
        return _mm256_mul_ps(_mm256_set1_ps(S), _mm256_sub_ps(h, q));
    }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    DMLREF_AVX512 __m512 y16(int64_t j) const {
        const __m512 h = _mm512_sub_ps(load16(dy + j), _mm512_set1_ps(a32));
        const __m512 q = _mm512_mul_ps(_mm512_sub_ps(load16(x + j), _mm512_set1_ps(m32)), _mm512_set1_ps(c32));
        return _mm512_mul_ps(_mm512_set1_ps(S), _mm512_sub_ps(h, q));
    }
#endif
};

// The estimates of a run of y = s (x - m) D^(-1/2) + b + f: the forward (m the Mean, no f; the grad:
// x = dY, m = b = 0) and the training (m the batch mean, f the FusedAdd where kFused). single: step
// H2's float32 estimate of elements j to j + 7; twofold: the float64 estimate of element j (estimate,
// estimate_training). ok: whether the run meets step H1's ranges (otherwise only twofold is used).
template <bool kTraining, bool kFused> struct AffineHalf {
    const half* x;
    const half* f;
    double m, sr, b, A;  // the float64 estimate's run constants (A: the training's)
    float m32, S, b32, K;
    bool ok;
    DMLREF_F16C void single(int64_t j, __m256& y, __m256& w) const {
        const __m256 t = _mm256_mul_ps(_mm256_set1_ps(S), _mm256_sub_ps(load8(x + j), _mm256_set1_ps(m32)));
        __m256 bf = _mm256_set1_ps(b32);
        if constexpr (kFused) bf = _mm256_add_ps(bf, load8(f + j));
        y = _mm256_add_ps(t, bf);
        __m256 e = _mm256_add_ps(magnitude8(t), magnitude8(y));
        if constexpr (kFused) e = _mm256_add_ps(e, magnitude8(bf));
        w = _mm256_add_ps(_mm256_mul_ps(e, _mm256_set1_ps(kFour)), _mm256_set1_ps(K));
    }
    DMLREF_F16C __m128i decide(int64_t j, __m128i& mask) const {
        __m256 y, w;
        single(j, y, w);
        return decide8f(y, w, mask);
    }
    // Step H7's W for elements 0 to n - 1 (NaN with a FusedAdd), and its first stage (first_blocks).
    DMLREF_F16C float width(int64_t n) const {
        if constexpr (kFused) return std::numeric_limits<float>::quiet_NaN();
        const float t = std::fabs(S) * (largest_half(x, n) + std::fabs(m32));
        const float y = t + std::fabs(b32);
        return (t + y) * kFour + K;
    }
    DMLREF_F16C int64_t first(int64_t n8, float W, uint16_t* out, int32_t* blocks) const {
        return run_first_blocks(AffineY{x, m32, S, b32}, n8, W, out, blocks);
    }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    // Step H10 (where own() holds): the ends lo = RD(RD(S x + bl) - delta |x|) and hi = RU(RU(S x + bh) + delta |x|),
    // each a fused multiply-add, with the run's [bl, bh] holding b - P m (with a FusedAdd, RD(bl + f) and RU(bh + f)
    // in place of bl and bh) and delta = RU32(|S| 2^-24 (1 + 2^-25)), and store_decided_ends16's decision, on
    // elements 0 to n16 - 1 (n16 a multiple of 16), sixteen at a time; the undecided ones' indices appended to left
    // from count. Returns the new count.
    bool own() const { return std::isfinite(b32); }
    DMLREF_AVX512 int64_t folded16(int64_t j0, int64_t j1, uint16_t* out, int32_t* left, int64_t count) const {
        // Step H10's run constants: c = fl64(sr m) (m the Mean, or mu = RN53(mean)), within 2^-50 |c| of P m;
        // bl = RD32(RD64(RD64(b - c) - |c| 2^-50)) and bh = RU32(RU64(RU64(b - c) + |c| 2^-50)); a NaN or an infinite
        // bl or bh (an infinite or NaN Mean) leaves every lane undecided.
        const double cm = sr * m, margin = std::fabs(cm) * 0x1p-50;
        const float bl = down32(sub64(sub64(b, cm, kDown), margin, kDown)),
                    bh = up32(add64(sub64(b, cm, kUp), margin, kUp));
        const float delta = std::max(up32(std::fabs(double(S)) * (0x1p-24 * (1 + 0x1p-25))), 0x1p-149f);
        const __mmask16 run = std::isfinite(bl) && std::isfinite(bh) ? 0xffff : 0;
        const __m512 Sv = _mm512_set1_ps(S), dv = _mm512_set1_ps(delta), blv = _mm512_set1_ps(bl),
                     bhv = _mm512_set1_ps(bh), big = _mm512_set1_ps(0x1p16f);
        const half *const xp = x, *const fp = f;  // kept in registers across the stores
        for (int64_t j = j0; j < j1; j += 16) {
            const __m512 xv = load16(xp + j), ax = _mm512_abs_ps(xv);
            __mmask16 finite = _mm512_mask_cmp_ps_mask(run, ax, big, _CMP_LT_OQ);  // x finite
            __m512 fl = blv, fh = bhv;
            if constexpr (kFused) {
                const __m512 fv = load16(fp + j);
                fl = _mm512_maskz_add_round_ps(0xffff, blv, fv, kDown);
                fh = _mm512_maskz_add_round_ps(0xffff, bhv, fv, kUp);
                finite &= _mm512_cmp_ps_mask(_mm512_abs_ps(fv), big, _CMP_LT_OQ);  // f finite
            }
            const __m512 lo = _mm512_fnmadd_round_ps(dv, ax, _mm512_fmadd_round_ps(Sv, xv, fl, kDown), kDown);
            const __m512 hi = _mm512_fmadd_round_ps(dv, ax, _mm512_fmadd_round_ps(Sv, xv, fh, kUp), kUp);
            count = store_decided_ends16(lo, hi, finite, out, j, left, count);
        }
        return count;
    }
    // Step H9 on elements j0 to j1 - 1: t = fl(S fl(x - m32)), e = RU(|t| c) with c = 3v (1 + 2^-22), the ends lo =
    // RD(RD(t - e) + bl) and hi = RU(RU(t + e) + bh) (with a FusedAdd, RD(bl + f) and RU(bh + f) in place of bl and
    // bh).
    DMLREF_AVX512 int64_t centred16(int64_t j0, int64_t j1, uint16_t* out, int32_t* left, int64_t count) const {
        // [bl, bh] holds b + P (mu32 - mean) (the training; the forward's is b): A = RU32(fl64(fl64(|S| |mu32|) 2^-24
        // (1 + 2^-22))), at least 2^-149, bl = RD32(b32 - A), bh = RU32(b32 + A).
        float bl = b32, bh = b32;
        if constexpr (kTraining) {
            const float A = std::max(up32((std::fabs(double(S)) * std::fabs(double(m32))) * (0x1p-24 * (1 + 0x1p-22))),
                                     0x1p-149f);
            bl = add_down(b32, -A);
            bh = add_up(b32, A);
        }
        const __m512 Sv = _mm512_set1_ps(S), mv = _mm512_set1_ps(m32), blv = _mm512_set1_ps(bl),
                     bhv = _mm512_set1_ps(bh);
        const __m512 c = _mm512_set1_ps(0x1.800006p-23f), big = _mm512_set1_ps(0x1p100f);
        const half *const xp = x, *const fp = f;  // kept in registers across the stores
        for (int64_t j = j0; j < j1; j += 16) {
            const __m512 t = _mm512_mul_ps(Sv, _mm512_sub_ps(load16(xp + j), mv));
            const __m512 e = _mm512_maskz_mul_round_ps(0xffff, _mm512_abs_ps(t), c, kUp);
            __mmask16 finite = _mm512_cmp_ps_mask(e, big, _CMP_LT_OQ);
            __m512 fl = blv, fh = bhv;
            if constexpr (kFused) {
                const __m512 fv = load16(fp + j);
                fl = _mm512_maskz_add_round_ps(0xffff, blv, fv, kDown);
                fh = _mm512_maskz_add_round_ps(0xffff, bhv, fv, kUp);
                finite &= _mm512_cmp_ps_mask(fl, fh, _CMP_LT_OQ);
            }
            const __m512 lo = _mm512_maskz_add_round_ps(0xffff, _mm512_maskz_sub_round_ps(0xffff, t, e, kDown), fl,
                                                        kDown);
            const __m512 hi = _mm512_maskz_add_round_ps(0xffff, _mm512_maskz_add_round_ps(0xffff, t, e, kUp), fh, kUp);
            count = store_decided_ends16(lo, hi, finite, out, j, left, count);
        }
        return count;
    }
    // Step H10 on the run's first 128 elements; where it leaves two of them (as on data far from 0 beside their
    // mean, where H10's interval, which grows with |x|, is wider than H9's), H9 on the rest, otherwise H10.
    DMLREF_AVX512 int64_t own16(int64_t n16, uint16_t* out, int32_t* left, int64_t count) const {
        const int64_t first = std::min<int64_t>(n16, 128), after = folded16(0, first, out, left, count);
        if (after - count >= 2) return centred16(first, n16, out, left, after);
        return folded16(first, n16, out, left, after);
    }
#endif
    void twofold(int64_t j, double& y, double& w) const {
        if constexpr (kTraining) estimate_training(load(x[j]), m, sr, kFused ? b + load(f[j]) : b, A, y, w);
        else estimate(load(x[j]), m, sr, b, y, w);
    }
    // twofold of elements idx[0] to idx[length - 1] (length <= 8) into y[0..7] and w[0..7].
    DMLREF_F16C void twofold8(const int32_t* idx, int64_t length, double* y, double* w) const {
        __m256d x0, x1, b0 = _mm256_set1_pd(b), b1 = b0;
        gather8(x, idx, length, x0, x1);
        if constexpr (kFused) {
            __m256d f0, f1;
            gather8(f, idx, length, f0, f1);
            b0 = _mm256_add_pd(b0, f0);
            b1 = _mm256_add_pd(b1, f1);
        }
        const __m256d mv = _mm256_set1_pd(m), sv = _mm256_set1_pd(sr);
        __m256d y0, w0, y1, w1;
        estimate4<kTraining>(x0, mv, sv, b0, A, y0, w0);
        estimate4<kTraining>(x1, mv, sv, b1, A, y1, w1);
        _mm256_storeu_pd(y, y0);
        _mm256_storeu_pd(y + 4, y1);
        _mm256_storeu_pd(w, w0);
        _mm256_storeu_pd(w + 4, w1);
    }
};

// The same for the training grad's OutputGradientTensor (steps H4 and G1 to G3).
struct TrainingGradHalf {
    const half* dy;
    const half* x;
    double m, a, c, sr;
    float m32, a32, c32, S;
    bool ok;
    DMLREF_F16C void single(int64_t j, __m256& z, __m256& w) const {
        const __m256 h = _mm256_sub_ps(load8(dy + j), _mm256_set1_ps(a32));
        const __m256 q = _mm256_mul_ps(_mm256_sub_ps(load8(x + j), _mm256_set1_ps(m32)), _mm256_set1_ps(c32));
        const __m256 g = _mm256_sub_ps(h, q);
        z = _mm256_mul_ps(_mm256_set1_ps(S), g);
        const __m256 G = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(magnitude8(g), magnitude8(h)),
                                                     _mm256_mul_ps(_mm256_set1_ps(3.0f), magnitude8(q))),
                                       _mm256_set1_ps(std::fabs(a32)));
        const __m256 e = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(std::fabs(S)), G),
                                       _mm256_add_ps(magnitude8(z), magnitude8(z)));
        w = _mm256_add_ps(_mm256_mul_ps(e, _mm256_set1_ps(kTwo)), _mm256_set1_ps(kFloor));
    }
    DMLREF_F16C __m128i decide(int64_t j, __m128i& mask) const {
        __m256 z, w;
        single(j, z, w);
        return decide8f(z, w, mask);
    }
    // Step H7's W for elements 0 to n - 1: single's w at |h|, |q|, |g| and |z| at their bounds Hm, Qm, Gm and
    // Zm; and its first stage.
    DMLREF_F16C float width(int64_t n) const {
        const float Hm = largest_half(dy, n) + std::fabs(a32);
        const float Qm = (largest_half(x, n) + std::fabs(m32)) * std::fabs(c32);
        const float Gm = Hm + Qm, Zm = std::fabs(S) * Gm;
        const float G = ((Gm + Hm) + 3.0f * Qm) + std::fabs(a32);
        return (std::fabs(S) * G + (Zm + Zm)) * kTwo + kFloor;
    }
    DMLREF_F16C int64_t first(int64_t n8, float W, uint16_t* out, int32_t* blocks) const {
        return run_first_blocks(TrainingGradZ{dy, x, m32, a32, c32, S}, n8, W, out, blocks);
    }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    // Step H10 for the training grad: h = fl(dY - a32), xm = fl(x - m32), g = fl(h - xm c32) (one fused
    // multiply-add), z = fl(S g), e = RU(|h| C1 + RU(|xm| C2 + Ka)) (fused) with the run's C1 = RU32(4v (1 + 2^-20)
    // |S|), C2 = RU32(fl64(fl64(|S| |c32|) 5v (1 + 2^-19))) and Ka = RU32(fl64(fl64(|S| |a32|) 2^-24 (1 + 2^-19))),
    // the ends RD(z - e) and RU(z + e), and store_decided_ends16's decision, sixteen at a time, as AffineHalf::own16.
    bool own() const { return true; }
    DMLREF_AVX512 int64_t own16(int64_t n16, uint16_t* out, int32_t* left, int64_t count) const {
        const double Sd = std::fabs(double(S));
        const __m512 av = _mm512_set1_ps(a32), mv = _mm512_set1_ps(m32), cv = _mm512_set1_ps(c32);
        const __m512 Sv = _mm512_set1_ps(S), big = _mm512_set1_ps(0x1p100f);
        const __m512 C1 = _mm512_set1_ps(up32(Sd * (0x1p-22 * (1 + 0x1p-20)))),
                     C2 = _mm512_set1_ps(up32((Sd * std::fabs(double(c32))) * (0x1.4p-22 * (1 + 0x1p-19)))),
                     Ka = _mm512_set1_ps(up32((Sd * std::fabs(double(a32))) * (0x1p-24 * (1 + 0x1p-19))));
        const half *const dp = dy, *const xp = x;  // kept in registers across the stores
        for (int64_t j = 0; j < n16; j += 16) {
            const __m512 h = _mm512_sub_ps(load16(dp + j), av);
            const __m512 xm = _mm512_sub_ps(load16(xp + j), mv);
            const __m512 z = _mm512_mul_ps(Sv, _mm512_fnmadd_ps(xm, cv, h));
            const __m512 e = _mm512_fmadd_round_ps(_mm512_abs_ps(h), C1,
                                                   _mm512_fmadd_round_ps(_mm512_abs_ps(xm), C2, Ka, kUp), kUp);
            const __mmask16 finite = _mm512_cmp_ps_mask(e, big, _CMP_LT_OQ);
            count = store_decided_ends16(_mm512_maskz_sub_round_ps(0xffff, z, e, kDown),
                                         _mm512_maskz_add_round_ps(0xffff, z, e, kUp), finite, out, j, left, count);
        }
        return count;
    }
#endif
    void twofold(int64_t j, double& z, double& w) const {
        estimate_training_grad(load(dy[j]), load(x[j]), m, a, c, sr, z, w);
    }
    // twofold of elements idx[0] to idx[length - 1] (length <= 8), as estimate_training_grad on four lanes.
    DMLREF_F16C void twofold8(const int32_t* idx, int64_t length, double* zs, double* ws) const {
        __m256d d[2], v[2];
        gather8(dy, idx, length, d[0], d[1]);
        gather8(x, idx, length, v[0], v[1]);
        const __m256d K1 = _mm256_set1_pd(std::fabs(sr) * (0x1p-53 * (1 + 0x1p-40)));
        const __m256d K2 = _mm256_set1_pd((std::fabs(sr) * std::fabs(a)) * (0x1p-53 * (1 + 0x1p-40)));
        for (int i = 0; i < 2; ++i) {
            const __m256d h = _mm256_sub_pd(d[i], _mm256_set1_pd(a));
            const __m256d q = _mm256_mul_pd(_mm256_sub_pd(v[i], _mm256_set1_pd(m)), _mm256_set1_pd(c));
            const __m256d g = _mm256_sub_pd(h, q);
            const __m256d z = _mm256_mul_pd(_mm256_set1_pd(sr), g);
            const __m256d G = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(abs4(g), _mm256_set1_pd(7.0)), abs4(h)),
                                            _mm256_mul_pd(abs4(q), _mm256_set1_pd(3.0)));
            _mm256_storeu_pd(zs + 4 * i, _mm256_add_pd(z, _mm256_setzero_pd()));
            _mm256_storeu_pd(ws + 4 * i,
                             _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(G, K1), K2), _mm256_set1_pd(0x1p-1068)));
        }
    }
};

// The grad's OutputGradientTensor (x = dY, Mean and Bias 0; step H6): y = fl(S dY) rounded to FLOAT16 where no
// FLOAT16 rounding boundary lies within 3 float ulps of it (its 13 bits below FLOAT16's last at least 4 from
// 0x1000, |y| in [2^-14, 2^16)), +0 for y = +-0.
struct GradHalf {
    const half* x;
    double sr;
    float S;
    bool ok;
    DMLREF_F16C __m128i decide(int64_t j, __m128i& mask) const {
        const __m256 y = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(S), load8(x + j)), _mm256_setzero_ps());
        const __m256i B = _mm256_castps_si256(y), zero = _mm256_setzero_si256();
        // |y| in [2^-14, 2^16): (B << 1) - (0x38800000 << 1) below (0x47800000 - 0x38800000) << 1, unsigned (the
        // unsigned compare as a signed one with the sign bits flipped).
        const __m256i in_range = _mm256_cmpgt_epi32(
            _mm256_set1_epi32(int32_t(0x1e000000u ^ 0x80000000u)),
            _mm256_xor_si256(_mm256_sub_epi32(_mm256_slli_epi32(B, 1), _mm256_set1_epi32(int32_t(0x71000000u))),
                             _mm256_set1_epi32(int32_t(0x80000000u))));
        // L outside [0xffc, 0x1003]: (B - 0xffc) & 0x1ff8 not 0.
        const __m256i near = _mm256_cmpeq_epi32(
            _mm256_and_si256(_mm256_sub_epi32(B, _mm256_set1_epi32(0xffc)), _mm256_set1_epi32(0x1ff8)), zero);
        const __m256i ok8 = _mm256_or_si256(_mm256_andnot_si256(near, in_range), _mm256_cmpeq_epi32(B, zero));
        mask = _mm_andnot_si128(narrow(ok8), _mm_set1_epi16(-1));
        const __m128i h = _mm256_cvtps_ph(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        return _mm_blendv_epi8(h, _mm_set1_epi16(int16_t(undecided_bits<half>())), mask);
    }
    // Step H6 as a first stage in half_run's frame (no chunk width: 0), sixteen elements at a time where the
    // machine has AVX-512 (the same test on the same y: the same bits); the blocks it leaves take decide again.
    float width(int64_t) const { return 0.0f; }
    DMLREF_F16C int64_t first(int64_t n8, float, uint16_t* out, int32_t* blocks) const {
        int64_t count = 0, j = 0;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
        if (have_avx512() && !chunk_width_forced.load(std::memory_order_relaxed)) j = first16(n8, out, blocks, count);
#endif
        for (; j < n8; j += 8) {
            __m128i mask;
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), decide(j, mask));
            blocks[count] = int32_t(j);
            count += _mm_movemask_epi8(mask) != 0;
        }
        return count;
    }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    // Blocks of sixteen from 0 while they fit in n8: returns where it stopped.
    DMLREF_AVX512 int64_t first16(int64_t n8, uint16_t* out, int32_t* blocks, int64_t& count) const {
        int64_t j = 0, left = count;  // locals: the stores below may alias the members and count, as the compiler sees
        const half* const dy = x;
        const __m512 s = _mm512_set1_ps(S);
        for (; j + 16 <= n8; j += 16) {
            const __m512 y = _mm512_add_ps(_mm512_mul_ps(s, load16(dy + j)), _mm512_setzero_ps());
            const __m512i B = _mm512_castps_si512(y);
            // decide's tests: |y| in [2^-14, 2^16) by one unsigned compare, then L outside [0xffc, 0x1003] under
            // that mask, or y = +0.
            const __mmask16 in_range = _mm512_cmplt_epu32_mask(
                _mm512_sub_epi32(_mm512_maskz_slli_epi32(0xffff, B, 1), _mm512_set1_epi32(int32_t(0x71000000u))),
                _mm512_set1_epi32(0x1e000000));
            const __mmask16 ok = _mm512_mask_test_epi32_mask(in_range, _mm512_sub_epi32(B, _mm512_set1_epi32(0xffc)),
                                                             _mm512_set1_epi32(0x1ff8)) |
                                 _mm512_testn_epi32_mask(B, B);
            // The undecided lanes keep undecided_bits (a masked conversion). Masked shifts and abs with every lane
            // on: GCC 12's plain ones start from an "undefined" register and warn.
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j),
                                _mm512_mask_cvtps_ph(_mm256_set1_epi16(int16_t(undecided_bits<half>())), ok, y,
                                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            if (ok != 0xffff) {  // rare: the blocks of eight with an element left
                blocks[left] = int32_t(j);
                left += (ok & 0xffu) != 0xffu;
                blocks[left] = int32_t(j + 8);
                left += (ok >> 8) != 0xffu;
            }
        }
        count = left;
        return j;
    }
#endif
    void twofold(int64_t j, double& y, double& w) const { estimate(load(x[j]), 0.0, sr, 0.0, y, w); }
    DMLREF_F16C void twofold8(const int32_t* idx, int64_t length, double* y, double* w) const {
        __m256d x0, x1, y0, w0, y1, w1;
        gather8(x, idx, length, x0, x1);
        const __m256d zero = _mm256_setzero_pd(), sv = _mm256_set1_pd(sr);
        estimate4<false>(x0, zero, sv, zero, 0.0, y0, w0);
        estimate4<false>(x1, zero, sv, zero, 0.0, y1, w1);
        _mm256_storeu_pd(y, y0);
        _mm256_storeu_pd(y + 4, y1);
        _mm256_storeu_pd(w, w0);
        _mm256_storeu_pd(w + 4, w1);
    }
};

// A run of n FLOAT16 elements in two stages (step H5): the float32 stage eight at a time (where the run
// meets its ranges), then the float64 stage (decide8 on doubles) on the elements it left and the last
// n % 8. Returns whether any element is still undecided (undecided_bits); adds the float32 stage's
// decided elements to single.
template <class E> DMLREF_F16C bool half_run(const E& run, int64_t n, half* __restrict value, uint64_t& single) {
    const E e = run;  // a local copy, so that its constants stay in registers across the stores
    uint16_t* out = reinterpret_cast<uint16_t*>(value);
    int32_t left[kChunk];
    int64_t count = 0, j = 0;
    // The blocks of eight elements the float32 stage takes: every block of eight, or (step H7) those the chunk's
    // W left undecided, the others decided.
    int32_t blocks[kChunk / 8];
    int64_t b = 0;
    if (e.ok) {
        const int64_t n8 = n & ~int64_t(7);
        int64_t j8 = 0;  // where the blocks of eight start
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
        // Step H9 with AVX-512: every element its own directed ends, sixteen at a time, in place of step H7.
        if constexpr (requires { e.own16(n8, out, left, count); })
            if (have_avx512() && !chunk_width_forced.load(std::memory_order_relaxed) && e.own()) {
                j8 = n & ~int64_t(15);
                count = e.own16(j8, out, left, 0);
            }
#endif
        float W = std::numeric_limits<float>::quiet_NaN();
        if constexpr (requires { e.first(n8, W, out, blocks); })
            if (j8 == 0) {
                W = e.width(n8);
                if (W < 0x1p100f) b = e.first(n8, W, out, blocks);
            }
        if (!(W < 0x1p100f))
            for (int64_t k = j8; k < n8; k += 8) blocks[b++] = int32_t(k);
        j = n8;
    }
    for (int64_t i = 0; i < b; ++i) {
        const int64_t first = blocks[i];
        __m128i mask;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + first), e.decide(first, mask));
        // Two mask bits per undecided element.
        for (uint32_t bits = uint32_t(_mm_movemask_epi8(mask)); bits != 0; bits &= bits - 1) {
            left[count++] = int32_t(first + (std::countr_zero(bits) >> 1));
            bits &= bits - 1;
        }
    }
    for (; j < n; ++j) left[count++] = int32_t(j);
    single += uint64_t(n - count);
    int any = 0;
    for (int64_t i = 0; i < count; i += 8) {
        alignas(32) double y[8], w[8];
        alignas(16) uint16_t h[8];
        const int64_t length = std::min<int64_t>(8, count - i);
        e.twofold8(left + i, length, y, w);  // lanes from length on: ignored
        __m128i mask;
        _mm_store_si128(reinterpret_cast<__m128i*>(h), decide8(_mm256_load_pd(y), _mm256_load_pd(w),
                                                               _mm256_load_pd(y + 4), _mm256_load_pd(w + 4), mask));
        for (int64_t k = 0; k < length; ++k) {
            out[left[i + k]] = h[k];
            any |= int(h[k] == undecided_bits<half>());
        }
    }
    return any != 0;
}

// A run's estimates from the float64 run constants (step H1).
AffineHalf<false, false> forward_half(const half* x, double m, double sr, double b) {
    const float S = float(sr);
    return {x, nullptr, m, sr, b, 0.0, float(m), S, float(b), kFloor, in_range(sr, S, 32)};
}
template <bool kFused>
AffineHalf<true, kFused> training_half(const half* x, const half* fa, double mu, float mu32, double sr, double b,
                                       double A) {
    const float S = float(sr);
    // Step H2's K = fl32(fl64(fl64(|S| |mu32|) 2^-23) + 2^-125).
    const float K = float((std::fabs(double(S)) * std::fabs(double(mu32))) * 0x1p-23 + 0x1p-125);
    return {x, fa, mu, sr, b, A, mu32, S, float(b), K, in_range(sr, S, 32)};
}
GradHalf grad_half(const half* dy, double sr) {
    const float S = float(sr);
    return {dy, sr, S, in_range(sr, S, 32)};
}
TrainingGradHalf training_grad_half(const half* dy, const half* x, double m, double a, double c, double sr) {
    const float S = float(sr), a32 = float(a), c32 = float(c);
    return {
        dy, x, m, a, c, sr, float(m), a32, c32, S, in_range(sr, S, 32) && in_range(a, a32, 60) && in_range(c, c32, 40)};
}

// For the tests: the float32 estimate of an element, as the run computes it (eight copies of it), or NaN.
template <class E> DMLREF_F16C BatchNormalizationEstimate single_estimate(const E& e) {
    if (!e.ok) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    __m256 y, w;
    e.single(0, y, w);
    return {double(_mm256_cvtss_f32(y)), double(_mm256_cvtss_f32(w))};
}
#endif

bool run_uniform(const half* x, int64_t n, double m, double sr, double b, half* value, uint64_t& single) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) return half_run(forward_half(x, m, sr, b), n, value, single);
#endif
    return uniform_run_f16(x, n, m, sr, b, value);
}

bool run_training(const half* x, const half* fa, int64_t n, double mu, float mu32, double sr, double b, double A,
                  half* value, uint64_t& single) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) {
        if (fa) return half_run(training_half<true>(x, fa, mu, mu32, sr, b, A), n, value, single);
        return half_run(training_half<false>(x, nullptr, mu, mu32, sr, b, A), n, value, single);
    }
#endif
    return training_run_f16(x, fa, n, mu, sr, b, A, value);
}

inline bool run_training_grad(const half* dy, const half* x, int64_t n, double m, double a, double c, double sr,
                              half* value, uint64_t& single) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) return half_run(training_grad_half(dy, x, m, a, c, sr), n, value, single);
#endif
    return training_grad_run_f16(dy, x, n, m, a, c, sr, value);
}

// The grad's OutputGradientTensor over a run of constant statistics (x = dY, Mean and Bias 0): FLOAT32's first
// stage (step G4, with the chunk's W; its undecided elements go to the forward's float64 estimate in the
// caller; without a usable W every element does), FLOAT16's two.
inline bool run_grad(const float* dy, int64_t n, double sr, double W, float* value, uint64_t&) {
    if (W < 0x1p900) return grad_run_f32(dy, n, sr, W, value);
    std::fill_n(reinterpret_cast<uint32_t*>(value), n, undecided_bits<float>());
    return n > 0;
}
inline bool grad_bits(const float* dy, int64_t n, double sr, float* value) {
#if defined(DMLREF_F16C_PATHS) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if (have_avx512() && !four_lanes_forced.load(std::memory_order_relaxed)) {
        bool any;
        const int64_t j = grad_bits_avx512(dy, n, sr, value, any);
        return grad_bits_f32(dy + j, n - j, sr, value + j) || any;
    }
#endif
    return grad_bits_f32(dy, n, sr, value);
}
inline bool grad_bits(const half*, int64_t, double, half*) { return true; }  // never called (FLOAT32 only)
// Step G8 (FLOAT32 only): whether it runs here (a machine with AVX-512, no other path forced), and one chunk.
std::atomic<bool> grad_pass_forced_off{false};  // for the tests: the exact sums and steps G0 and G6 in place of G8
inline bool grad_pass_on() {
#if defined(DMLREF_F16C_PATHS) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    return have_avx512() && !four_lanes_forced.load(std::memory_order_relaxed) &&
           !grad_bits_forced_off.load(std::memory_order_relaxed) &&
           !grad_pass_forced_off.load(std::memory_order_relaxed);
#else
    return false;
#endif
}
inline bool grad_pass(const float* dy, const float* x, int64_t n, double sr, uint32_t tau, float* value,
                      PassSums& sums) {
#if defined(DMLREF_F16C_PATHS) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    return grad_pass_avx512(dy, x, n, sr, tau, value, sums);
#else
    (void)dy, (void)x, (void)n, (void)sr, (void)tau, (void)value, (void)sums;
    return true;                                      // never called (grad_pass_on)
#endif
}
inline bool grad_pass(const half*, const half*, int64_t, double, uint32_t, half*, PassSums&) {
    return true;  // never called (FLOAT32 only)
}
inline bool run_grad(const half* dy, int64_t n, double sr, double, half* value, uint64_t& single) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) return half_run(grad_half(dy, sr), n, value, single);
#endif
    return uniform_run_f16(dy, n, 0.0, sr, 0.0, value);
}

// The training grad's FLOAT32 first stage on a run: step G7 where the machine has AVX-512 and its W is below 2^900
// (dm, xm the chunk's max |dY| and |X|), its last n % 16 elements and other runs step G5 (W, the caller's, below
// 2^900). Returns whether any element is undecided.
inline bool training_grad_first(const float* dy, const float* x, int64_t n, double m, double a, double c, double sr,
                                float dm, float xm, double W, float* value) {
#if defined(DMLREF_F16C_PATHS) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if (have_avx512() && !four_lanes_forced.load(std::memory_order_relaxed)) {
        const FusedRun r = fused_run(m, a, c, sr);
        const double W7 = fused_width(r, dm, xm);
        if (W7 < 0x1p900) {
            bool any;
            const int64_t j = training_grad_fused_avx512(dy, x, n, r.sr, r.K, r.K0, W7, value, any);
            return training_grad_first_f32(dy + j, x + j, n - j, m, a, c, sr, W, value + j) || any;
        }
    }
#endif
    (void)dm;
    (void)xm;
    return training_grad_first_f32(dy, x, n, m, a, c, sr, W, value);
}

// Step G10's constants for a statistics element from step G8's sums b and p (of dY and of dY X over its M elements,
// their bounds G9's): G7's run constants for a' = fl(b / M) and c' = fl(fl(p - fl(m b)) / fl(M D~)), and the
// half-width W' = fl(fl(W7 (1 + 2^-49)) + Wac) with W7 G7's for the element's largest |dY| and |X| (dm, xm); W' NaN
// where D~ <= 0 or is not finite.
struct TrainingPass {
    FusedRun r{};
    double W = std::numeric_limits<double>::quiet_NaN();
};
// Step G10's dB and dC from the running sums ea and ec of step G8's sums of M terms, dm and xm the largest |dY| and
// |X| (a float's bits), m the Mean.
inline std::pair<double, double> training_bounds(const ChannelSums& s, uint64_t M, double m) {
    const double rounded = (double(M) * double(from_bits<float>(s.dm))) *
                           (double(from_bits<float>(s.xm)) + std::fabs(m));
    return {(s.ea * 0x1p-53) * (1 + 0x1p-12), (s.ec * 0x1p-53) * (1 + 0x1p-12) + rounded * (0x1p-53 * (1 + 0x1p-30))};
}
inline TrainingPass training_pass(const ChannelSums& s, double dB, double dC, uint64_t M, double m, double variance,
                                  float epsilon, double sr) {
    TrainingPass t;
    const double D = variance + double(epsilon);
    if (!(D > 0) || !std::isfinite(D)) return t;
    const uint32_t dm = s.dm, xm = s.xm;
    const double Md = double(M) * D, a = s.dy / double(M), cc = s.product / Md;
    const double Da = std::fabs(a) * 0x1p-52 + (dB / double(M)) * (1 + 0x1p-30);
    const double Dc = std::fabs(cc) * 0x1p-51 + (dC / Md) * (1 + 0x1p-30);
    const double Wac = (std::fabs(sr) * (1 + 0x1p-40)) * (Da + (double(from_bits<float>(xm)) + std::fabs(m)) * Dc);
    t.r = fused_run(m, a, cc, sr);
    t.W = fused_width(t.r, from_bits<float>(dm), from_bits<float>(xm)) * (1 + 0x1p-49) + Wac;
    return t;
}
inline void training_sums(const float* dy, const float* x, int64_t n, double m, PassSums& sums) {
#if defined(DMLREF_F16C_PATHS) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    training_sums_avx512(dy, x, n, m, sums);
#else
    (void)dy, (void)x, (void)n, (void)m, (void)sums;  // never called (grad_pass_on)
#endif
}
inline void training_sums(const half*, const half*, int64_t, double, PassSums&) {}  // never called (FLOAT32 only)
inline bool training_pass_outputs(const float* dy, const float* x, int64_t n, const TrainingPass& t, float* value) {
#if defined(DMLREF_F16C_PATHS) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    return training_pass_avx512(dy, x, n, t.r.sr, t.r.K, t.r.K0, t.W, value);
#else
    (void)dy, (void)x, (void)n, (void)t, (void)value;
    return true;  // never called (grad_pass_on)
#endif
}
inline bool training_pass_outputs(const half*, const half*, int64_t, const TrainingPass&, half*) {
    return true;  // never called (FLOAT32 only)
}

template <class T, class D> bool grad(const D& d, const Bindings& b) {
    constexpr bool training = std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>;
    const std::vector<T> mean = logical_values<T>(d.MeanTensor, b.at("MeanTensor"));
    const std::vector<T> var = logical_values<T>(d.VarianceTensor, b.at("VarianceTensor"));
    const std::vector<T> scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
    const size_t count = mean.size();
    if (count > kMaxStatistics) return false;
    const uint64_t M = element_count(d.InputTensor) / count;
    if (M >= (uint64_t(1) << (is_half_v<T> ? 22 : 38))) return false;  // GradSums' integers
    for (const T& m : mean)
        if (!std::isfinite(load(m))) return false;  // sum dY (X - Mean) by IEEE's rules: the plain loop
    const TensorView X(d.InputTensor, b.at("InputTensor")), dY(d.InputGradientTensor, b.at("InputGradientTensor")),
        dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    const std::vector<int64_t> stat = stat_strides(d.MeanTensor.Sizes);
    const T* x = X.data<T>();
    const T* dy = dY.data<T>();

    // The nest of OutputGradientTensor's loop: dY in kX's place, dX in kY's, X in kMean's, the
    // statistics in kRoot's.
    const Nest nest = nest_of(d.InputTensor.Sizes, [&](size_t i) {
        return std::array<int64_t, K>{dY.strides[i], dX.strides[i], X.strides[i], stat[i], 0, 0};
    });
    constexpr size_t kStat = kRoot, kIn = kMean;

    // The exact sums, sum dY and sum dY X (a NaN or an infinity in X or dY: the plain loop): by
    // extraction where the statistics are constant along the inner run (steps S1 to S3), otherwise
    // in bins, one pass in order. Then, per statistics element as its sums are known,
    // OutputBiasGradient = sum dY and OutputScaleGradient = r sum dY (X - Mean), and the run constants.
    std::vector<T> bias_gradient(count), scale_gradient(count);
    std::vector<double> sr(count), a(count), c(count);
    std::vector<ExactTotal> sums_dy(training ? count : 0), sums_c(training ? count : 0);
    std::vector<uint8_t> decided_statistics(count);  // each element's gradients decided without rationals (0 to 2)
    std::atomic<bool> exact{true};
    auto add = [](GradSums& g, T dv, T xv) {
        if constexpr (is_half_v<T>) return g.add_half(to_bits(dv), to_bits(xv));
        else return g.add(to_bits(dv), to_bits(xv));
    };
    // Per statistics element, from the exact sums as integers (steps C1 to C3): sum_c = sum dY X - Mean sum dY,
    // G0's decisions, a~ and c~; rationals only where a value is left undecided or M D's integer is too wide.
    auto finish = [&](size_t k, const ExactTotal& sum_dy, const ExactTotal& sum_products) {
        ExactTotal sum_c = sum_products;
        if (!sum_c.subtract_multiple(sum_dy, load(mean[k]))) {
            exact = false;  // never (step C1): the plain loop
            return;
        }
        uint64_t decided = 0;
        bias_gradient[k] = bias_gradient_of<T>(sum_dy, decided);
        scale_gradient[k] = scale_gradient_of<T>(sum_c, var[k], d.Epsilon, decided);
        decided_statistics[k] = uint8_t(decided);
        if constexpr (training) {
            if (!training_grad_constants_exact(sum_dy, sum_c, M, load(var[k]), d.Epsilon, a[k], c[k]))
                std::tie(a[k], c[k]) = training_grad_constants(sum_dy.rational(), sum_c.rational(), M, load(var[k]),
                                                               d.Epsilon);
            sums_dy[k] = sum_dy;
            sums_c[k] = sum_c;
        }
    };
    for (size_t k = 0; k < count; ++k) sr[k] = load(scale[k]) * root_estimate(load(var[k]), d.Epsilon);

    // OutputGradientTensor: the forward's steps with x = dY, m = 0, b = 0 (t = 0 only for dY = 0 or
    // Scale = 0, the exact zero), in the forward's chunks.
    const int64_t outer = nest.outer, chunks = nest.chunks;
    T* out_base = dX.data<T>();
    const std::span<std::byte> ib = b.at("InputGradientTensor"), ob = b.at("OutputGradientTensor");
    const bool overlap = overlaps(ib, ob);
    std::atomic<uint64_t> plain{0}, single{0};
    std::vector<Bounds> largest;  // each sums task's max |dY|, max |X| and least nonzero |dY| (steps G4 to G6)
    // A chunk's values after its first stages (any: whether one is undecided): its undecided elements computed
    // by the plain loop's element, and the chunk's counts added to the call's.
    auto settle = [&](T* value, const T* dyr, const T* xr, size_t k0, int64_t n, const std::array<int64_t, K>& step,
                      bool any, uint64_t by_single) {
        std::vector<int32_t>& undecided = scratch<T>().undecided;
        undecided.clear();
        if (any)
            for (int64_t j = 0; j < n; ++j)
                if (is_undecided(value[j])) undecided.push_back(int32_t(j));
        std::optional<mpq_class> sum_dy, sum_c;  // statistics element lazy_k's rationals, for its first plain element
        size_t lazy_k = count;
        for (const int32_t j : undecided) {
            const size_t k = k0 + size_t(j * step[kStat]);
            if constexpr (training) {
                if (lazy_k != k) {
                    sum_dy = sums_dy[k].rational();
                    sum_c = sums_c[k].rational();
                    lazy_k = k;
                }
                value[j] = batch_normalization_training_grad_element<T>(
                    dyr[j * step[kX]], xr[j * step[kIn]], mean[k], scale[k], var[k], *sum_dy, *sum_c, M, d.Epsilon);
            } else value[j] = batch_normalization_grad_element<T>(dyr[j * step[kX]], scale[k], var[k], d.Epsilon);
        }
        if (!undecided.empty()) plain.fetch_add(undecided.size(), std::memory_order_relaxed);
        if (by_single != 0) single.fetch_add(by_single, std::memory_order_relaxed);
    };
    auto output = [&](int64_t task) {
        const auto [at, first, n] = nest.task(task);
        const std::array<int64_t, K>& step = nest.inner.stride;
        Scratch<T>& s = scratch<T>();
        uint64_t by_single = 0;
        T* out = out_base + at[kY];
        const bool direct = step[kY] == 1 && !overlap;
        T* value = direct ? out : s.value.data();
        const T* dyr = dy + at[kX];
        const T* xr = x + at[kIn];
        const size_t k0 = size_t(at[kStat]);
        bool any = false;
        const double W = training && !is_half_v<T> && !largest.empty()
                             ? training_grad_width(from_bits<float>(largest[size_t(task)][0]),
                                                   from_bits<float>(largest[size_t(task)][1]), load(mean[k0]), a[k0],
                                                   c[k0], sr[k0])
                             : std::numeric_limits<double>::quiet_NaN();
        if (training && step[kStat] == 0 && step[kX] == 1 && step[kIn] == 1 && W < 0x1p900) {
            // Step G5's first stage (FLOAT32; W is NaN otherwise), its undecided elements the float64 estimate.
            if constexpr (!is_half_v<T>) {
                const double m = load(mean[k0]);
                const Bounds& bd = largest[size_t(task)];
                any = second_stage(training_grad_first(dyr, xr, n, m, a[k0], c[k0], sr[k0], from_bits<float>(bd[0]),
                                                       from_bits<float>(bd[1]), W, value),
                                   value, n, by_single, [&](int64_t j, double& z, double& w) {
                                       estimate_training_grad(load(dyr[j]), load(xr[j]), m, a[k0], c[k0], sr[k0], z, w);
                                   });
            }
        } else if (training && step[kStat] == 0 && step[kX] == 1 && step[kIn] == 1) {
            any = run_training_grad(dyr, xr, n, load(mean[k0]), a[k0], c[k0], sr[k0], value, by_single);
        } else if (training) {
            for (int64_t j = 0; j < n; ++j) {
                const size_t k = k0 + size_t(j * step[kStat]);
                double ze, we;
                estimate_training_grad(load(dyr[j * step[kX]]), load(xr[j * step[kIn]]), load(mean[k]), a[k], c[k],
                                       sr[k], ze, we);
                value[j] = decide_one(ze, we, value);
                any |= is_undecided(value[j]);
            }
        } else if (step[kStat] == 0 && step[kX] == 1) {
            if (!is_half_v<T> && !largest.empty() && !grad_bits_forced_off &&
                grad_bits_apply(sr[k0], largest[size_t(task)][2]))
                any = grad_bits(dyr, n, sr[k0], value);  // step G6
            else {
                const double W = !is_half_v<T> && !largest.empty()
                                     ? grad_width(from_bits<float>(largest[size_t(task)][0]), sr[k0])
                                     : std::numeric_limits<double>::quiet_NaN();
                any = run_grad(dyr, n, sr[k0], W, value, by_single);
            }
            if constexpr (!is_half_v<T>)  // step G4's or G6's undecided elements: the float64 estimate (steps 3 to 8)
                any = second_stage(any, value, n, by_single, [&](int64_t j, double& y, double& w) {
                    estimate(load(dyr[j]), 0.0, sr[k0], 0.0, y, w);
                });
        } else {
            for (int64_t j = 0; j < n; ++j) {
                double ye, we;
                estimate(load(dyr[j * step[kX]]), 0.0, sr[k0 + size_t(j * step[kStat])], 0.0, ye, we);
                value[j] = decide_one(ye, we, value);
                any |= is_undecided(value[j]);
            }
        }
        settle(value, dyr, xr, k0, n, step, any, by_single);
        if (direct) return;
        if (step[kY] == 1) std::memcpy(static_cast<void*>(out), value, size_t(n) * sizeof(T));
        else
            for (int64_t j = 0; j < n; ++j) out[j * step[kY]] = value[j];
    };
    // Where the statistics are constant along the inner run and the output meets neither input: one parallel
    // region (element_sums), each statistics element's sums, constants and outputs on one thread, its chunks
    // read again while they are in the cache, where the elements spread evenly over the threads
    // (spread_by_element); otherwise the sums' tasks, the constants, then the outputs. The grad's OutputGradient
    // needs no sum: there each task writes its chunk's outputs right after its sums (one read of dY; a task's
    // chunk is still in the cache). The tasks' chunks are those of the outputs, so every element has one owner
    // either way.
    const bool apart = !overlap && !overlaps(b.at("InputTensor"), ob);
    const bool by_element = nest.inner.stride[kStat] == 0 && apart && spread_by_element(count, outer * chunks);
    const bool fused = !training && nest.inner.stride[kStat] == 0 && nest.inner.stride[kX] == 1 &&
                       nest.inner.stride[kY] == 1 && apart;
    // Step G8 (the FLOAT32 grad where the machine has AVX-512): per statistics element, one pass over its chunks
    // writes OutputGradient and takes float64 sums, from which step G9 decides OutputBiasGradient and
    // OutputScaleGradient; the exact sums run only for an element it leaves (element_sums, then finish).
    std::atomic<uint64_t> pass_decided{0}, pass_exact{0};
    const bool pass = !is_half_v<T> && grad_pass_on() && nest.inner.stride[kX] == 1 && nest.inner.stride[kIn] == 1 &&
                      nest.inner.stride[kY] == 1;
    auto first_part = [&](size_t k, const size_t* first, const size_t* last) {
        if (!pass) return 0;
        ChannelSums sums;
        if constexpr (!training) {
            const uint32_t tau = grad_pass_threshold(sr[k]);
            if (tau == 0) return 0;
            for (const size_t* i = first; i != last; ++i) {
                const auto [at, unused, n] = nest.task(int64_t(*i));
                T* value = out_base + at[kY];
                const T* dyr = dy + at[kX];
                PassSums chunk;
                const bool any = grad_pass(dyr, x + at[kIn], n, sr[k], tau, value, chunk);
                sums.add(chunk);
                if (!sums.finite()) return 0;
                uint64_t by_single = 0;  // step G8's undecided elements: the float64 estimate (steps 3 to 8)
                const bool left = second_stage(any, value, n, by_single, [&](int64_t j, double& y, double& w) {
                    estimate(load(dyr[j]), 0.0, sr[k], 0.0, y, w);
                });
                settle(value, dyr, x + at[kIn], k, n, nest.inner.stride, left, by_single);
            }
            if (!pass_statistics<T>(sums.dy, sums.product, sums.dm, sums.xm, M, sums.depth(), load(mean[k]), var[k],
                                    d.Epsilon, bias_gradient[k], scale_gradient[k])) {
                pass_exact.fetch_add(1, std::memory_order_relaxed);
                return 1;
            }
        } else {
            // Step G10: the sums with their running bounds, the statistics (G9), a' and c' with the half-width that
            // covers them, then the outputs.
            const double m = load(mean[k]);
            for (const size_t* i = first; i != last; ++i) {
                const auto [at, unused, n] = nest.task(int64_t(*i));
                PassSums chunk;
                training_sums(dy + at[kX], x + at[kIn], n, m, chunk);
                sums.add(chunk);
            }
            if (!sums.finite()) return 0;
            const auto [dB, dC] = training_bounds(sums, M, m);
            const TrainingPass tp = training_pass(sums, dB, dC, M, m, load(var[k]), d.Epsilon, sr[k]);
            if (!(tp.W < 0x1p900)) return 0;
            const bool statistics = decide_statistics<T>(sums.dy, dB, sums.product, dC, var[k], d.Epsilon,
                                                         bias_gradient[k], scale_gradient[k]);
            bool any = false;
            for (const size_t* i = first; i != last; ++i) {
                const auto [at, unused, n] = nest.task(int64_t(*i));
                const bool left = training_pass_outputs(dy + at[kX], x + at[kIn], n, tp, out_base + at[kY]);
                if (!left) single.fetch_add(uint64_t(n), std::memory_order_relaxed);
                any |= left;
            }
            if (!statistics || any) {
                pass_exact.fetch_add(1, std::memory_order_relaxed);
                return 3;
            }
        }
        decided_statistics[k] = 2;
        pass_decided.fetch_add(1, std::memory_order_relaxed);
        return 2;
    };
    // After step G10 left an element (first_part's 3) and the exact sums and constants followed: each chunk's
    // elements it left, by steps G1 to G3 from the exact a~ and c~, then the plain element.
    auto mend = [&](int64_t task) {
        const auto [at, unused, n] = nest.task(task);
        T* value = out_base + at[kY];
        if (std::none_of(value, value + n, [](T v) { return is_undecided(v); })) return;
        const size_t k = size_t(at[kStat]);
        const T *dyr = dy + at[kX], *xr = x + at[kIn];
        const double m = load(mean[k]);
        uint64_t by_single = 0;
        const bool left = second_stage(true, value, n, by_single, [&](int64_t j, double& z, double& w) {
            estimate_training_grad(load(dyr[j]), load(xr[j]), m, a[k], c[k], sr[k], z, w);
        });
        settle(value, dyr, xr, k, n, nest.inner.stride, left, by_single);
    };
    bool finite;
    if (by_element)
        finite = element_sums<T, GradSums>(nest, dy, kX, x, kIn, kStat, count, add, finish, output, first_part, mend,
                                           &largest);
    else if (nest.inner.stride[kStat] == 0)
        finite = split_sums<T, GradSums>(
            nest, dy, kX, x, kIn, kStat, count, add, finish,
            [&](int64_t task) {
            if (fused) output(task);
            },
            &largest);
    else
        finite = serial_sums<GradSums>(d.InputTensor.Sizes, dy, dY.strides.data(), x, X.strides.data(), stat, count,
                                       add, finish);
    if (!finite || !exact) return false;
    if (!fused && !by_element) parallel_for(outer * chunks, output);
    write_logical<T>(d.OutputScaleGradientTensor, b.at("OutputScaleGradientTensor"),
                     [&](uint64_t k) { return scale_gradient[k]; });
    write_logical<T>(d.OutputBiasGradientTensor, b.at("OutputBiasGradientTensor"),
                     [&](uint64_t k) { return bias_gradient[k]; });
    grad_plain = plain.load();
    pass_statistics_decided = pass_decided.load();
    pass_statistics_exact = pass_exact.load();
    grad_decided = uint64_t(outer * nest.inner.size) - grad_plain.load();
    grad_single = single.load();
    statistics_decided = std::accumulate(decided_statistics.begin(), decided_statistics.end(), uint64_t(0));
    statistics_plain = 2 * count - statistics_decided.load();
    return true;
}

}  // namespace

bool batch_normalization_grad(const GRAD& d, const Bindings& b) {
    switch (d.InputTensor.DataType) {
        case DataType::FLOAT32: return grad<float>(d, b);
        case DataType::FLOAT16: return grad<half>(d, b);
        default: return false;
    }
}

bool batch_normalization_training_grad(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d,
                                       const Bindings& b) {
    switch (d.InputTensor.DataType) {
        case DataType::FLOAT32: return grad<float>(d, b);
        case DataType::FLOAT16: return grad<half>(d, b);
        default: return false;
    }
}

BatchNormalizationEstimate batch_normalization_training_grad_estimate(double dy, double x, double mean,
                                                                      const mpq_class& sum_dy, const mpq_class& sum_c,
                                                                      uint64_t M, double scale, double variance,
                                                                      float epsilon) {
    const auto [a, c] = training_grad_constants(sum_dy, sum_c, M, variance, epsilon);
    BatchNormalizationEstimate r;
    estimate_training_grad(dy, x, mean, a, c, scale * root_estimate(variance, epsilon), r.y, r.w);
    return r;
}

BatchNormalizationEstimate batch_normalization_training_grad_fused_estimate(double dy, double x, double mean,
                                                                            const mpq_class& sum_dy,
                                                                            const mpq_class& sum_c, uint64_t M,
                                                                            double scale, double variance,
                                                                            float epsilon) {
    const auto [a, c] = training_grad_constants(sum_dy, sum_c, M, variance, epsilon);
    const FusedRun r = fused_run(mean, a, c, scale * root_estimate(variance, epsilon));
    BatchNormalizationEstimate e;
    e.y = std::fma(r.sr, dy, std::fma(-r.K, x, r.K0));
    e.w = fused_width(r, float(std::fabs(dy)), float(std::fabs(x)));
    return e;
}

BatchNormalizationCounts batch_normalization_grad_counts() {
    return {grad_decided.load(), grad_plain.load(), grad_single.load()};
}

void batch_normalization_wide_sums(bool on) { wide_sums_forced = on; }
void batch_normalization_chunk_width(bool on) { chunk_width_forced = on; }
void batch_normalization_grad_width(bool on) { grad_bits_forced_off = on; }
void batch_normalization_grad_exact_sums(bool on) { grad_pass_forced_off = on; }
BatchNormalizationCounts batch_normalization_grad_pass_counts() {
    return {pass_statistics_decided.load(), pass_statistics_exact.load(), 0};
}
bool batch_normalization_grad_pass_available() { return grad_pass_on(); }
// The tests' view of steps G8 and G10's sums: the pass's chunks of one statistics element, added as first_part adds
// them (ChannelSums), with the bounds the steps take.
BatchNormalizationPassSums batch_normalization_training_grad_pass_sums(std::span<const float> dy,
                                                                       std::span<const float> x, float mean) {
    BatchNormalizationPassSums r;
    if (!grad_pass_on() || dy.size() != x.size()) return r;
    ChannelSums sums;
    for (size_t j = 0; j < dy.size(); j += size_t(kChunk)) {
        PassSums chunk;
        training_sums(dy.data() + j, x.data() + j, std::min<int64_t>(kChunk, int64_t(dy.size() - j)), mean, chunk);
        sums.add(chunk);
    }
    std::tie(r.bound_dy, r.bound_product) = training_bounds(sums, dy.size(), mean);
    r.sum_dy = sums.dy;
    r.sum_product = sums.product;
    r.ran = true;
    return r;
}
BatchNormalizationPassSums batch_normalization_grad_pass_sums(std::span<const float> dy, std::span<const float> x) {
    BatchNormalizationPassSums r;
    if (!grad_pass_on() || dy.size() != x.size()) return r;
    std::vector<float> value(kChunk);
    ChannelSums sums;
    for (size_t j = 0; j < dy.size(); j += size_t(kChunk)) {
        PassSums chunk;
        grad_pass(dy.data() + j, x.data() + j, std::min<int64_t>(kChunk, int64_t(dy.size() - j)), 1.0, 1, value.data(),
                  chunk);
        sums.add(chunk);
    }
    std::tie(r.bound_dy, r.bound_product) = pass_bounds(sums.dm, sums.xm, dy.size(), sums.depth());
    r.sum_dy = sums.dy;
    r.sum_product = sums.product;
    r.ran = true;
    return r;
}

BatchNormalizationHalfConstants batch_normalization_half_training_constants(const mpq_class& S, const mpq_class& Q,
                                                                            uint64_t M, double scale, float epsilon) {
    BatchNormalizationHalfConstants c;
    Run r{};
    HalfTraining h;
    c.ok = half_training_constants(S, Q, M, scale, epsilon, r, c.mu32, c.mean, c.variance, h);
    c.mu = r.mu;
    c.sr = r.sr;
    return c;
}

void batch_normalization_four_lane_sums(bool on) { four_lanes_forced = on; }

BatchNormalizationCounts batch_normalization_sums_counts() { return {narrow_chunks.load(), other_chunks.load(), 0}; }

BatchNormalizationCounts batch_normalization_grad_statistics_counts() {
    return {statistics_decided.load(), statistics_plain.load(), 0};
}

bool batch_normalization_training(const TRAINING& d, const Bindings& b) {
    switch (d.InputTensor.DataType) {
        case DataType::FLOAT32: return training<float>(d, b);
        case DataType::FLOAT16: return training<half>(d, b);
        default: return false;
    }
}

BatchNormalizationCounts batch_normalization_training_counts() {
    return {training_decided.load(), training_plain.load(), training_single.load()};
}

BatchNormalizationEstimate batch_normalization_training_estimate(double x, const mpq_class& mean,
                                                                 const mpq_class& variance, double scale, double bias,
                                                                 double fused_add, float epsilon) {
    const Run run = run_constants(mean, variance, scale, epsilon);
    BatchNormalizationEstimate r;
    estimate_training(x, run.mu, run.sr, bias + fused_add, run.A, r.y, r.w);
    return r;
}

bool batch_normalization(const BN& d, const Bindings& b) {
    switch (d.InputTensor.DataType) {
        case DataType::FLOAT32: return forward<float>(d, b);
        case DataType::FLOAT16: return forward<half>(d, b);
        default: return false;
    }
}

BatchNormalizationCounts batch_normalization_counts() {
    return {decided_count.load(), plain_count.load(), single_count.load()};
}

BatchNormalizationEstimate batch_normalization_estimate(double x, double mean, double variance, double scale,
                                                        double bias, float epsilon) {
    BatchNormalizationEstimate r;
    estimate(x, mean, scale * root_estimate(variance, epsilon), bias, r.y, r.w);
    return r;
}

namespace {
constexpr BatchNormalizationEstimate kNoEstimate{std::numeric_limits<double>::quiet_NaN(),
                                                 std::numeric_limits<double>::quiet_NaN()};
}  // namespace

BatchNormalizationEstimate batch_normalization_half_estimate(half x, half mean, half variance, half scale, half bias,
                                                             float epsilon) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) {
        const std::array<half, 8> xs = {x, x, x, x, x, x, x, x};
        const double sr = load(scale) * root_estimate(load(variance), epsilon);
        return single_estimate(forward_half(xs.data(), load(mean), sr, load(bias)));
    }
#endif
    return kNoEstimate;
}

BatchNormalizationEstimate batch_normalization_training_half_estimate(half x, const mpq_class& mean,
                                                                      const mpq_class& variance, half scale, half bias,
                                                                      const half* fused_add, float epsilon) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) {
        const std::array<half, 8> xs = {x, x, x, x, x, x, x, x};
        const half f = fused_add ? *fused_add : half(0.0f);
        const std::array<half, 8> fs = {f, f, f, f, f, f, f, f};
        const Run run = run_constants(mean, variance, load(scale), epsilon);
        const float mu32 = round_rational<float>(mean);
        if (fused_add)
            return single_estimate(training_half<true>(xs.data(), fs.data(), run.mu, mu32, run.sr, load(bias), run.A));
        return single_estimate(training_half<false>(xs.data(), nullptr, run.mu, mu32, run.sr, load(bias), run.A));
    }
#endif
    return kNoEstimate;
}

BatchNormalizationEstimate batch_normalization_training_grad_half_estimate(half dy, half x, half mean,
                                                                           const mpq_class& sum_dy,
                                                                           const mpq_class& sum_c, uint64_t M,
                                                                           half scale, half variance, float epsilon) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) {
        const std::array<half, 8> dys = {dy, dy, dy, dy, dy, dy, dy, dy}, xs = {x, x, x, x, x, x, x, x};
        const auto [a, c] = training_grad_constants(sum_dy, sum_c, M, load(variance), epsilon);
        const double sr = load(scale) * root_estimate(load(variance), epsilon);
        return single_estimate(training_grad_half(dys.data(), xs.data(), load(mean), a, c, sr));
    }
#endif
    return kNoEstimate;
}

}  // namespace dmlref::reference::fast
