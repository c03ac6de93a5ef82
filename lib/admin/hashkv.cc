#include "admin/hashkv.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "etcd/errors.h"
#include "etcd/fanout.h"
#include "etcd/member_id.h"

namespace admin {

namespace {

using ojson = nlohmann::ordered_json;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

const char* verdict_name(HashVerdict v) {
  switch (v) {
    case HashVerdict::Consistent: return "consistent";
    case HashVerdict::Inconsistent: return "inconsistent";
    case HashVerdict::Incomplete: return "incomplete";
  }
  return "incomplete";
}

std::optional<std::int64_t> shared_revision(const std::vector<std::int64_t>& current, std::int64_t compacted) {
  if (current.empty()) return std::nullopt;
  const std::int64_t lowest = *std::min_element(current.begin(), current.end());
  // HashKV at or below the compact revision answers "compacted"; 0 would
  // mean "the member's own latest" and break the one shared revision.
  if (lowest <= compacted || lowest <= 0) return std::nullopt;
  return lowest;
}

HashComparison compare_hashes(std::vector<MemberHash>& members) {
  HashComparison out;
  std::map<std::int64_t, std::map<std::uint32_t, std::vector<MemberHash*>>> by_compact;
  std::vector<std::string> missing;
  for (auto& m : members) {
    if (m.learner) {
      m.state = "skipped";
    } else if (!m.hash) {
      m.state = "error";
      missing.push_back(m.name);
    } else {
      by_compact[m.compact_revision][*m.hash].push_back(&m);
    }
  }
  out.compaction_moved = by_compact.size() > 1;
  std::size_t answered = 0;
  for (auto& by_hash : by_compact) {
    auto& groups = by_hash.second;
    std::size_t best = 0, ties = 0;
    for (const auto& group : groups) best = std::max(best, group.second.size());
    for (const auto& group : groups) ties += group.second.size() == best ? 1 : 0;
    for (auto& group : groups) {
      answered += group.second.size();
      // With no larger group to side with (two members, or an even split),
      // every member of the split is named.
      const bool odd = groups.size() > 1 && (group.second.size() < best || ties > 1);
      for (auto* m : group.second) {
        m->state = odd ? "differs" : "agrees";
        if (odd) out.differing.push_back(m->name);
      }
    }
  }
  std::sort(out.differing.begin(), out.differing.end());
  if (!out.differing.empty()) {
    out.verdict = HashVerdict::Inconsistent;
    out.message = "members disagree: " + join(out.differing) + " differ from the others";
  } else if (answered == 0) {
    out.verdict = HashVerdict::Incomplete;
    out.message = "no member answered HashKV";
  } else if (out.compaction_moved) {
    out.verdict = HashVerdict::Incomplete;
    out.message = "members answered at different compact revisions (a compaction was being applied); run again";
  } else if (!missing.empty()) {
    out.verdict = HashVerdict::Incomplete;
    out.message = std::to_string(answered) + " members agree; no hash from " + join(missing);
  } else {
    out.verdict = HashVerdict::Consistent;
    out.message = std::to_string(answered) + (answered == 1 ? " member" : " members agree");
  }
  return out;
}

base::Result<HashKVReport> compare_hash_kv(const Target& t, etcd::Client& c) {
  HashKVReport rep;
  std::int64_t compacted = 0;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    rep.attempts = attempt;
    std::vector<MemberHash> ms;
    std::vector<std::string> eps;
    std::vector<std::size_t> at;
    for (const auto& m : t.members) {
      MemberHash h;
      h.name = m.name.empty() ? m.endpoint : m.name;
      h.endpoint = m.endpoint;
      h.id = m.id;
      if (m.endpoint.empty()) {
        h.error = m.problem.empty() ? "no endpoint" : m.problem;
      } else {
        at.push_back(ms.size());
        eps.push_back(m.endpoint);
      }
      ms.push_back(std::move(h));
    }
    if (eps.empty()) return base::make_error(base::ErrorKind::CannotConnect, "no member can be dialled");
    auto statuses = c.status_all(eps, std::chrono::system_clock::now() + t.config.call_timeout);
    std::vector<std::int64_t> current;
    std::vector<std::string> ask;
    std::vector<std::size_t> ask_at;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      auto& m = ms[at[i]];
      if (!statuses[i].result) {
        m.error = statuses[i].result.error().one_line();
        continue;
      }
      const auto& st = *statuses[i].result;
      m.id = st.header.member_id;
      m.learner = st.is_learner;
      m.revision = st.header.revision;
      if (m.learner) continue;
      current.push_back(m.revision);
      ask.push_back(m.endpoint);
      ask_at.push_back(at[i]);
    }
    if (current.empty()) {
      return base::make_error(base::ErrorKind::CannotConnect, "no voting member answered its Status", {},
                             "check the members with `kubectl etcd health`");
    }
    auto rev = shared_revision(current, compacted);
    if (!rev) {
      if (attempt == 1) continue;
      rep.members = std::move(ms);
      rep.comparison = compare_hashes(rep.members);
      rep.comparison.verdict = HashVerdict::Incomplete;
      rep.comparison.message = "no revision all members hold above the compact revision " + std::to_string(compacted);
      return rep;
    }
    rep.revision = *rev;
    auto hashes = etcd::fan_out<etcd::HashKVInfo>(
        ask, std::chrono::system_clock::now() + t.config.call_timeout,
        [&](const std::string& ep, etcd::Deadline d) { return c.hash_kv(ep, *rev, d); });
    bool passed = false;
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      auto& m = ms[ask_at[i]];
      if (!hashes[i].result) {
        passed = passed || hashes[i].result.error().reason == etcd::reason::kCompacted;
        m.error = hashes[i].result.error().one_line();
        continue;
      }
      const auto& h = *hashes[i].result;
      m.hash = h.hash;
      // etcd before 3.6 does not say; the hash covers the revision asked for.
      m.hash_revision = h.hash_revision != 0 ? h.hash_revision : *rev;
      m.compact_revision = h.compact_revision;
      compacted = std::max(compacted, h.compact_revision);
    }
    rep.members = std::move(ms);
    rep.comparison = compare_hashes(rep.members);
    const bool again = passed || rep.comparison.compaction_moved;
    if (again && attempt == 1 && rep.comparison.verdict != HashVerdict::Inconsistent) continue;
    return rep;
  }
  return rep;
}

int hashkv_exit_code(const HashKVReport& r) {
  switch (r.comparison.verdict) {
    case HashVerdict::Consistent: return 0;
    case HashVerdict::Inconsistent: return base::exit_code(base::ErrorKind::Inconsistent);
    case HashVerdict::Incomplete: break;
  }
  const bool some = std::any_of(r.members.begin(), r.members.end(), [](const MemberHash& m) { return m.hash.has_value(); });
  return base::exit_code(some ? base::ErrorKind::Partial : base::ErrorKind::Failed);
}

ojson hashkv_document(const HashKVReport& r) {
  ojson doc;
  doc["revision"] = r.revision;
  doc["attempts"] = r.attempts;
  doc["verdict"] = verdict_name(r.comparison.verdict);
  doc["message"] = r.comparison.message;
  doc["differing"] = r.comparison.differing;
  doc["members"] = ojson::array();
  for (const auto& m : r.members) {
    ojson j;
    j["name"] = m.name;
    j["id"] = m.id ? etcd::format_member_id(m.id) : std::string();
    j["endpoint"] = m.endpoint;
    j["state"] = m.state;
    j["revision"] = m.revision;
    j["hash"] = m.hash ? ojson(*m.hash) : ojson();
    j["hash_revision"] = m.hash ? ojson(m.hash_revision) : ojson();
    j["compact_revision"] = m.hash ? ojson(m.compact_revision) : ojson();
    j["error"] = m.error;
    doc["members"].push_back(std::move(j));
  }
  return doc;
}

output::View hashkv_view() {
  output::View v;
  v.rows = "members";
  v.columns = {{"NAME", "name"},
               {"ID", "id", output::Cell::Text, true},
               {"ENDPOINT", "endpoint", output::Cell::Text, true},
               {"STATE", "state"},
               {"HASH", "hash"},
               {"HASH REVISION", "hash_revision"},
               {"COMPACT REVISION", "compact_revision"},
               {"REVISION", "revision", output::Cell::Text, true},
               {"ERROR", "error"}};
  return v;
}

std::string render_hashkv(const ojson& doc, output::Format format) {
  std::string out = output::render(doc, hashkv_view(), format);
  if (format != output::Format::Table && format != output::Format::Wide) return out;
  return out + "\n" + doc["verdict"].get<std::string>() + " at revision " +
         std::to_string(doc["revision"].get<std::int64_t>()) + ": " + doc["message"].get<std::string>() + "\n";
}

}  // namespace admin
