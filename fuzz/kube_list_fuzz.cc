// apiserver List answers, as pages: the input is split at NUL bytes into the
// bodies of consecutive pages, each parsed and added as Client::list_all does.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/list_page.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  kube::RequestContext ctx{"list", kube::resources::pods, "ns", "", ""};
  nlohmann::json all;
  while (true) {
    auto cut = in.find('\0');
    auto body = kube::parse_answer(in.substr(0, cut), ctx);
    if (!body) return 0;
    auto next = kube::add_list_page(all, std::move(*body), ctx);
    if (!next) return 0;
    if (next->empty() || cut == std::string_view::npos) break;
    in.remove_prefix(cut + 1);
  }
  kube::end_list(all);
  (void)all.dump();
  return 0;
}
