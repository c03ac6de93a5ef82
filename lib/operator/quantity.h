// Kubernetes resource quantities ("10Gi", "500m", "1e3"): parsed exactly and
// written in the canonical form the API server returns, so the objects the
// suite writes compare equal to what it reads back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace op {

// 128 bits hold an exabyte in nano units exactly; __extension__ keeps
// -Wpedantic quiet about the GNU type.
__extension__ typedef __int128 int128;

struct Quantity {
  enum class Format { DecimalSI, BinarySI, DecimalExponent };
  int128 nano = 0;  // the value in units of 1e-9, rounded up as Kubernetes does
  Format format = Format::DecimalSI;

  // The canonical string ("1024Mi" -> "1Gi", "0.5" -> "500m").
  std::string canonical() const;
  // The value rounded up to a whole number (bytes for storage).
  int64_t ceil_int() const;
};

std::optional<Quantity> parse_quantity(std::string_view text);
// Canonical form of `text`, or nullopt when it is not a quantity.
std::optional<std::string> canonical_quantity(std::string_view text);

}  // namespace op
