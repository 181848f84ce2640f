// The pow calibration's measurement (docs/crosscheck-gpu.md, "pow"): the largest error, in ULPs
// of the exact value, of a backend's float32 pow against MPFR at 200 bits.
//   g++ -O2 -std=c++20 tools/crosscheck/pow_ulp.cpp -lmpfr -lgmp -o pow_ulp
//   ./pow_ulp INPUTS RESULTS   (INPUTS: pow_inputs.py's directory; RESULTS: pow_tt.npy, pow_ts.npy)
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

// A little-endian float32 .npy file, 1-D (numpy's version 1 or 2 header).
std::vector<float> load(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), {});
    if (all.size() < 12 || all.compare(0, 6, "\x93NUMPY") != 0) {
        std::fprintf(stderr, "%s: not .npy\n", path.c_str());
        std::exit(2);
    }
    size_t hlen, start;
    if (all[6] == 1) {
        hlen = uint8_t(all[8]) | uint8_t(all[9]) << 8;
        start = 10;
    } else {
        hlen = uint8_t(all[8]) | uint8_t(all[9]) << 8 | uint8_t(all[10]) << 16 | size_t(uint8_t(all[11])) << 24;
        start = 12;
    }
    if (all.find("<f4", start) > start + hlen) {
        std::fprintf(stderr, "%s: not float32\n", path.c_str());
        std::exit(2);
    }
    std::vector<float> v((all.size() - start - hlen) / 4);
    std::memcpy(v.data(), all.data() + start + hlen, v.size() * 4);
    return v;
}

struct Stats {
    double worst = 0, worst_b = 0, worst_p = 0;
    long n = 0, over_half = 0, over_one = 0, over_two = 0, skipped = 0;
};

// |a - b^p| / ulp(b^p) with ulp of the exact value's binade (float32: 2^(e - 23), e = floor(log2|x|)).
void measure(Stats& s, float b, float p, float a) {
    mpfr_t x, y, r, d;
    mpfr_inits2(200, x, y, r, d, (mpfr_ptr) nullptr);
    mpfr_set_flt(x, b, MPFR_RNDN);
    mpfr_set_flt(y, p, MPFR_RNDN);
    mpfr_pow(r, x, y, MPFR_RNDN);
    const double approx = mpfr_get_d(r, MPFR_RNDN);
    // Only finite normal float32 results: overflow and underflow are not accuracy.
    if (!std::isfinite(a) || !(std::fabs(approx) >= 0x1p-126) || !(std::fabs(approx) < 0x1p128)) {
        ++s.skipped;
    } else {
        mpfr_set_flt(d, a, MPFR_RNDN);
        mpfr_sub(d, d, r, MPFR_RNDN);
        mpfr_abs(d, d, MPFR_RNDN);
        const long e = mpfr_get_exp(r) - 1;  // r = m 2^exp with m in [1/2, 1): floor(log2 r) = exp - 1
        mpfr_mul_2si(d, d, 23 - e, MPFR_RNDN);
        const double ulps = mpfr_get_d(d, MPFR_RNDU);
        ++s.n;
        s.over_half += ulps > 0.5;
        s.over_one += ulps > 1;
        s.over_two += ulps > 2;
        if (ulps > s.worst) {
            s.worst = ulps;
            s.worst_b = b;
            s.worst_p = p;
        }
    }
    mpfr_clears(x, y, r, d, (mpfr_ptr) nullptr);
}

void print(const char* what, const Stats& s) {
    std::printf(
        "%-34s %9ld measured (%ld skipped: overflow/underflow)  max %.4f ULP at pow(%.9g, %.9g)  >0.5: %ld  >1: %ld  >2: %ld\n",
        what, s.n, s.skipped, s.worst, s.worst_b, s.worst_p, s.over_half, s.over_one, s.over_two);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: pow_ulp INPUTS RESULTS\n");
        return 2;
    }
    const std::string in = argv[1], res = argv[2];
    const auto b = load(in + "/b.npy"), p = load(in + "/p.npy"), tt = load(res + "/pow_tt.npy");
    Stats all, lrn_range;
    for (size_t i = 0; i < b.size(); ++i) {
        measure(all, b[i], p[i], tt[i]);
        if (i % 2) measure(lrn_range, b[i], p[i], tt[i]);
    }
    print("torch.pow(tensor, tensor), all", all);
    print("  bases in [0.5, 8]", lrn_range);
    const auto bs = load(in + "/bs.npy"), ts = load(res + "/pow_ts.npy");
    std::ifstream sf(in + "/scalars.txt");
    std::vector<double> scalars;
    for (double v; sf >> v;) scalars.push_back(v);
    for (size_t k = 0; k < scalars.size(); ++k) {
        Stats s;
        for (size_t i = 0; i < bs.size(); ++i) measure(s, bs[i], float(scalars[k]), ts[k * bs.size() + i]);
        print(("torch.pow(tensor, " + std::to_string(scalars[k]) + ")").c_str(), s);
    }
    return 0;
}
