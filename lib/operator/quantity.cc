#include "operator/quantity.h"

#include <array>
#include <cctype>

namespace op {
namespace {

constexpr int128 kNano = 1000000000;

int128 pow_int(int128 base, int exp) {
  int128 r = 1;
  for (int i = 0; i < exp; ++i) r *= base;
  return r;
}

constexpr int128 kMax = ((static_cast<int128>(1) << 126) - 1) * 2 + 1;
// The largest magnitude held, in nano units (1.7e20 whole units: 170 EB):
// every quantity up to it has a canonical form that parses back to it, with
// room for the nano scaling. Beyond it a quantity is refused rather than
// wrapped around ("982233720368547703Ti" overflowed 128 bits, and
// "9223372036854775800.0007" had a canonical form the parser refused: both
// found by fuzz/quantity_fuzz.cc).
constexpr int128 kLimit = kMax / kNano - 1;

// a * b for a >= 0 and b > 0, or nullopt past kLimit (whole * kNano + a
// fraction cannot overflow: whole <= kLimit).
std::optional<int128> times(int128 a, int128 b) {
  if (a > kLimit / b) return std::nullopt;
  return a * b;
}

// Divides rounding away from zero: Kubernetes rounds a quantity's excess
// precision up, never down.
int128 div_up(int128 a, int128 b) {
  int128 q = a / b;
  if (a % b != 0) q += (a > 0) ? 1 : -1;
  return q;
}

std::string to_string(int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  if (neg) v = -v;
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

const char* decimal_suffix(int exp) {
  switch (exp) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    case 18: return "E";
  }
  return "";
}

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    neg = text[i] == '-';
    ++i;
  }
  int128 whole = 0;
  int128 frac = 0;  // in nano
  int frac_digits = 0;
  bool frac_excess = false;
  bool any_digit = false;
  bool seen_dot = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (seen_dot) return std::nullopt;
      seen_dot = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    any_digit = true;
    if (!seen_dot) {
      if (whole > (kLimit - (c - '0')) / 10) return std::nullopt;
      whole = whole * 10 + (c - '0');
    } else if (frac_digits < 9) {
      frac += (c - '0') * pow_int(10, 8 - frac_digits);
      ++frac_digits;
    } else if (c != '0') {
      frac_excess = true;
    }
  }
  if (!any_digit) return std::nullopt;
  std::string_view suffix = text.substr(i);

  Quantity q;
  int128 nano = whole * kNano + frac + (frac_excess ? 1 : 0);
  static const std::array<std::string_view, 6> binary = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  bool done = false;
  for (size_t k = 0; k < binary.size(); ++k) {
    if (suffix == binary[k]) {
      auto scaled = times(nano, pow_int(1024, static_cast<int>(k) + 1));
      if (!scaled) return std::nullopt;
      nano = *scaled;
      q.format = Quantity::Format::BinarySI;
      done = true;
    }
  }
  if (!done) {
    int exp = 0;
    if (suffix.empty()) {
      exp = 0;
    } else if (suffix.size() == 1 && std::string_view("numkMGTPE").find(suffix[0]) != std::string_view::npos) {
      static const std::string_view letters = "numkMGTPE";
      static const int exps[] = {-9, -6, -3, 3, 6, 9, 12, 15, 18};
      exp = exps[letters.find(suffix[0])];
    } else if (suffix[0] == 'e' || suffix[0] == 'E') {
      std::string_view digits = suffix.substr(1);
      bool eneg = false;
      if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
        eneg = digits[0] == '-';
        digits.remove_prefix(1);
      }
      if (digits.empty() || digits.size() > 3) return std::nullopt;
      for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        exp = exp * 10 + (c - '0');
      }
      if (eneg) exp = -exp;
      if (exp > 18 || exp < -18) return std::nullopt;
      q.format = Quantity::Format::DecimalExponent;
    } else {
      return std::nullopt;
    }
    if (exp >= 0) {
      auto scaled = times(nano, pow_int(10, exp));
      if (!scaled) return std::nullopt;
      nano = *scaled;
    } else {
      nano = div_up(nano, pow_int(10, -exp));
    }
  }
  if (nano > kLimit) return std::nullopt;
  q.nano = neg ? -nano : nano;
  return q;
}

std::string Quantity::canonical() const {
  Format f = format;
  bool integral = nano % kNano == 0;
  int128 whole = nano / kNano;
  if (f == Format::BinarySI && (!integral || (whole > -1024 && whole < 1024))) f = Format::DecimalSI;
  if (nano == 0) return "0";
  if (f == Format::BinarySI) {
    static const char* suffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int k = 0;
    int128 v = whole;
    while (k < 6 && v % 1024 == 0) {
      v /= 1024;
      ++k;
    }
    return to_string(v) + suffixes[k];
  }
  // Largest exponent (a multiple of 3) that keeps the mantissa whole.
  int exp = -9;
  int128 mantissa = nano;
  while (exp < 18 && mantissa % 1000 == 0) {
    mantissa /= 1000;
    exp += 3;
  }
  if (f == Format::DecimalExponent) {
    return to_string(mantissa) + (exp == 0 ? "" : "e" + std::to_string(exp));
  }
  return to_string(mantissa) + decimal_suffix(exp);
}

int64_t Quantity::ceil_int() const {
  int128 v = div_up(nano, kNano);
  if (nano > 0 && nano % kNano == 0) v = nano / kNano;
  return static_cast<int64_t>(v);
}

std::optional<std::string> canonical_quantity(std::string_view text) {
  auto q = parse_quantity(text);
  if (!q) return std::nullopt;
  return q->canonical();
}

}  // namespace op
