// Computed-bound test support: naive arithmetic in a working type (FLOAT16 emulated, float32,
// float64; every operation rounded to it, several summation orders), and judging actual values
// through dmlref diff's census, for test_bound_computed.cpp and test_bound_computed_lrn.cpp.
#pragma once

#include "support.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace dmlref::test::computed {

using namespace dmlref;

// ---- Naive arithmetic in a working type: every operation rounded to it ------------------------

enum class Work { Half, Float, Double };
inline double rnd(Work w, double v) {
    switch (w) {
        case Work::Half: return half_to_double(half_from_double(v));
        case Work::Float: return double(float(v));
        default: return v;
    }
}
// The operation in double, then rounded to the working type: exact for + - * of halves and
// floats (the double result is exact or rounds once more harmlessly for *), a division or pow
// within a fraction of an ULP more (a double rounding), inside the stated accuracies.
struct Naive {
    Work w;
    bool exp2_log2 = false;  // pow as exp2(p * log2(b)), each step rounded (a shader's pow)
    double add(double a, double b) const { return rnd(w, a + b); }
    double mul(double a, double b) const { return rnd(w, a * b); }
    double div(double a, double b) const { return rnd(w, a / b); }
    double pow(double a, double b) const {
        if (exp2_log2) return rnd(w, std::exp2(mul(b, rnd(w, std::log2(a)))));
        return w == Work::Float ? double(std::pow(float(a), float(b))) : rnd(w, std::pow(a, b));
    }
    double rcp(double a) const { return rnd(w, 1 / a); }
};

// Sums in four orders: forward, backward, pairwise, and from the largest magnitude down.
inline double sum_in(const Naive& n, std::vector<double> v, int order) {
    if (v.empty()) return 0;
    if (order == 1) std::reverse(v.begin(), v.end());
    if (order == 3) std::sort(v.begin(), v.end(), [](double a, double b) { return std::fabs(a) > std::fabs(b); });
    if (order == 2) {
        while (v.size() > 1) {
            std::vector<double> next;
            for (size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(n.add(v[i], v[i + 1]));
            if (v.size() % 2) next.push_back(v.back());
            v = next;
        }
        return v[0];
    }
    double s = 0;
    for (double x : v) s = n.add(s, x);
    return s;
}

template <class T> std::vector<std::byte> bytes_of(const std::vector<double>& v) {
    std::vector<T> t(v.size());
    for (size_t i = 0; i < v.size(); ++i) t[i] = round_to_float<T>(v[i]);
    std::vector<std::byte> b(t.size() * sizeof(T));
    std::memcpy(b.data(), static_cast<const void*>(t.data()), b.size());
    return b;
}

inline std::vector<std::byte> stored(DataType t, const std::vector<double>& v) {
    return t == DataType::FLOAT16   ? bytes_of<half>(v)
           : t == DataType::FLOAT32 ? bytes_of<float>(v)
                                    : bytes_of<double>(v);
}

inline OutputCensus judge_all(const Case& golden, const std::string& output, const std::vector<double>& actual,
                              Accumulate a) {
    DiffOptions o;
    o.profile.accumulate = a;
    const DataType t = golden.expected.at(output).values.size() / actual.size() == 2   ? DataType::FLOAT16
                       : golden.expected.at(output).values.size() / actual.size() == 4 ? DataType::FLOAT32
                                                                                       : DataType::FLOAT64;
    return census(golden, output, stored(t, actual), o);
}

inline std::vector<double> golden_values(const Case& c, const std::string& output, DataType t) {
    const auto& b = c.expected.at(output).values;
    const size_t w = element_size(t);
    std::vector<double> v(b.size() / w);
    for (size_t i = 0; i < v.size(); ++i) {
        const uint64_t bits = load_bits(t, b.data() + i * w);
        v[i] = t == DataType::FLOAT16   ? half_to_double(from_bits<half>(uint16_t(bits)))
               : t == DataType::FLOAT32 ? double(from_bits<float>(uint32_t(bits)))
                                        : from_bits<double>(bits);
    }
    return v;
}

// Each element's bound under the profile, as dmlref diff computes it.
inline std::vector<double> bounds_of(const Case& c, const std::string& output, DataType t, Accumulate a) {
    ArithmeticProfile p;
    p.accumulate = a;
    const auto sink = summed_terms(c, output, p);
    REQUIRE(sink.has_value());
    const auto& b = c.expected.at(output).values;
    std::vector<double> r;
    for (size_t i = 0; i < sink->elements().size(); ++i)
        r.push_back(element_bound(sink->elements()[i], t, load_bits(t, b.data() + i * element_size(t)), p));
    return r;
}

// ---- Random inputs and the profiles that admit each working type ------------------------------

inline std::vector<double> random_values(size_t n, double lo, double hi, uint32_t seed, DataType t) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(n);
    for (double& x : v)
        x = t == DataType::FLOAT16 ? rnd(Work::Half, u(g)) : t == DataType::FLOAT32 ? rnd(Work::Float, u(g)) : u(g);
    return v;
}

struct Profile {
    Accumulate accumulate;
    Work work;
};
// The working types each output type admits, with the profile that names them.
inline std::vector<Profile> profiles(DataType t) {
    if (t == DataType::FLOAT16)
        return {
            {Accumulate::Output, Work::Half}, {Accumulate::Float32, Work::Float}, {Accumulate::Float64, Work::Double}};
    if (t == DataType::FLOAT32) return {{Accumulate::Output, Work::Float}, {Accumulate::Float64, Work::Double}};
    return {{Accumulate::Output, Work::Double}};
}
inline Work work_of(DataType t) {
    return t == DataType::FLOAT16 ? Work::Half : t == DataType::FLOAT32 ? Work::Float : Work::Double;
}

inline void check_accepted(const Case& golden, const std::string& output, const std::vector<double>& actual,
                           Accumulate a, const std::string& what) {
    for (Accumulate profile : {a, Accumulate::Any}) {
        const OutputCensus r = judge_all(golden, output, actual, profile);
        INFO(what << " under accumulate=" << name(profile) << ": worst error/bound " << r.worst_ratio);
        CHECK(r.over == 0);
        CHECK(r.worst_ratio <= 1);
    }
}

}  // namespace dmlref::test::computed
