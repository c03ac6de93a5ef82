#include "etcd/bolt.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

namespace etcd {

namespace {

// bbolt's on-disk layout (little-endian, as etcd writes it on amd64/arm64):
// a page is a 16-byte header (id u64, flags u16, count u16, overflow u32)
// and its elements; pages 0 and 1 hold the two metas, the newer valid one
// names the root bucket's page.
constexpr std::size_t kPageHeader = 16;
constexpr std::size_t kElement = 16;  // leaf: flags, pos, ksize, vsize; branch: pos, ksize, pgid
constexpr std::uint16_t kBranchPage = 0x01, kLeafPage = 0x02, kMetaPage = 0x04;
constexpr std::uint32_t kBucketLeaf = 0x01;
constexpr std::uint32_t kMagic = 0xED0CDAED;
constexpr std::uint32_t kVersion = 2;
constexpr int kMaxDepth = 32;  // a corrupt file must not loop

template <typename T>
T le(std::string_view b, std::size_t at) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

std::uint64_t fnv64a(std::string_view b) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : b) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

class Db {
 public:
  Db(int fd, std::uint64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}

  base::Error corrupt(const std::string& what) const {
    return base::make_error(base::ErrorKind::Failed, "not a bbolt db etcd wrote: " + what, "file " + path_);
  }

  base::Result<std::string> read(std::uint64_t at, std::uint64_t n) const {
    if (at > size_ || n > size_ - at) return corrupt("a page lies past the end of the db");
    std::string out(n, '\0');
    std::size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, out.data() + done, n - done, static_cast<off_t>(at + done));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return base::make_error(base::ErrorKind::Failed, std::string("read failed: ") + std::strerror(errno), "file " + path_);
      if (r == 0) return corrupt("the file ends inside a page");
      done += static_cast<std::size_t>(r);
    }
    return out;
  }

  // The root bucket's page from the newer of the two valid metas.
  base::Result<std::uint64_t> open() {
    auto first = read(0, kPageHeader + 64);
    if (!first) return std::move(first).error();
    page_size_ = le<std::uint32_t>(*first, kPageHeader + 8);
    if (page_size_ < 512 || page_size_ > (1u << 20) || (page_size_ & (page_size_ - 1)) != 0) {
      return corrupt("page size " + std::to_string(page_size_));
    }
    std::optional<std::uint64_t> root;
    std::uint64_t best_txid = 0;
    for (std::uint64_t id = 0; id < 2; ++id) {
      auto p = read(id * page_size_, kPageHeader + 64);
      if (!p) return std::move(p).error();
      std::string_view m = std::string_view(*p).substr(kPageHeader);
      if ((le<std::uint16_t>(*p, 8) & kMetaPage) == 0 || le<std::uint32_t>(m, 0) != kMagic ||
          le<std::uint32_t>(m, 4) != kVersion || le<std::uint64_t>(m, 56) != fnv64a(m.substr(0, 56))) {
        continue;
      }
      std::uint64_t txid = le<std::uint64_t>(m, 48);
      if (!root || txid > best_txid) {
        root = le<std::uint64_t>(m, 16);
        best_txid = txid;
      }
    }
    if (!root) return corrupt("no valid meta page");
    return *root;
  }

  base::Result<std::string> page(std::uint64_t id) const {
    auto head = read(id * page_size_, kPageHeader);
    if (!head) return std::move(head).error();
    std::uint64_t overflow = le<std::uint32_t>(*head, 12);
    return read(id * page_size_, (overflow + 1) * page_size_);
  }

  // The value of `key` in the tree whose root is `page` (an inline bucket's
  // page is passed as bytes); `bucket` receives whether it is a sub-bucket.
  base::Result<std::optional<std::string>> find(std::string node, std::string_view key, bool& bucket) const {
    for (int depth = 0; depth < kMaxDepth; ++depth) {
      const std::uint16_t flags = le<std::uint16_t>(node, 8);
      const std::uint16_t count = le<std::uint16_t>(node, 10);
      if (kPageHeader + std::size_t{count} * kElement > node.size()) return corrupt("a page's elements overflow it");
      auto element_key = [&](std::size_t i, std::size_t pos_at, std::size_t ksize_at) -> base::Result<std::string_view> {
        const std::size_t e = kPageHeader + i * kElement;
        const std::size_t pos = le<std::uint32_t>(node, e + pos_at), ksize = le<std::uint32_t>(node, e + ksize_at);
        if (e + pos > node.size() || ksize > node.size() - e - pos) return corrupt("a key lies outside its page");
        return std::string_view(node).substr(e + pos, ksize);
      };
      if (flags & kLeafPage) {
        for (std::size_t i = 0; i < count; ++i) {
          auto k = element_key(i, 4, 8);
          if (!k) return std::move(k).error();
          if (*k != key) continue;
          const std::size_t e = kPageHeader + i * kElement;
          const std::size_t vat = e + le<std::uint32_t>(node, e + 4) + k->size(), vsize = le<std::uint32_t>(node, e + 12);
          if (vat > node.size() || vsize > node.size() - vat) return corrupt("a value lies outside its page");
          bucket = (le<std::uint32_t>(node, e) & kBucketLeaf) != 0;
          return std::optional<std::string>(node.substr(vat, vsize));
        }
        return std::optional<std::string>();
      }
      if ((flags & kBranchPage) == 0 || count == 0) return corrupt("page flags " + std::to_string(flags));
      // The last child whose first key is not after `key`.
      std::size_t child = 0;
      for (std::size_t i = 0; i < count; ++i) {
        auto k = element_key(i, 0, 4);
        if (!k) return std::move(k).error();
        if (*k > key) break;
        child = i;
      }
      auto next = page(le<std::uint64_t>(node, kPageHeader + child * kElement + 8));
      if (!next) return std::move(next).error();
      node = std::move(*next);
    }
    return corrupt("the tree is deeper than " + std::to_string(kMaxDepth));
  }

  base::Result<std::optional<std::string>> lookup(std::uint64_t root, const std::string& bucket_name,
                                                  const std::string& key) const {
    auto top = page(root);
    if (!top) return std::move(top).error();
    bool is_bucket = false;
    auto b = find(std::move(*top), bucket_name, is_bucket);
    if (!b) return std::move(b).error();
    if (!*b || !is_bucket) return std::optional<std::string>();
    // A bucket value: its root page id and sequence; root 0 means the
    // bucket's page follows inline.
    if ((*b)->size() < 16) return corrupt("bucket \"" + bucket_name + "\" has a short header");
    const std::uint64_t broot = le<std::uint64_t>(**b, 0);
    std::string node;
    if (broot == 0) {
      if ((*b)->size() < 16 + kPageHeader) return corrupt("bucket \"" + bucket_name + "\" has a short inline page");
      node = (*b)->substr(16);
    } else {
      auto p = page(broot);
      if (!p) return std::move(p).error();
      node = std::move(*p);
    }
    bool sub = false;
    auto v = find(std::move(node), key, sub);
    if (!v) return std::move(v).error();
    if (*v && sub) return std::optional<std::string>();
    return v;
  }

 private:
  int fd_;
  std::uint64_t size_;
  std::string path_;
  std::uint64_t page_size_ = 4096;
};

}  // namespace

base::Result<std::optional<std::string>> bolt_value(const std::string& path, std::uint64_t db_size,
                                                    const std::string& bucket, const std::string& key) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return base::make_error(base::ErrorKind::Failed, std::string("cannot open: ") + std::strerror(errno), "file " + path);
  }
  Db db(fd, db_size, path);
  auto root = db.open();
  base::Result<std::optional<std::string>> out = root ? db.lookup(*root, bucket, key)
                                                      : base::Result<std::optional<std::string>>(std::move(root).error());
  ::close(fd);
  return out;
}

base::Result<bool> snapshot_auth_enabled(const std::string& path, std::uint64_t db_size) {
  auto v = bolt_value(path, db_size, "auth", "authEnabled");
  if (!v) return std::move(v).error();
  return v->has_value() && **v == std::string(1, '\1');
}

}  // namespace etcd
