// The end state of a flow the real operator completes, for the lost-answer
// matrices (docs/server-faults.md#lost-answers): a namespace's object graph
// as it must equal an uninterrupted run's. Each case runs in a namespace of
// its own, so what differs by construction is left out or replaced: uids,
// resourceVersions, times, generated names, and the names given per case
// (the namespace, a bucket).
#pragma once

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "../operator/operator_cluster.h"
#include "lost_matrix.h"

namespace faults_e2e {

// A list "a=x,b=y" (or "--flag=a=x,b=y", or "4:a,b" as in the scale-target
// annotation) with its items sorted: the operator and the tools list
// members by name, and the names differ from case to case.
inline std::string sorted_list(const std::string& s) {
  if (s.find(',') == std::string::npos) return s;
  std::string prefix, rest = s;
  const auto digits = s.find_first_not_of("0123456789");
  if (s.rfind("--", 0) == 0 && s.find('=') != std::string::npos) {
    prefix = s.substr(0, s.find('=') + 1);
  } else if (digits != 0 && digits != std::string::npos && s[digits] == ':') {
    prefix = s.substr(0, digits + 1);
  }
  rest = s.substr(prefix.size());
  std::vector<std::string> items;
  std::istringstream in(rest);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  std::sort(items.begin(), items.end());
  std::string out = prefix;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : ",") + items[i];
  return out;
}

// Every string of `v` with each key of `names` replaced by its value (and
// a list in it sorted).
inline void rename_all(json& v, const std::map<std::string, std::string>& names) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    for (const auto& [from, to] : names) {
      for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    }
    v = sorted_list(s);
  } else if (v.is_structured()) {
    for (auto& x : v) rename_all(x, names);
  }
}

// An object as the graph compares it: its labels, annotations, finalizers,
// owners (kind and name) and spec. Status is left out: it is the operator's,
// and moves on its own clock.
inline json graph_entry(const json& o) {
  json m = o["metadata"];
  json e = {{"labels", m.value("labels", json::object())},
            {"annotations", m.value("annotations", json::object())},
            {"finalizers", m.value("finalizers", json::array())},
            {"owners", json::array()},
            {"spec", o.value("spec", json::object())}};
  for (const auto& r : m.value("ownerReferences", json::array())) e["owners"].push_back(r["kind"].get<std::string>() + "/" + r["name"].get<std::string>());
  // Given by the servers, differently each time: a Service's address, a
  // claim's volume, a Pod's node.
  for (const char* given : {"clusterIP", "clusterIPs", "volumeName", "nodeName"}) e["spec"].erase(given);
  return e;
}

// The cluster's EtcdMembers by age (creationTimestamp, then name): the
// operator bootstraps a seed and adds the others one at a time, each with
// the initial cluster of its time, so a member's place in this order is
// what its spec depends on, in every cluster alike.
inline std::vector<std::string> members_by_age(const e2e::OperatorCluster& c) {
  std::vector<std::pair<std::string, std::string>> aged;
  for (const auto& m : c.members()) {
    aged.emplace_back(m["metadata"]["creationTimestamp"].get<std::string>(), m["metadata"]["name"].get<std::string>());
  }
  std::sort(aged.begin(), aged.end());
  std::vector<std::string> out;
  for (const auto& [at, name] : aged) out.push_back(name);
  return out;
}

// The youngest member, made a follower (leadership moved to the seed when
// it leads): the member a case works on sits at the same place in every
// cluster, and its removal or restart needs no handover.
inline std::string youngest_follower(const e2e::OperatorCluster& c) {
  const auto aged = members_by_age(c);
  REQUIRE(aged.size() >= 2);
  if (c.leader() == aged.back()) {
    auto moved = c.tool({"move-leader", aged.front()});
    REQUIRE_MESSAGE(moved.rc == 0, "move-leader: " << moved.out << moved.err);
    REQUIRE(c.leader() == aged.front());
  }
  return aged.back();
}

// Clusters made ahead, `count` at once, while the uninterrupted run's is
// made too: the operator's bootstrap is most of a case's time. take()
// hands them out, then makes new ones; those never taken go with the object.
template <typename T>
class Prepared {
 public:
  Prepared(std::size_t count, std::function<std::unique_ptr<T>()> make) : make_(std::move(make)) {
    for (std::size_t i = 0; i < count; ++i) ahead_.push_back(std::async(std::launch::async, make_));
  }
  std::unique_ptr<T> take() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (next_ < ahead_.size()) {
        auto& f = ahead_[next_++];
        return f.get();
      }
    }
    return make_();
  }

 private:
  std::function<std::unique_ptr<T>()> make_;
  std::vector<std::future<std::unique_ptr<T>>> ahead_;
  std::size_t next_ = 0;
  std::mutex mu_;
};

// The kinds of a cluster the operator makes, and the EtcdCluster itself.
inline const std::vector<std::string>& operator_kinds() {
  static const std::vector<std::string> v = {"etcdclusters.etcd-operator.cozystack.io",
                                             "etcdmembers.etcd-operator.cozystack.io", "pods", "services",
                                             "persistentvolumeclaims", "poddisruptionbudgets"};
  return v;
}

// kind/name -> graph_entry of every object of `kinds` in `ns` (besides
// the EtcdClusters, those the operator labels with their cluster: not the
// operator's own Pod), with the names of `names` replaced, in the keys too,
// and an EtcdCluster's uid (the operator's cluster token holds it).
inline json object_graph(const std::string& ns, const std::vector<std::string>& kinds,
                         std::map<std::string, std::string> names) {
  json g = json::object();
  const json clusters = e2e::get_json({"-n", ns, "etcdclusters.etcd-operator.cozystack.io"});
  for (const auto& c : clusters["items"]) {
    names[c["metadata"]["uid"].get<std::string>()] = "<uid of " + c["metadata"]["name"].get<std::string>() + ">";
  }
  for (const auto& kind : kinds) {
    const bool cluster = kind.rfind("etcdclusters.", 0) == 0;
    std::vector<std::string> args = {"-n", ns, kind};
    if (!cluster) args.insert(args.end(), {"-l", "etcd-operator.cozystack.io/cluster"});
    const json list = e2e::get_json(args);
    for (const auto& o : list["items"]) {
      json key = kind + "/" + o["metadata"]["name"].get<std::string>();
      rename_all(key, names);
      g[key.get<std::string>()] = graph_entry(o);
    }
  }
  rename_all(g, names);
  return g;
}

}  // namespace faults_e2e
