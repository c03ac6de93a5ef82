#include "output/table.h"

#include <doctest/doctest.h>

TEST_CASE("columns are aligned with three spaces and no trailing blanks") {
  output::TextTable t{{"NAME", "ID", "ROLE"}, {{"etcd-0", "8e9e05c52164694d", "leader"}, {"e-1", "1", ""}}};
  CHECK(t.str() ==
        "NAME     ID                 ROLE\n"
        "etcd-0   8e9e05c52164694d   leader\n"
        "e-1      1\n");
}

TEST_CASE("a table without rows prints its headers") {
  output::TextTable t{{"A", "B"}, {}};
  CHECK(t.str() == "A   B\n");
}

TEST_CASE("multi-byte characters count as one column") {
  output::TextTable t{{"X", "Y"}, {{"ü", "1"}, {"ab", "2"}}};
  CHECK(t.str() == "X    Y\nü    1\nab   2\n");
}
