#include "runtime/search/rng.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/splitmix.h"

namespace runner::search {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLogSqrt2Pi = 0.91893853320467274178;

uint64_t mix(uint64_t x) { return splitmix64_mix(x); }

// FNV-1a rather than std::hash, whose values differ between standard libraries.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// log Phi(z); erfc underflows below z ~ -37, where the asymptotic series takes over.
double log_ndtr(double z) {
  if (z > -20) return std::log(0.5 * std::erfc(-z / std::sqrt(2.0)));
  double z2 = z * z;
  return -0.5 * z2 - std::log(-z) - kLogSqrt2Pi + std::log1p(-1 / z2 + 3 / (z2 * z2));
}

}  // namespace

Rng make_rng(uint64_t seed, int trial_number, const std::string& name) {
  uint64_t h = mix(seed);
  h = mix(h ^ static_cast<uint64_t>(static_cast<int64_t>(trial_number)));
  h = mix(h ^ fnv1a(name));
  return Rng(h);
}

double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int64_t uniform_index(Rng& rng, int64_t n) {
  if (n <= 1) return 0;
  uint64_t un = static_cast<uint64_t>(n);
  uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % un;
  uint64_t x;
  do x = rng();
  while (x >= limit);
  return static_cast<int64_t>(x % un);
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normal_ppf(double p) {
  if (p <= 0) return -kInf;
  if (p >= 1) return kInf;
  // Acklam's rational approximation (relative error 1.2e-9), then one Halley step to full precision.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double plow = 0.02425;
  double x;
  if (p < plow || p > 1 - plow) {
    double q = std::sqrt(-2 * std::log(p < plow ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > plow) x = -x;
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = normal_cdf(x) - p;
  double u = e * std::sqrt(2 * M_PI) * std::exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

double log_normal_interval(double za, double zb) {
  if (!(za < zb)) return -kInf;
  if (za > 0) {  // both in the upper tail: mirror, where Phi is tiny and exact instead of 1 - tiny
    double t = za;
    za = -zb;
    zb = -t;
  }
  double la = log_ndtr(za), lb = log_ndtr(zb);
  if (la == -kInf) return lb;
  return lb + std::log1p(-std::exp(la - lb));
}

double truncated_normal(Rng& rng, double mu, double sigma, double low, double high) {
  if (!(low < high)) return low;
  double za = (low - mu) / sigma, zb = (high - mu) / sigma;
  bool mirror = za > 0;  // keep the interval where Phi has full relative precision
  if (mirror) {
    double t = za;
    za = -zb;
    zb = -t;
  }
  double pa = normal_cdf(za), pb = normal_cdf(zb);
  double z;
  if (pb - pa > 0) {
    z = normal_ppf(pa + uniform01(rng) * (pb - pa));
  } else {
    z = (za + zb) / 2;  // both bounds beyond double's reach of Phi: the interval is all there is
    uniform01(rng);
  }
  if (mirror) z = -z;
  return std::clamp(mu + sigma * z, low, high);
}

}  // namespace runner::search
