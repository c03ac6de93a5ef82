#include "etcd/bolt.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../support.h"

namespace {

// bbolt pages built by hand, in the layout etcd writes (little-endian).
constexpr std::uint32_t kPage = 4096;

void put(std::string& b, std::size_t at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string header(std::uint64_t id, std::uint16_t flags, std::uint16_t count, std::size_t size) {
  std::string p(size, '\0');
  put(p, 0, id, 8);
  put(p, 8, flags, 2);
  put(p, 10, count, 2);
  return p;
}

std::uint64_t fnv64a(const std::string& b) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : b) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string meta(std::uint64_t id, std::uint64_t root, std::uint64_t txid) {
  std::string p = header(id, 0x04, 0, kPage);
  std::string m(64, '\0');
  put(m, 0, 0xED0CDAED, 4);
  put(m, 4, 2, 4);
  put(m, 8, kPage, 4);
  put(m, 16, root, 8);
  put(m, 32, 1, 8);
  put(m, 40, 64, 8);
  put(m, 48, txid, 8);
  put(m, 56, fnv64a(m.substr(0, 56)), 8);
  p.replace(16, 64, m);
  return p;
}

struct Leaf {
  std::string key, value;
  bool bucket = false;
};

// A leaf page: elements first, then each key and value.
std::string leaf(std::uint64_t id, const std::vector<Leaf>& items, std::size_t size = kPage) {
  std::string p = header(id, 0x02, static_cast<std::uint16_t>(items.size()), size);
  std::size_t data = 16 + 16 * items.size();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::size_t e = 16 + 16 * i;
    put(p, e, items[i].bucket ? 1 : 0, 4);
    put(p, e + 4, data - e, 4);
    put(p, e + 8, items[i].key.size(), 4);
    put(p, e + 12, items[i].value.size(), 4);
    p.replace(data, items[i].key.size() + items[i].value.size(), items[i].key + items[i].value);
    data += items[i].key.size() + items[i].value.size();
  }
  return p;
}

std::string branch(std::uint64_t id, const std::vector<std::pair<std::string, std::uint64_t>>& children) {
  std::string p = header(id, 0x01, static_cast<std::uint16_t>(children.size()), kPage);
  std::size_t data = 16 + 16 * children.size();
  for (std::size_t i = 0; i < children.size(); ++i) {
    const std::size_t e = 16 + 16 * i;
    put(p, e, data - e, 4);
    put(p, e + 4, children[i].first.size(), 4);
    put(p, e + 8, children[i].second, 8);
    p.replace(data, children[i].first.size(), children[i].first);
    data += children[i].first.size();
  }
  return p;
}

// A bucket's value: its root page, or 0 and the page inline.
std::string bucket_at(std::uint64_t root) {
  std::string v(16, '\0');
  put(v, 0, root, 8);
  return v;
}
std::string inline_bucket(const std::vector<Leaf>& items) {
  std::string page = leaf(0, items);
  std::size_t used = 16 + 16 * items.size();
  for (const auto& i : items) used += i.key.size() + i.value.size();
  return bucket_at(0) + page.substr(0, used);
}

Leaf auth_bucket(char enabled) {
  return {"auth", inline_bucket({{"authEnabled", std::string(1, enabled)}, {"authRevision", std::string(8, '\0')}}), true};
}

// The db: the pages in order (each at id * 4096), then a 32-byte trailer.
std::string db(const std::vector<std::string>& pages) {
  std::string out;
  for (const auto& p : pages) out += p;
  return out + std::string(32, 'T');
}

base::Result<bool> auth_of(const std::string& bytes) {
  unit_test::TempDir dir;
  auto path = dir.write("snap.db", bytes);
  return etcd::snapshot_auth_enabled(path, bytes.size() - 32);
}

}  // namespace

TEST_CASE("bolt: etcd's auth bucket read from the newer meta's root, inline or on its own page") {
  auto on = db({meta(0, 2, 5), meta(1, 2, 4),
                leaf(2, {{"alarm", inline_bucket({}), true}, auth_bucket('\1'), {"key", bucket_at(3), true}}),
                leaf(3, {{"k1", "v1"}, {"k2", "v2"}})});
  auto r = auth_of(on);
  REQUIRE_MESSAGE(r.ok(), r.error().one_line());
  CHECK(*r);

  auto off = db({meta(0, 2, 5), meta(1, 2, 4), leaf(2, {auth_bucket('\0'), {"key", bucket_at(3), true}}),
                 leaf(3, {{"k1", "v1"}})});
  REQUIRE(auth_of(off).ok());
  CHECK_FALSE(*auth_of(off));

  // No auth bucket at all (an etcd that never touched auth): off.
  auto none = db({meta(0, 2, 5), meta(1, 2, 4), leaf(2, {{"key", bucket_at(3), true}}), leaf(3, {})});
  REQUIRE(auth_of(none).ok());
  CHECK_FALSE(*auth_of(none));

  // A value in a bucket on its own page.
  unit_test::TempDir dir;
  auto path = dir.write("snap.db", on);
  auto v = etcd::bolt_value(path, on.size() - 32, "key", "k2");
  REQUIRE(v.ok());
  REQUIRE(v->has_value());
  CHECK(**v == "v2");
  auto missing = etcd::bolt_value(path, on.size() - 32, "key", "k3");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
}

TEST_CASE("bolt: the meta with the higher txid wins; one with a bad checksum is skipped") {
  // Meta 1 (txid 6) points at page 3, where auth is off; meta 0 (txid 5) at page 2, on.
  auto pages = std::vector<std::string>{meta(0, 2, 5), meta(1, 3, 6), leaf(2, {auth_bucket('\1')}),
                                        leaf(3, {auth_bucket('\0')})};
  REQUIRE(auth_of(db(pages)).ok());
  CHECK_FALSE(*auth_of(db(pages)));
  pages[1][16 + 56] ^= 0x55;  // meta 1's checksum
  REQUIRE(auth_of(db(pages)).ok());
  CHECK(*auth_of(db(pages)));
}

TEST_CASE("bolt: a branch root is searched by its children's first keys") {
  auto bytes = db({meta(0, 2, 5), meta(1, 2, 4), branch(2, {{"alarm", 3}, {"key", 4}}),
                   leaf(3, {{"alarm", inline_bucket({}), true}, auth_bucket('\1'), {"cluster", inline_bucket({}), true}}),
                   leaf(4, {{"key", inline_bucket({}), true}, {"lease", inline_bucket({}), true}})});
  auto r = auth_of(bytes);
  REQUIRE_MESSAGE(r.ok(), r.error().one_line());
  CHECK(*r);
}

TEST_CASE("bolt: a file that is not a bbolt db, or is cut short, is an error naming the file") {
  auto r = auth_of(std::string(8192, 'x') + std::string(32, 'T'));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("not a bbolt db") != std::string::npos);
  CHECK(r.error().object.find("snap.db") != std::string::npos);

  auto cut = db({meta(0, 7, 5), meta(1, 7, 4)});  // the root page lies past the end
  auto c = auth_of(cut);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("past the end") != std::string::npos);
}
