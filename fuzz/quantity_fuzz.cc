// Resource quantities from legacy CRs and objects ("10Gi", "500m", "1e3").
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "operator/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = op::parse_quantity(text);
  if (!q) return 0;
  (void)q->ceil_int();
  // The canonical form is a quantity again, of the same value. (Not always
  // of the same form: a binary value that is no multiple of 1024 is written
  // without suffix and reads back as decimal, as Kubernetes does it too.)
  std::string c = q->canonical();
  auto again = op::parse_quantity(c);
  if (!again || again->nano != q->nano) __builtin_trap();
  return 0;
}
