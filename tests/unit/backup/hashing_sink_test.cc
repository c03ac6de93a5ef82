#include "backup/hashing_sink.h"

#include <doctest/doctest.h>

#include <string>

namespace {

class Recording final : public backup::Sink {
 public:
  std::string data;
  bool committed = false;
  bool aborted = false;
  cli::Status write(std::string_view d) override {
    data.append(d);
    return {};
  }
  cli::Status commit() override {
    committed = true;
    return {};
  }
  void abort() noexcept override { aborted = true; }
};

}  // namespace

TEST_CASE("sha256 of the empty string and of abc are the known vectors") {
  CHECK(backup::to_hex(backup::sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(backup::to_hex(backup::sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("the hashing sink hashes while passing bytes on") {
  Recording next;
  backup::HashingSink h(&next);
  REQUIRE(h.write("a").ok());
  REQUIRE(h.write("bc").ok());
  REQUIRE(h.commit().ok());
  CHECK(next.data == "abc");
  CHECK(next.committed);
  CHECK(h.bytes() == 3);
  CHECK(h.hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("the hashing sink works alone and forwards abort") {
  backup::HashingSink alone;
  REQUIRE(alone.write("abc").ok());
  REQUIRE(alone.commit().ok());
  CHECK(alone.hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

  Recording next;
  backup::HashingSink h(&next);
  REQUIRE(h.write("x").ok());
  h.abort();
  CHECK(next.aborted);
}

TEST_CASE("peek gives the digest so far and the stream goes on") {
  backup::Sha256 h;
  h.update("ab");
  auto prefix = h.peek();
  h.update("c");
  CHECK(prefix == backup::sha256("ab"));
  CHECK(h.finish() == backup::sha256("abc"));
}
