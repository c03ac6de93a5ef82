#include "cli/version_cmd.h"

#include <doctest/doctest.h>

#include "cli/version.h"

TEST_CASE("the version comes from meson's project version") {
  CHECK(std::string(cli::kVersion) == std::string(cli::kVersion).c_str());
  CHECK_FALSE(std::string(cli::kVersion).empty());
  CHECK(std::string(cli::kProjectName) == "etcd-operator-cli");
}

TEST_CASE("version renders one line as table and the same facts as json") {
  auto doc = cli::version_document("kubectl-etcd");
  CHECK(output::render(doc, cli::version_view(), output::Format::Table) ==
        std::string("kubectl-etcd version ") + cli::kVersion + "\n");
  auto back = nlohmann::json::parse(output::render(doc, cli::version_view(), output::Format::Json));
  CHECK(back["program"] == "kubectl-etcd");
  CHECK(back["version"] == cli::kVersion);
}
