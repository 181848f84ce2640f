// Alternative readings of the policies (docs/golden.md, "Alternative readings"): each named
// alternative, the operators it changes, and the readings in force while a case is evaluated.
#pragma once

#include <functional>

#include "dmlref/case.hpp"
#include "dmlref/diagnostics.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/operators.hpp"

#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dmlref {

// Every alternative dmlref can evaluate is declared by the family record of the operators it
// changes (reference/kit/family.hpp, FamilyRecord::readings), and the kit gives it an id, in the
// order of the one list of families: the reference loops ask in_force(id) at the place where the
// operator decides that policy, with the id reading_id(Policy, Value) hands out.
using ReadingId = uint16_t;
// The most alternatives the readings in force can hold (the kit refuses more at its first use).
inline constexpr size_t kMaxReadings = 256;

struct Alternative {
    std::string_view Policy;              // the policy name goldens record ("ArgmaxNaN")
    std::string_view Value;               // the alternative's value ("NaNWins")
    std::string_view Meaning;             // one sentence
    std::string_view Who;                 // who reads it this way (PyTorch, JAX, ...)
    std::vector<OperatorType> Operators;  // the operators whose values it can change
    ReadingId Id = 0;                     // given by the kit (the declaration leaves it)
    std::string name() const { return std::string(Policy) + "=" + std::string(Value); }
};

// Every alternative the family records declare, in the order of the list (Id is the position).
const std::vector<Alternative>& alternatives();
const Alternative& alternative(ReadingId r);
// The id of Policy=Value; std::logic_error where no family record declares it (a loop asking
// for a reading nobody declared stops at its first use, never silently reads the default). A
// loop keeps it in a function-local static (`static const ReadingId id = reading_id(...)`),
// never a namespace-scope one: the records are not built before main.
ReadingId reading_id(std::string_view policy, std::string_view value);
// The alternatives that can change an operator's values.
std::vector<const Alternative*> alternatives_for(OperatorType t);

// A set of alternatives, one value per policy: policy name -> value.
using ReadingChoice = std::map<std::string, std::string>;

// "NAME=VALUE" as given to --policy: errors with rule ids policy.syntax, policy.unknown-name,
// policy.unknown-value (docs/rules.md) go to diags at `path`. A value that is dmlref's default
// is accepted (it changes nothing).
std::optional<std::pair<std::string, std::string>> parse_policy_option(std::string_view text, Diagnostics& diags,
                                                                       const std::string& path = "");
// Whether `name` is a policy of some operator (or of an alternative), and whether `value` is
// its default or a known alternative.
bool is_policy_name(std::string_view name);
bool is_known_value(std::string_view name, std::string_view value);
const Alternative* find_alternative(std::string_view name, std::string_view value);
// The alternative NAME=VALUE when it applies to the operator, else null.
const Alternative* alternative_of(OperatorType t, std::string_view name, std::string_view value);

// The operator's policies with the choice's values in force (what a golden records).
std::vector<std::pair<std::string, std::string>> policies_in_force(OperatorType t, const ReadingChoice& choice);

namespace detail {
extern thread_local std::bitset<kMaxReadings> readings_mask;
}
// Whether an alternative is in force on this thread (the reference loops read it).
inline bool in_force(ReadingId r) { return detail::readings_mask[r]; }
inline bool any_reading_in_force() { return detail::readings_mask.any(); }

// A policy's or a value's name as a template argument: `in_force<"ArgmaxNaN", "NaNWins">()`.
template <size_t N> struct ReadingName {
    char text[N];
    constexpr ReadingName(const char (&s)[N]) {
        for (size_t i = 0; i < N; ++i) text[i] = s[i];
    }
};
// Whether Policy=Value is in force on this thread: what a family's loop asks where it decides
// that policy. The id is looked up once, at the first call (std::logic_error where no family
// record declares the reading).
template <ReadingName Policy, ReadingName Value> bool in_force() {
    static const ReadingId id = reading_id(Policy.text, Value.text);
    return in_force(id);
}

// Sets the readings in force on this thread for its lifetime (the previous ones come back).
// Values that are defaults or alternatives of other operators are simply not bits here.
class ScopedReadings {
public:
    explicit ScopedReadings(const ReadingChoice& choice);
    explicit ScopedReadings(ReadingId r);
    ~ScopedReadings();
    ScopedReadings(const ScopedReadings&) = delete;
    ScopedReadings& operator=(const ScopedReadings&) = delete;

private:
    std::bitset<kMaxReadings> saved_;
};

// ---- Diagnosis (`dmlref diff`, docs/diff.md "Readings") -------------------------------------
struct OutputCensus;
struct DiffOptions;
// Runs a golden's case under each alternative reading of its operator (once per reading, kept
// for every output) and counts the over-tolerance elements whose actual value follows it.
class ReadingsDiagnosis {
public:
    // `inputs`: where the golden's inputs come from when the case no longer holds them (diff frees
    // them where judging does not read them; docs/diff.md).
    explicit ReadingsDiagnosis(const Case& golden,
                               std::function<std::map<std::string, std::vector<std::byte>>()> inputs = {});
    // (reading, elements) for each alternative that some over-tolerance element follows, in the
    // order of alternatives(), then ("", elements that follow none) when there are such elements.
    // An element may follow several readings. Changes no verdict.
    std::vector<std::pair<std::string, uint64_t>> diagnose(std::string_view output,
                                                           const std::vector<std::byte>& actual,
                                                           const OutputCensus& census, const DiffOptions& options);

private:
    const std::vector<std::byte>* outputs_under(const Alternative& a, std::string_view output);
    const Case& golden_;
    std::function<std::map<std::string, std::vector<std::byte>>()> inputs_;
    std::map<std::string, std::optional<Outputs>> runs_;
};

// ---- The values the alternatives compute (the reference loops call these) ------------------

// A floating value's sign bit.
template <class T> inline bits_t<T> sign_bit() { return bits_t<T>(bits_t<T>(1) << (sizeof(T) * 8 - 1)); }

// A NaN with its quiet bit set (payload and sign kept); other values unchanged.
template <class T> inline T quieted(T v) {
    if constexpr (std::is_integral_v<T>) return v;
    else {
        if (!is_nan(v)) return v;
        return from_bits<T>(bits_t<T>(to_bits(v) | bits_t<T>(to_bits(canonical_nan<T>()) & ~sign_bit<T>())));
    }
}

// dY * 0 (SelectedZero=MaskProduct): a zero of dY's sign; NaN for a NaN (quieted) or an infinity
// (the canonical NaN). Integers: 0.
template <class T> inline T mask_product_zero(T dy) {
    if constexpr (std::is_integral_v<T>) return T(0);
    else {
        if (is_nan(dy)) return quieted(dy);
        if (std::isinf(widen(dy))) return canonical_nan<T>();
        return from_bits<T>(bits_t<T>(to_bits(dy) & sign_bit<T>()));
    }
}

// A subnormal flushed to a zero of its sign (Subnormals=FlushAtomicSums); other values unchanged.
template <class T> inline T flushed(T v) {
    if constexpr (std::is_integral_v<T>) return v;
    else {
        const double d = widen(v);
        if (d != 0 && std::isfinite(d) && std::fpclassify(d) != FP_NAN &&
            std::fabs(d) < widen(std::numeric_limits<T>::min()))
            return from_bits<T>(bits_t<T>(to_bits(v) & sign_bit<T>()));
        return v;
    }
}

// dY * 2^-k (ClipGradBounds=HalfAtBounds, k = 1 or 2): floats rounded once to nearest even,
// integers toward zero.
template <class T> inline T scaled_down(T dy, int k) {
    if constexpr (std::is_integral_v<T>) return T(dy / T(1 << k));
    else return round_to_float<T>(std::ldexp(widen(dy), -k));
}

}  // namespace dmlref
