// The key generator: parsing of distributions, determinism across thread counts and chunkings, and
// the defining property of every distribution, for each of the six key types.
#include "generate/generate.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "generate/distribution.hpp"
#include "core/key_order.hpp"
#include "core/error.hpp"

namespace rmgsort {
namespace {

using Kind = Distribution::Kind;

template <class T>
using Ascending = KeyOrder<T, SortOrder::ascending>;

template <class T>
std::vector<T> generate_in_one_call(std::uint64_t n, const Distribution& dist, std::uint64_t seed) {
  std::vector<T> keys(n);
  generate_keys(keys.data(), 0, n, n, dist, seed);
  return keys;
}

// Uneven chunks, generated last chunk first, so that neither chunk boundaries nor call order can
// matter to a correct generator.
template <class T>
std::vector<T> generate_in_uneven_chunks(std::uint64_t n, const Distribution& dist, std::uint64_t seed) {
  std::vector<T> keys(n);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> chunks;  // (first, count)
  const std::uint64_t sizes[] = {1, 2, 3, 1000, 16385, 77777, 5};
  std::uint64_t first = 0;
  for (std::size_t c = 0; first < n; ++c) {
    const std::uint64_t count = std::min(sizes[c % std::size(sizes)], n - first);
    chunks.emplace_back(first, count);
    first += count;
  }
  for (auto it = chunks.rbegin(); it != chunks.rend(); ++it)
    generate_keys(keys.data() + it->first, it->first, it->second, n, dist, seed);
  return keys;
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
constexpr unsigned kWidth = 8 * sizeof(T);

template <class T>
std::vector<Distribution> every_distribution() {
  return {parse_distribution("uniform"),       parse_distribution("normal"),
          parse_distribution("zipf:0"),        parse_distribution("zipf:0.5"),
          parse_distribution("zipf:1"),        parse_distribution("zipf:1.5"),
          parse_distribution("bits:13"),       parse_distribution("bits:" + std::to_string(kWidth<T>)),
          parse_distribution("sorted"),        parse_distribution("reverse"),
          parse_distribution("nearly-sorted"), parse_distribution("zero"),
          parse_distribution("special")};
}

std::string expect_error(std::string_view text) {
  try {
    (void)parse_distribution(text);
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "parse_distribution(\"" << text << "\") did not throw";
  return {};
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------------
// parse_distribution, to_string, distribution_help

TEST(ParseDistribution, AcceptsEveryDocumentedForm) {
  EXPECT_EQ(parse_distribution("uniform").kind, Kind::uniform);
  EXPECT_EQ(parse_distribution("normal").kind, Kind::normal);
  EXPECT_EQ(parse_distribution("sorted").kind, Kind::sorted);
  EXPECT_EQ(parse_distribution("reverse").kind, Kind::reverse);
  EXPECT_EQ(parse_distribution("nearly-sorted").kind, Kind::nearly_sorted);
  EXPECT_EQ(parse_distribution("zero").kind, Kind::zero);
  EXPECT_EQ(parse_distribution("special").kind, Kind::special);

  EXPECT_EQ(parse_distribution("zipf:0.5"), (Distribution{Kind::zipf, 0.5, 0}));
  EXPECT_EQ(parse_distribution("zipf:1"), (Distribution{Kind::zipf, 1.0, 0}));
  EXPECT_EQ(parse_distribution("zipf:2.0"), (Distribution{Kind::zipf, 2.0, 0}));
  EXPECT_EQ(parse_distribution("zipf:0"), (Distribution{Kind::zipf, 0.0, 0}));
  EXPECT_EQ(parse_distribution("zipf:1e-3"), (Distribution{Kind::zipf, 0.001, 0}));
  EXPECT_EQ(parse_distribution("bits:0"), (Distribution{Kind::bits, 0, 0}));
  EXPECT_EQ(parse_distribution("bits:20"), (Distribution{Kind::bits, 0, 20}));
  EXPECT_EQ(parse_distribution("bits:64"), (Distribution{Kind::bits, 0, 64}));
}

TEST(ParseDistribution, ToStringReadsBack) {
  for (const char* text : {"uniform", "normal", "zipf:0", "zipf:0.5", "zipf:1", "zipf:1.25", "bits:0",
                           "bits:64", "sorted", "reverse", "nearly-sorted", "zero", "special"}) {
    EXPECT_EQ(to_string(parse_distribution(text)), text);
  }
  const Distribution odd{Kind::zipf, 0.1 + 0.2, 0};  // not a short decimal
  EXPECT_EQ(parse_distribution(to_string(odd)), odd);
  EXPECT_EQ(to_string(parse_distribution("zipf:-0")), "zipf:0");
}

TEST(ParseDistribution, RejectsUnknownNamesListingTheForms) {
  for (const char* text : {"", "foo", "Uniform", "nearly_sorted", "uniform ", "zipf1", "reversed"}) {
    const std::string message = expect_error(text);
    EXPECT_TRUE(contains(message, "unknown distribution '" + std::string(text) + "'")) << message;
    EXPECT_TRUE(contains(message, "expected one of: uniform, normal, zipf:S, bits:B")) << message;
  }
}

TEST(ParseDistribution, RejectsBadParametersPrecisely) {
  EXPECT_TRUE(contains(expect_error("zipf"), "needs an exponent"));
  EXPECT_TRUE(contains(expect_error("zipf:"), "invalid zipf exponent ''"));
  EXPECT_TRUE(contains(expect_error("zipf:abc"), "invalid zipf exponent 'abc'"));
  EXPECT_TRUE(contains(expect_error("zipf:1.5x"), "invalid zipf exponent '1.5x'"));
  EXPECT_TRUE(contains(expect_error("zipf:+1"), "invalid zipf exponent '+1'"));
  EXPECT_TRUE(contains(expect_error("zipf:nan"), "invalid zipf exponent 'nan'"));
  EXPECT_TRUE(contains(expect_error("zipf:inf"), "invalid zipf exponent 'inf'"));
  EXPECT_TRUE(contains(expect_error("zipf:-1"), "is negative"));
  EXPECT_TRUE(contains(expect_error("zipf:1:2"), "invalid zipf exponent '1:2'"));
  EXPECT_TRUE(contains(expect_error("bits"), "needs a bit count"));
  EXPECT_TRUE(contains(expect_error("bits:"), "invalid bit count ''"));
  EXPECT_TRUE(contains(expect_error("bits:-1"), "invalid bit count '-1'"));
  EXPECT_TRUE(contains(expect_error("bits:1.5"), "invalid bit count '1.5'"));
  EXPECT_TRUE(contains(expect_error("bits:257"), "out of range"));  // bytes:32 keys have 256 bits
  EXPECT_TRUE(contains(expect_error("bits:99999999999999999999"), "out of range"));
  EXPECT_TRUE(contains(expect_error("uniform:3"), "takes no parameter"));
  EXPECT_TRUE(contains(expect_error("sorted:"), "takes no parameter"));
}

TEST(DistributionHelp, DescribesEveryDistribution) {
  const std::string help = distribution_help();
  for (const char* name : {"uniform", "normal", "zipf:S", "bits:B", "sorted", "reverse", "nearly-sorted",
                           "zero", "special"})
    EXPECT_TRUE(contains(help, name)) << name;
}

TEST(GenerateKeys, RejectsARangeOutsideTheDataSet) {
  std::vector<std::uint32_t> keys(10);
  const Distribution uniform = parse_distribution("uniform");
  EXPECT_THROW(generate_keys(keys.data(), 5, 6, 10, uniform, 1), Error);
  EXPECT_THROW(generate_keys(keys.data(), 11, 0, 10, uniform, 1), Error);
  EXPECT_THROW(generate_keys(keys.data(), ~std::uint64_t{0}, 2, 10, uniform, 1), Error);
  EXPECT_NO_THROW(generate_keys<std::uint32_t>(nullptr, 10, 0, 10, uniform, 1));
}

TEST(GenerateKeys, RejectsMoreBitsThanTheKeyHas) {
  std::vector<std::uint32_t> narrow(4);
  try {
    generate_keys(narrow.data(), 0, 4, 4, parse_distribution("bits:33"), 1);
    ADD_FAILURE() << "bits:33 for u32 did not throw";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "bits:33")) << error.what();
    EXPECT_TRUE(contains(error.what(), "u32")) << error.what();
  }
  std::vector<float> floats(4);
  EXPECT_THROW(generate_keys(floats.data(), 0, 4, 4, parse_distribution("bits:64"), 1), Error);
  std::vector<double> wide(4);
  EXPECT_NO_THROW(generate_keys(wide.data(), 0, 4, 4, parse_distribution("bits:64"), 1));
  EXPECT_THROW(validate_distribution(parse_distribution("bits:40"), KeyType::i32), Error);
  EXPECT_NO_THROW(validate_distribution(parse_distribution("bits:40"), KeyType::i64));
}

// Data sets must stay reproducible from one rmgsort version to the next: a changed value here means
// every previously generated file changed too.
TEST(GenerateKeys, UniformKeysArePinned) {
  const auto keys = generate_in_one_call<std::uint64_t>(3, parse_distribution("uniform"), 42);
  const std::vector<std::uint64_t> pinned = {0xb29ed950786f5ae3, 0x57e1faba65107204, 0xf4abd143feb24055};
  EXPECT_EQ(keys, pinned);
}

// ---------------------------------------------------------------------------------------------------
// Properties over the six key types

template <class T>
class GenerateTyped : public ::testing::Test {};
using KeyTypes =
    ::testing::Types<std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(GenerateTyped, KeyTypes);

constexpr std::uint64_t kManyKeys = 200'003;  // over a dozen parallel tasks, and odd

TYPED_TEST(GenerateTyped, SameKeysWhateverTheThreadCount) {
  using T = TypeParam;
  for (const Distribution& dist : every_distribution<T>()) {
    std::vector<T> one_thread, two_threads;
    {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
      one_thread = generate_in_one_call<T>(kManyKeys, dist, 7);
    }
    {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
      two_threads = generate_in_one_call<T>(kManyKeys, dist, 7);
    }
    EXPECT_TRUE(same_bytes(one_thread, two_threads)) << to_string(dist);
  }
}

TYPED_TEST(GenerateTyped, SameKeysWhateverTheChunking) {
  using T = TypeParam;
  for (const Distribution& dist : every_distribution<T>()) {
    const auto whole = generate_in_one_call<T>(kManyKeys, dist, 11);
    const auto chunked = generate_in_uneven_chunks<T>(kManyKeys, dist, 11);
    EXPECT_TRUE(same_bytes(whole, chunked)) << to_string(dist);
  }
}

TYPED_TEST(GenerateTyped, DifferentSeedsGiveDifferentKeys) {
  using T = TypeParam;
  for (const Distribution& dist : every_distribution<T>()) {
    const auto a = generate_in_one_call<T>(1000, dist, 1);
    const auto b = generate_in_one_call<T>(1000, dist, 2);
    EXPECT_FALSE(same_bytes(a, b)) << to_string(dist);
  }
}

TYPED_TEST(GenerateTyped, UniformCoversTheRange) {
  using T = TypeParam;
  const auto keys = generate_in_one_call<T>(kManyKeys, parse_distribution("uniform"), 3);
  if constexpr (std::is_floating_point_v<T>) {
    for (const T key : keys) ASSERT_TRUE(key >= T(-1) && key < T(1)) << key;  // NaN fails too
    const double mean = std::accumulate(keys.begin(), keys.end(), 0.0) / double(keys.size());
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_LT(*std::min_element(keys.begin(), keys.end()), T(-0.999));
    EXPECT_GT(*std::max_element(keys.begin(), keys.end()), T(0.999));
  } else {
    // The top bit is set in half of the keys: half are negative for signed types.
    using Bits = RadixBits<T>;
    const auto top_bit_set = std::count_if(keys.begin(), keys.end(),
                                           [](T key) { return (Bits(key) >> (kWidth<T> - 1)) != 0; });
    EXPECT_NEAR(double(top_bit_set) / double(keys.size()), 0.5, 0.01);
    if constexpr (std::is_signed_v<T>) {
      EXPECT_GT(std::count_if(keys.begin(), keys.end(), [](T key) { return key < 0; }), 0);
    }
    // So is the lowest bit: the low bits are random too.
    const auto low_bit_set =
        std::count_if(keys.begin(), keys.end(), [](T key) { return (Bits(key) & 1) != 0; });
    EXPECT_NEAR(double(low_bit_set) / double(keys.size()), 0.5, 0.01);
  }
}

TYPED_TEST(GenerateTyped, NormalHasTheDocumentedMeanAndDeviation) {
  using T = TypeParam;
  const auto keys = generate_in_one_call<T>(kManyKeys, parse_distribution("normal"), 5);
  double sum = 0, sum_of_squares = 0;
  for (const T key : keys) {
    sum += double(key);
    sum_of_squares += double(key) * double(key);
  }
  const double mean = sum / double(keys.size());
  const double sd = std::sqrt(sum_of_squares / double(keys.size()) - mean * mean);
  double expected_mean = 0, expected_sd = 1;
  if constexpr (std::is_integral_v<T>) {
    const double max = double(std::numeric_limits<T>::max());
    expected_mean = std::is_signed_v<T> ? 0.0 : max / 2;
    expected_sd = std::is_signed_v<T> ? max / 3 : max / 6;
  }
  EXPECT_NEAR(mean, expected_mean, 0.01 * expected_sd);
  EXPECT_NEAR(sd, expected_sd, 0.01 * expected_sd);  // clamping beyond 3 sd takes off ~0.3%
  if constexpr (sizeof(T) == 8 && std::is_integral_v<T>) {
    // The low bits of 64-bit normal keys are not stuck at zero by double rounding.
    const auto low_bit_set =
        std::count_if(keys.begin(), keys.end(), [](T key) { return (key & 1) != 0; });
    EXPECT_NEAR(double(low_bit_set) / double(keys.size()), 0.5, 0.01);
  }
}

TYPED_TEST(GenerateTyped, SortedIsNonDecreasingAcrossChunksAndStratified) {
  using T = TypeParam;
  const auto keys = generate_in_uneven_chunks<T>(kManyKeys, parse_distribution("sorted"), 13);
  for (std::size_t i = 1; i < keys.size(); ++i)
    ASSERT_LE(Ascending<T>::rank(keys[i - 1]), Ascending<T>::rank(keys[i])) << "at " << i;
  // Key i lies in the i-th of n equal slices of the uniform range, give or take one value of the
  // uniform distribution's grid (2^-23 for f32, 2^-52 for f64).
  const double n = double(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    double slice;  // position in units of keys
    double grid;   // one grid value in units of keys, plus room for this test's rounding
    if constexpr (std::is_floating_point_v<T>) {
      slice = (double(keys[i]) + 1.0) / 2.0 * n;
      grid = std::ldexp(n, -std::numeric_limits<T>::digits) + 1e-9;
    } else {
      slice = double(Ascending<T>::encode(keys[i])) / std::ldexp(1.0, kWidth<T>) * n;
      grid = std::ldexp(n, -int(kWidth<T>)) + 1e-9;
    }
    ASSERT_GE(slice, double(i) - grid) << "at " << i;
    ASSERT_LE(slice, double(i) + 1 + grid) << "at " << i;
  }
}

TYPED_TEST(GenerateTyped, SortedIsNonDecreasingForTinyDataSets) {
  using T = TypeParam;
  for (std::uint64_t n : {1, 2, 3, 5, 64}) {
    const auto keys = generate_in_uneven_chunks<T>(n, parse_distribution("sorted"), n);
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end(), KeyLess<T, SortOrder::ascending>{})) << n;
  }
}

TYPED_TEST(GenerateTyped, ReverseIsSortedBackwards) {
  using T = TypeParam;
  const auto reverse = generate_in_uneven_chunks<T>(kManyKeys, parse_distribution("reverse"), 17);
  for (std::size_t i = 1; i < reverse.size(); ++i)
    ASSERT_GE(Ascending<T>::rank(reverse[i - 1]), Ascending<T>::rank(reverse[i])) << "at " << i;
  auto sorted = generate_in_one_call<T>(kManyKeys, parse_distribution("sorted"), 17);
  std::reverse(sorted.begin(), sorted.end());
  EXPECT_TRUE(same_bytes(sorted, reverse));
}

TYPED_TEST(GenerateTyped, NearlySortedKeysStayNearTheirPlace) {
  using T = TypeParam;
  const auto nearly = generate_in_uneven_chunks<T>(kManyKeys, parse_distribution("nearly-sorted"), 19);
  const auto sorted = generate_in_one_call<T>(kManyKeys, parse_distribution("sorted"), 19);
  // Noise of sd 2 spacings: P(neighbours inverted) = P(N(1, 8) < 0) = 0.36.
  std::size_t inversions = 0;
  for (std::size_t i = 1; i < nearly.size(); ++i)
    inversions += Ascending<T>::rank(nearly[i - 1]) > Ascending<T>::rank(nearly[i]);
  EXPECT_NEAR(double(inversions) / double(nearly.size()), 0.36, 0.03);
  // |noise| > 9 sd = 18 spacings has probability 2e-19, so key i lies between sorted keys i - 20 and
  // i + 20.
  constexpr std::size_t kReach = 20;
  for (std::size_t i = kReach; i + kReach < nearly.size(); ++i) {
    ASSERT_GE(Ascending<T>::rank(nearly[i]), Ascending<T>::rank(sorted[i - kReach])) << "at " << i;
    ASSERT_LE(Ascending<T>::rank(nearly[i]), Ascending<T>::rank(sorted[i + kReach])) << "at " << i;
  }
}

TYPED_TEST(GenerateTyped, BitsLeavesTheHighBitsZero) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  for (unsigned b : {0u, 1u, 7u, kWidth<T> / 2, kWidth<T> - 1, kWidth<T>}) {
    const auto keys =
        generate_in_one_call<T>(20'000, parse_distribution("bits:" + std::to_string(b)), 23);
    Bits seen = 0;
    for (const T key : keys) seen |= std::bit_cast<Bits>(key);
    const Bits allowed = b == kWidth<T> ? Bits(~Bits{0}) : Bits((Bits{1} << b) - 1);
    EXPECT_EQ(seen, allowed) << "bits:" << b;  // no bit at or above b, every bit below b
  }
}

TYPED_TEST(GenerateTyped, ZeroRepeatsOneValueDrawnFromTheSeed) {
  using T = TypeParam;
  const auto a = generate_in_one_call<T>(kManyKeys, parse_distribution("zero"), 29);
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [&](T key) {
    return std::bit_cast<RadixBits<T>>(key) == std::bit_cast<RadixBits<T>>(a[0]);
  }));
  const auto b = generate_in_one_call<T>(10, parse_distribution("zero"), 30);
  EXPECT_NE(std::bit_cast<RadixBits<T>>(a[0]), std::bit_cast<RadixBits<T>>(b[0]));
}

TYPED_TEST(GenerateTyped, SpecialContainsTheEdgeValues) {
  using T = TypeParam;
  using Limits = std::numeric_limits<T>;
  using Bits = RadixBits<T>;
  const auto keys = generate_in_one_call<T>(20'000, parse_distribution("special"), 31);
  std::map<Bits, std::size_t> count;
  for (const T key : keys) ++count[std::bit_cast<Bits>(key)];
  const auto has = [&](T value) { return count.contains(std::bit_cast<Bits>(value)); };
  std::size_t special = 0;
  if constexpr (std::is_floating_point_v<T>) {
    constexpr Bits kSign = Ascending<T>::kSignBit;
    constexpr Bits kQuietBit = Bits{1} << (Limits::digits - 2);
    bool quiet_positive = false, quiet_negative = false, signalling_positive = false,
         signalling_negative = false;
    for (const auto& [bits, n] : count) {
      if (!std::isnan(std::bit_cast<T>(bits))) continue;
      special += n;
      const bool negative = (bits & kSign) != 0, quiet = (bits & kQuietBit) != 0;
      (quiet ? (negative ? quiet_negative : quiet_positive)
             : (negative ? signalling_negative : signalling_positive)) = true;
    }
    EXPECT_TRUE(quiet_positive && quiet_negative && signalling_positive && signalling_negative);
    const T largest_denormal = std::bit_cast<T>(Bits(std::bit_cast<Bits>(Limits::min()) - 1));
    for (const T value :
         {Limits::infinity(), -Limits::infinity(), T(0), -T(0), Limits::denorm_min(),
          -Limits::denorm_min(), largest_denormal, -largest_denormal, Limits::min(), -Limits::min(),
          Limits::lowest(), Limits::max(), Limits::epsilon(), T(1), T(-1)}) {
      EXPECT_TRUE(has(value)) << value;
      special += count[std::bit_cast<Bits>(value)];
    }
  } else {
    std::vector<T> values = {Limits::min(), T(Limits::min() + 1), T(0),
                             T(1),          T(Limits::max() - 1), Limits::max()};
    if constexpr (std::is_signed_v<T>) values.push_back(T(-1));
    for (const T value : values) {
      EXPECT_TRUE(has(value)) << +value;
      special += count[std::bit_cast<Bits>(value)];
    }
  }
  // About half the keys are special; the rest are uniform.
  EXPECT_GT(double(special) / double(keys.size()), 0.3);
  EXPECT_LT(double(special) / double(keys.size()), 0.6);
}

// P(rank 1) = 1 / sum_{r=1}^{N} r^-s: the first million terms summed, the rest by the midpoint
// integral (error below 1e-12).
double zipf_probability_of_rank_one(double s, double max_rank) {
  constexpr double kSummed = 1e6;
  double sum = 0;
  for (double r = kSummed; r >= 1; --r) sum += std::pow(r, -s);
  const double a = kSummed + 0.5, b = max_rank + 0.5;
  sum += s == 1.0 ? std::log(b / a) : (std::pow(b, 1 - s) - std::pow(a, 1 - s)) / (1 - s);
  return 1.0 / sum;
}

template <class T>
T zipf_value_of_rank(std::uint64_t rank) {  // 1 -> 0, 2 -> -1, 3 -> 1 for signed and float keys
  if constexpr (std::is_unsigned_v<T>) {
    return T(rank);
  }
  const std::int64_t m = std::int64_t(rank - 1);
  return T((m & 1) ? -(m + 1) / 2 : m / 2);
}

TYPED_TEST(GenerateTyped, ZipfMostFrequentValueIsRankOneAtTheTheoreticalRate) {
  using T = TypeParam;
  constexpr std::uint64_t kKeys = 400'000;
  const double max_rank = double(std::numeric_limits<RadixBits<T>>::max());
  for (double s : {1.0, 1.5}) {
    Distribution dist{Kind::zipf, s, 0};
    const auto keys = generate_in_one_call<T>(kKeys, dist, 37);
    std::map<T, std::size_t> count;
    for (const T key : keys) ++count[key];
    const auto most = std::max_element(count.begin(), count.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_EQ(most->first, zipf_value_of_rank<T>(1)) << "zipf:" << s;
    const double p1 = zipf_probability_of_rank_one(s, max_rank);
    EXPECT_NEAR(double(most->second) / kKeys, p1, 0.04 * p1) << "zipf:" << s;
    const double p2 = p1 * std::pow(2.0, -s);
    EXPECT_NEAR(double(count[zipf_value_of_rank<T>(2)]) / kKeys, p2, 0.06 * p2) << "zipf:" << s;
    const double p3 = p1 * std::pow(3.0, -s);
    EXPECT_NEAR(double(count[zipf_value_of_rank<T>(3)]) / kKeys, p3, 0.08 * p3) << "zipf:" << s;
  }
}

TYPED_TEST(GenerateTyped, ZipfWithLargeExponentIsAlmostAllRankOne) {
  using T = TypeParam;
  for (double s : {20.0, 1000.0}) {
    const auto keys = generate_in_one_call<T>(100'000, Distribution{Kind::zipf, s, 0}, 41);
    const auto ones = std::count(keys.begin(), keys.end(), zipf_value_of_rank<T>(1));
    EXPECT_GE(ones, 99'990) << "zipf:" << s;  // P(rank >= 2) = 2^-20 for s = 20
  }
}

TYPED_TEST(GenerateTyped, ZipfZeroIsUniformOverTheRanks) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  const auto keys = generate_in_one_call<T>(kManyKeys, Distribution{Kind::zipf, 0.0, 0}, 43);
  if constexpr (std::is_unsigned_v<T>) {
    // Uniform over [1, max]: the top and the lowest bit are each set in half of the keys (the lowest
    // bit would be stuck at 0 for 64-bit keys if large ranks were rounded doubles).
    const auto top =
        std::count_if(keys.begin(), keys.end(), [](T key) { return (key >> (kWidth<T> - 1)) != 0; });
    const auto low = std::count_if(keys.begin(), keys.end(), [](T key) { return (key & 1) != 0; });
    EXPECT_NEAR(double(top) / double(keys.size()), 0.5, 0.01);
    EXPECT_NEAR(double(low) / double(keys.size()), 0.5, 0.01);
  } else if constexpr (std::is_integral_v<T>) {
    const auto negative = std::count_if(keys.begin(), keys.end(), [](T key) { return key < 0; });
    const auto low = std::count_if(keys.begin(), keys.end(), [](T key) { return (Bits(key) & 1) != 0; });
    EXPECT_NEAR(double(negative) / double(keys.size()), 0.5, 0.01);
    EXPECT_NEAR(double(low) / double(keys.size()), 0.5, 0.01);
  } else {
    const auto negative = std::count_if(keys.begin(), keys.end(), [](T key) { return key < 0; });
    EXPECT_NEAR(double(negative) / double(keys.size()), 0.5, 0.01);
  }
}

TYPED_TEST(GenerateTyped, ZipfLowBitsOfLargeRanksAreNotStuck) {
  using T = TypeParam;
  if constexpr (std::is_integral_v<T>) {
    // zipf:1 draws most ranks far beyond 2^53, where a double cannot tell neighbouring ranks apart.
    using Bits = RadixBits<T>;
    const auto keys = generate_in_one_call<T>(kManyKeys, Distribution{Kind::zipf, 1.0, 0}, 47);
    std::vector<std::size_t> low_byte(256);
    std::size_t large = 0;
    for (const T key : keys) {
      Bits rank = Bits(key);
      if constexpr (std::is_signed_v<T>)
        rank = Bits((rank << 1) ^ Bits(key >> (kWidth<T> - 1))) + 1;  // zigzag
      if ((rank >> (kWidth<T> - 8)) == 0) continue;  // only ranks with a non-zero high byte
      ++large;
      ++low_byte[rank & 0xff];
    }
    ASSERT_GT(large, 1000u);
    const auto [least, most] = std::minmax_element(low_byte.begin(), low_byte.end());
    EXPECT_GT(double(*least), 0.5 * double(large) / 256);
    EXPECT_LT(double(*most), 1.5 * double(large) / 256);
  }
}

}  // namespace
}  // namespace rmgsort
