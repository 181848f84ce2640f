// The Winograd allowance of CONVOLUTION's bound (docs/tolerance.md, "Winograd convolutions"): how
// far a backend that computes a FORWARD 2-D convolution with 3x3 filters, strides and dilations 1,
// by Winograd's minimal filtering may be from the exact value, per output element.
//
// The algorithm (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", 2016): the
// output is cut into m x m tiles from its origin; tile T of output channel k is
//     Y = A^T [ sum over the group's input channels c of (G g G^T) . (B^T d B) ] A,
// with g the 3x3 filter of (k, c) as a cross-correlation (reversed for Mode CONVOLUTION), d the
// (m + 2) x (m + 2) input patch under the tile (zeros outside the input: padding), "." the
// elementwise product, and B^T, G, A^T the constant matrices below, F(2x2, 3x3) (m = 2) and
// F(4x4, 3x3) (m = 4, the points 0, 1, -1, 2, -2 and infinity), the two in common use.
//
// The bound. Every entry of Y is a sum, over the group's channels and the matrices' indices, of
// products of one filter value, one input value and constants; in floating point each such path
// passes through at most k roundings, each a factor (1 + delta), |delta| <= u: the constants of G
// that are not binary fractions (1/6, 1/12, 1/24) rounded once, then in G g and (G g) G^T one
// product and at most two additions each (8); in B^T d and (B^T d) B one product by an integer
// constant and at most five additions each (12); the elementwise product and the sum over the C'
// channels of the group (C'); in A^T M and (A^T M) A one product and at most five additions each
// (12); the bias added (1): k = C' + 33, whatever the order or tree of every sum. So (Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., 3.1 and 3.5)
//     |Y~ - Y| <= gamma_k(u) |A^T| [ sum_c (|G| |g| |G^T|) . (|B^T| |d| |B|) ] |A| = gamma_k(u) W,
// entry by entry, with u the unit roundoff of the backend's working type. The patch holds the
// input's values wherever it lies inside the input (a backend reads them; zeros there would
// only lower W) and zeros outside. W is computed in float64 from exact magnitudes: each of its
// sums of non-negative terms is within a factor (1 + 2^-53)^(terms) of the exact one, and the
// result is raised by 2^-40 relative, more than those roundings. Underflow inside the transforms
// is not covered (nor is it for TF32 operands). Where gamma_k is undefined (k u >= 1/2 here), the
// allowance is infinite: the element is accepted, never rejected by a made-up bound.
//
// The allowance of an element is the larger of the two variants'; the bound adds it to the direct
// one (convolution_bounds, reference/convolution.cpp), which covers the direct algorithms.
#include "convolution.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace dmlref::reference {

namespace {

struct Variant {
    int m;                                   // tile size
    std::array<std::array<double, 6>, 6> B;  // |B^T|, alpha x alpha (alpha = m + 2)
    std::array<std::array<double, 3>, 6> G;  // |G|, alpha x 3
    std::array<std::array<double, 6>, 4> A;  // |A^T|, m x alpha
};

// The magnitudes of Lavin and Gray's matrices.
const Variant kF2{2,
                  {{{1, 0, 1, 0}, {0, 1, 1, 0}, {0, 1, 1, 0}, {0, 1, 0, 1}}},
                  {{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0, 0, 1}}},
                  {{{1, 1, 1, 0}, {0, 1, 1, 1}}}};
const Variant kF4{4,
                  {{{4, 0, 5, 0, 1, 0},
                    {0, 4, 4, 1, 1, 0},
                    {0, 4, 4, 1, 1, 0},
                    {0, 2, 1, 2, 1, 0},
                    {0, 2, 1, 2, 1, 0},
                    {0, 4, 0, 5, 0, 1}}},
                  {{{1.0 / 4, 0, 0},
                    {1.0 / 6, 1.0 / 6, 1.0 / 6},
                    {1.0 / 6, 1.0 / 6, 1.0 / 6},
                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                    {0, 0, 1}}},
                  {{{1, 1, 1, 1, 1, 0}, {0, 1, 1, 2, 2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, 1, 8, 8, 1}}}};

// W for every output element under one variant, maximised into `out`.
void variant_magnitudes(const Variant& v, const ConvolutionGeometry& g, const std::vector<double>& x,
                        const std::vector<double>& w, std::vector<double>& out) {
    const int m = v.m, alpha = m + 2;
    const uint64_t in_group = g.in_channels / g.groups, out_group = g.out_channels / g.groups;
    const int64_t H = g.in[1], Wd = g.in[2], OH = g.out[1], OW = g.out[2];
    // |G| |g| |G^T| for every (output channel, channel of its group), alpha x alpha each.
    std::vector<double> U(g.out_channels * in_group * uint64_t(alpha * alpha));
    for (uint64_t k = 0; k < g.out_channels; ++k)
        for (uint64_t c = 0; c < in_group; ++c) {
            const double* plane = w.data() + (k * g.filter_channels + c) * 9;
            double f[3][3];
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) f[a][b] = std::fabs(plane[(g.flip ? 2 - a : a) * 3 + (g.flip ? 2 - b : b)]);
            double t[6][3] = {};
            for (int i = 0; i < alpha; ++i)
                for (int b = 0; b < 3; ++b)
                    for (int a = 0; a < 3; ++a) t[i][b] += v.G[size_t(i)][size_t(a)] * f[a][b];
            double* u = U.data() + (k * in_group + c) * uint64_t(alpha * alpha);
            for (int i = 0; i < alpha; ++i)
                for (int j = 0; j < alpha; ++j) {
                    double s = 0;
                    for (int b = 0; b < 3; ++b) s += t[i][b] * v.G[size_t(j)][size_t(b)];
                    u[i * alpha + j] = s;
                }
        }
    std::vector<double> V(g.in_channels * uint64_t(alpha * alpha));
    std::vector<double> M(size_t(alpha * alpha));
    for (uint64_t n = 0; n < g.batch; ++n)
        for (int64_t ty = 0; ty < OH; ty += m)
            for (int64_t tx = 0; tx < OW; tx += m) {
                // |B^T| |d| |B| for every input channel.
                for (uint64_t c = 0; c < g.in_channels; ++c) {
                    const double* plane = x.data() + (n * g.in_channels + c) * uint64_t(H * Wd);
                    double d[6][6];
                    for (int a = 0; a < alpha; ++a)
                        for (int b = 0; b < alpha; ++b) {
                            const int64_t r = ty - g.start[1] + a, s = tx - g.start[2] + b;
                            d[a][b] = r >= 0 && r < H && s >= 0 && s < Wd ? std::fabs(plane[r * Wd + s]) : 0.0;
                        }
                    double t[6][6] = {};
                    for (int i = 0; i < alpha; ++i)
                        for (int a = 0; a < alpha; ++a)
                            if (v.B[size_t(i)][size_t(a)] != 0)
                                for (int b = 0; b < alpha; ++b) t[i][b] += v.B[size_t(i)][size_t(a)] * d[a][b];
                    double* p = V.data() + c * uint64_t(alpha * alpha);
                    for (int i = 0; i < alpha; ++i)
                        for (int j = 0; j < alpha; ++j) {
                            double s = 0;
                            for (int b = 0; b < alpha; ++b) s += t[i][b] * v.B[size_t(j)][size_t(b)];
                            p[i * alpha + j] = s;
                        }
                }
                for (uint64_t k = 0; k < g.out_channels; ++k) {
                    const uint64_t group = k / out_group;
                    std::fill(M.begin(), M.end(), 0.0);
                    for (uint64_t c = 0; c < in_group; ++c) {
                        const double* u = U.data() + (k * in_group + c) * uint64_t(alpha * alpha);
                        const double* p = V.data() + (group * in_group + c) * uint64_t(alpha * alpha);
                        for (int q = 0; q < alpha * alpha; ++q) M[size_t(q)] += u[q] * p[q];
                    }
                    double t[4][6] = {};
                    for (int i = 0; i < m; ++i)
                        for (int a = 0; a < alpha; ++a)
                            for (int b = 0; b < alpha; ++b)
                                t[i][b] += v.A[size_t(i)][size_t(a)] * M[size_t(a * alpha + b)];
                    for (int i = 0; i < m && ty + i < OH; ++i)
                        for (int j = 0; j < m && tx + j < OW; ++j) {
                            double s = 0;
                            for (int b = 0; b < alpha; ++b) s += t[i][b] * v.A[size_t(j)][size_t(b)];
                            const uint64_t e = ((n * g.out_channels + k) * uint64_t(OH) + uint64_t(ty + i)) *
                                                   uint64_t(OW) +
                                               uint64_t(tx + j);
                            out[e] = std::max(out[e], s);
                        }
                }
            }
}

// Whether a backend may use F(2x2, 3x3) or F(4x4, 3x3) on this geometry.
bool winograd_applies(const ConvolutionGeometry& g) {
    return !g.backward && g.spatial == 2 && g.kernel[1] == 3 && g.kernel[2] == 3 && g.stride[1] == 1 &&
           g.stride[2] == 1 && g.dilation[1] == 1 && g.dilation[2] == 1;
}

}  // namespace

std::vector<double> winograd_magnitudes(const ConvolutionGeometry& g, const std::vector<double>& x,
                                        const std::vector<double>& w) {
    if (!winograd_applies(g)) return {};
    std::vector<double> out(g.batch * g.out_channels * g.out_plane(), 0.0);
    variant_magnitudes(kF2, g, x, w, out);
    variant_magnitudes(kF4, g, x, w, out);
    for (double& v : out) v *= 1 + 0x1p-40;
    return out;
}

double winograd_allowance(const ConvolutionGeometry& g, double magnitude, double u) {
    const double k = double(g.in_channels / g.groups + 33);
    if (magnitude == 0 || k * u >= 0.5) return magnitude == 0 ? 0.0 : INFINITY;
    return k * u / (1 - k * u) * magnitude * (1 + 0x1p-40);
}

}  // namespace dmlref::reference
