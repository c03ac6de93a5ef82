#include "base/sha256.h"

#include <doctest/doctest.h>

TEST_CASE("sha256 of the empty string and of abc are the known vectors") {
  CHECK(base::to_hex(base::sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(base::to_hex(base::sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("a stream hashed in pieces has the digest of the whole") {
  base::Sha256 h;
  h.update("a");
  h.update("");
  h.update("bc");
  CHECK(h.finish() == base::sha256("abc"));
  // finish() starts over empty.
  CHECK(h.finish() == base::sha256(""));
}

TEST_CASE("peek gives the digest so far and the stream goes on") {
  base::Sha256 h;
  h.update("ab");
  auto prefix = h.peek();
  h.update("c");
  CHECK(prefix == base::sha256("ab"));
  CHECK(h.finish() == base::sha256("abc"));
}
