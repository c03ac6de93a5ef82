#include "backup/s3_sink.h"

#include <algorithm>

namespace backup {

using base::ErrorKind;

S3Sink::S3Sink(std::unique_ptr<S3Client> client, std::string key, S3SinkOptions options)
    : client_(std::move(client)), key_(std::move(key)), options_(std::move(options)),
      part_size_(s3_part_size(options_.expected_size, options_.part_size)) {}

S3Sink::~S3Sink() {
  abort();
}

base::Result<std::unique_ptr<S3Sink>> S3Sink::create(const S3Location& location, const S3Credentials& credentials,
                                                    std::string key, S3SinkOptions options) {
  if (key.empty() || key.front() == '/') {
    return base::make_error(ErrorKind::Usage, "is not an object key", "S3 key \"" + key + "\"");
  }
  auto client = S3Client::create(location, credentials, options.client);
  if (!client) return std::move(client).error();
  auto& c = **client;
  if (auto s = c.check_access(key); !s) return std::move(s).error();
  auto existing = c.head(key);
  if (!existing) return std::move(existing).error();
  if (*existing && !options.owner_key.empty()) {
    const auto& meta = (*existing)->metadata;
    auto have = meta.find(options.owner_key);
    auto want = options.metadata.find(options.owner_key);
    if (have == meta.end() || want == options.metadata.end() || have->second != want->second) {
      std::string whose = have == meta.end() ? "it has no " + options.owner_key + " metadata"
                                             : "its " + options.owner_key + " is \"" + have->second + "\"";
      return base::make_error(ErrorKind::Refused, "exists and was not written for this cluster (" + whose + ")",
                             c.uri(key), "delete it or choose another key prefix");
    }
  }
  // An upload pending under the key is what an earlier run left when its
  // server went away mid-upload and the abort could not reach it. The key
  // holds this tool's artefact of one cluster (docs/rules.md#safety-backup),
  // so the leftover is aborted instead of being kept (and billed) forever.
  // Best effort: a credential that may write need not be allowed to list.
  if (auto pending = c.pending_uploads(key); pending) {
    for (const auto& id : *pending) (void)c.abort_multipart(key, id);
  }
  std::unique_ptr<S3Sink> sink(new S3Sink(std::move(*client), std::move(key), std::move(options)));
  // Over plain http a CRC would stand alone for a body nothing else protects
  // on the way, and it is not cryptographic: the signed SHA-256 stays there.
  sink->crc_ = sink->options_.checksum_crc32c && !sink->client_->signs_payload();
  sink->buffer_.reserve(sink->part_size_);
  return sink;
}

base::Status S3Sink::fail(base::Error e) {
  std::string upload = upload_id_;
  if (auto s = discard(); !s) {
    // The server went away under the upload: say what stays behind and how
    // it goes (docs/server-faults.md).
    e.causes.push_back("multipart upload " + upload + " stays pending under the key (" + s.error().message + ")");
    std::string next = "a re-run aborts it before it uploads again";
    e.hint = e.hint.empty() ? next : e.hint + "; " + next;
  }
  return e;
}

base::Status S3Sink::write(std::string_view data) {
  if (done_) return base::make_error(ErrorKind::Failed, "write after the upload ended", uri());
  bytes_ += data.size();
  while (!data.empty()) {
    std::size_t n = std::min(part_size_ - buffer_.size(), data.size());
    if (crc_) {
      part_crc_.update(data.substr(0, n));
    } else {
      part_md5_.update(data.substr(0, n));
    }
    if (client_->signs_payload()) part_sha_.update(data.substr(0, n));
    buffer_.append(data.substr(0, n));
    data.remove_prefix(n);
    if (buffer_.size() == part_size_) {
      if (auto s = flush_part(); !s) return fail(std::move(s).error());
    }
  }
  return {};
}

base::Status S3Sink::flush_part() {
  if (upload_id_.empty()) {
    auto upload = client_->create_multipart(key_, options_.metadata, crc_);
    if (!upload) return std::move(upload).error();
    upload_id_ = std::move(upload->id);
    if (crc_ && !upload->crc32c) {
      // The server does not check CRCs: this part and the next go with
      // Content-MD5 (docs/rules.md#s3-part-checksums). Only this part was
      // hashed the other way, and it is in memory whole.
      crc_ = false;
      (void)part_crc_.finish();
      part_md5_.update(buffer_);
    }
  }
  if (flights_.size() >= std::max<std::size_t>(options_.parts_in_flight, 1)) {
    if (auto s = settle_oldest(); !s) return s;
  }
  int number = static_cast<int>(part_etags_.size() + flights_.size()) + 1;
  if (static_cast<std::size_t>(number) > kS3MaxParts) {
    return base::make_error(ErrorKind::Failed, "the object needs more than 10000 parts", uri(),
                           "give the expected size so that the part size grows");
  }
  std::unique_ptr<S3Client> client;
  if (!spare_clients_.empty()) {
    client = std::move(spare_clients_.back());
    spare_clients_.pop_back();
  } else {
    auto made = client_->another();
    if (!made) return std::move(made).error();
    client = std::move(*made);
  }
  Flight& f = flights_.emplace_back();
  f.client = std::move(client);
  f.data.swap(buffer_);
  buffer_.clear();
  buffer_.reserve(part_size_);
  f.number = number;
  // A checksum header over the whole part, not an aws-chunked trailer: the
  // part is in memory whole before it is sent, so its checksum is known
  // when the headers go.
  if (crc_) {
    f.check.crc32c = part_crc_.finish();
  } else {
    f.check.md5 = part_md5_.finish();
  }
  if (client_->signs_payload()) f.check.sha256_hex = base::to_hex(part_sha_.finish());
  f.uploader = std::thread([this, &f] { f.stored = f.client->upload_part(key_, upload_id_, f.number, f.data, f.check); });
  return {};
}

base::Status S3Sink::settle_oldest() {
  if (flights_.empty()) return {};
  Flight& f = flights_.front();
  f.uploader.join();
  base::Result<S3Stored> stored = std::move(*f.stored);
  const int number = f.number;
  const S3BodyCheck check = f.check;
  spare_clients_.push_back(std::move(f.client));
  flights_.pop_front();
  if (!stored) return std::move(stored).error();
  auto differs = [&](const std::string& what, const std::string& got, const std::string& sent) {
    return base::make_error(ErrorKind::Failed,
                           "part " + std::to_string(number) + " was stored with " + what + " \"" + got +
                               "\", not the one of what was sent (" + sent + ")",
                           uri());
  };
  if (check.crc32c) {
    // The server checked the CRC sent (a wrong one is refused); an echo, if
    // any, must be it. The ETag is the server's own business on this path.
    std::string sent = crc32c_base64(*check.crc32c);
    if (!stored->crc32c.empty() && stored->crc32c != sent) return differs("CRC32C", stored->crc32c, sent);
    part_crcs_.push_back(*check.crc32c);
  } else {
    if (stored->etag != base::to_hex(*check.md5)) return differs("ETag", stored->etag, base::to_hex(*check.md5));
    part_md5s_.push_back(*check.md5);
  }
  part_etags_.push_back(std::move(stored->etag));
  return {};
}

base::Status S3Sink::settle() {
  while (!flights_.empty()) {
    if (auto s = settle_oldest(); !s) return s;
  }
  return {};
}

base::Status S3Sink::read_back(base::Md5Digest& md5_out, std::uint32_t& crc_out) {
  base::Md5 md5;
  base::Crc32c crc;
  base::Sha256 sha;
  std::uint64_t read = 0;
  auto got = client_->get(key_, [&](std::string_view chunk) {
    if (crc_) {
      crc.update(chunk);
    } else {
      md5.update(chunk);
    }
    sha.update(chunk);
    read += chunk.size();
    return true;
  });
  if (!got) return std::move(got).error();
  auto mismatch = [&](const std::string& what) {
    return base::make_error(ErrorKind::Failed, "read-back check failed: " + what, uri());
  };
  if (read != bytes_) return mismatch("read back " + std::to_string(read) + " bytes, " + std::to_string(bytes_) + " were written");
  if (!told_sha256_ || sha.finish() != *told_sha256_) return mismatch("the bytes read back have another SHA-256");
  md5_out = md5.finish();
  crc_out = crc.finish();
  return {};
}

base::Result<S3ObjectInfo> S3Sink::verify(const std::string& expected, const S3Metadata& expected_metadata) {
  auto head = client_->head(key_, crc_);
  if (!head) return std::move(head).error();
  auto mismatch = [&](const std::string& what) {
    return base::make_error(ErrorKind::Failed, "read-back check failed: " + what, uri());
  };
  if (!*head) return mismatch("the object is not there");
  const auto& info = **head;
  if (info.size != bytes_) {
    return mismatch("it holds " + std::to_string(info.size) + " bytes, " + std::to_string(bytes_) + " were written");
  }
  const std::string what = crc_ ? "CRC32C checksum" : "ETag";
  const std::string& got = crc_ ? info.crc32c : info.etag;
  if (got != expected) {
    // A copy onto itself (for the metadata) may turn a multipart ETag into
    // the MD5 of the whole object, as AWS does for some copies, or a
    // composite checksum into the whole object's; and a server that did not
    // answer a single PUT's CRC may keep none. Then the stored bytes are
    // read back: their SHA-256 must be the stream's, and what the server
    // reports (if anything, on the CRC path) their MD5 or CRC32C. (Hashing
    // the whole stream with MD5 as it goes costs more than all the other
    // hashes together, for the providers that keep the multipart ETag.)
    bool copied = !options_.sha256_metadata_key.empty() && !upload_id_.empty();
    if (!copied && !crc_) return mismatch("its ETag is \"" + info.etag + "\", expected \"" + expected + "\"");
    base::Md5Digest md5{};
    std::uint32_t crc = 0;
    if (auto s = read_back(md5, crc); !s) return std::move(s).error();
    std::string whole = crc_ ? crc32c_base64(crc) : base::to_hex(md5);
    if ((!crc_ || !got.empty()) && got != whole) {
      return mismatch("its " + what + " is \"" + got + "\", neither the one of what was sent (\"" + expected +
                      "\") nor the one of the bytes read back");
    }
  }
  for (const auto& [name, value] : expected_metadata) {
    auto it = info.metadata.find(name);
    if (it == info.metadata.end() || it->second != value) return mismatch("its metadata " + name + " differs");
  }
  return info;
}

base::Status S3Sink::commit() {
  if (done_) return base::make_error(ErrorKind::Failed, "commit after the upload ended", uri());
  if (!told_sha256_) {
    return fail(base::make_error(ErrorKind::Failed, "the writer did not tell the SHA-256 of the stream", uri()));
  }
  std::string sha_hex = base::to_hex(*told_sha256_);
  S3Metadata metadata = options_.metadata;
  if (!options_.sha256_metadata_key.empty()) metadata[options_.sha256_metadata_key] = sha_hex;

  // What the server must report for the object: its CRC32C checksum (CRC
  // path) or its ETag (docs/rules.md#s3-part-checksums).
  const std::string what = crc_ ? "CRC32C checksum" : "ETag";
  std::string expected;
  int parts = 0;
  auto differs = [&](const std::string& done, const std::string& got) {
    return base::make_error(ErrorKind::Failed,
                           done + " with " + what + " \"" + got + "\", not the one of what was sent (" + expected + ")",
                           uri());
  };
  if (upload_id_.empty()) {
    // No part was cut: the checks are of buffer_.
    S3BodyCheck check;
    if (crc_) {
      check.crc32c = part_crc_.finish();
      expected = crc32c_base64(*check.crc32c);
    } else {
      check.md5 = part_md5_.finish();
      expected = single_etag(*check.md5);
    }
    if (client_->signs_payload()) check.sha256_hex = base::to_hex(part_sha_.finish());
    auto stored = client_->put(key_, buffer_, metadata, check);
    if (!stored) return fail(std::move(stored).error());
    object_written_ = true;
    // A server that does not know CRCs answers without one (verify reads
    // the bytes back then); one that does echoes the CRC it checked.
    const std::string& got = crc_ ? stored->crc32c : stored->etag;
    if ((!crc_ || !got.empty()) && got != expected) return fail(differs("stored", got));
  } else {
    if (!buffer_.empty()) {
      if (auto s = flush_part(); !s) return fail(std::move(s).error());
    }
    if (auto s = settle(); !s) return fail(std::move(s).error());
    parts = static_cast<int>(part_etags_.size());
    std::vector<std::string> part_crc32c;
    if (crc_) {
      for (std::uint32_t c : part_crcs_) part_crc32c.push_back(crc32c_base64(c));
      expected = composite_crc32c(part_crcs_);
    } else {
      expected = multipart_etag(part_md5s_);
    }
    auto done = client_->complete_multipart(key_, upload_id_, part_etags_, part_crc32c);
    if (!done) return fail(std::move(done).error());
    object_written_ = true;
    const std::string& got = crc_ ? done->crc32c : done->etag;
    if (!got.empty() && got != expected) return fail(differs("completed", got));
    if (metadata != options_.metadata) {
      if (auto s = client_->replace_metadata(key_, metadata); !s) return fail(std::move(s).error());
    }
  }
  auto info = verify(expected, metadata);
  if (!info) return fail(std::move(info).error());
  result_.uri = uri();
  result_.bytes = bytes_;
  result_.etag = info->etag;
  if (crc_) result_.crc32c = info->crc32c;
  result_.parts = parts;
  result_.sha256 = sha_hex;
  done_ = true;
  std::string().swap(buffer_);
  spare_clients_.clear();
  return {};
}

void S3Sink::abort() noexcept {
  // The caller has its own error to tell; fail() reports a cleanup that failed.
  (void)discard();
}

base::Status S3Sink::discard() noexcept {
  // The parts in flight end first: the upload they belong to is aborted below.
  for (auto& f : flights_) {
    if (f.uploader.joinable()) f.uploader.join();
  }
  flights_.clear();
  if (done_) return {};
  done_ = true;
  base::Status cleaned;
  if (object_written_) {
    // A written object failed its read-back check: only the upload's error matters.
    (void)client_->remove(key_);
  } else if (!upload_id_.empty()) {
    cleaned = client_->abort_multipart(key_, upload_id_);
  }
  std::string().swap(buffer_);
  spare_clients_.clear();
  return cleaned;
}

}  // namespace backup
