#include "admin/member_step.h"

namespace admin {

namespace {
constexpr MemberStep kAll[] = {
    MemberStep::Scale,
    MemberStep::Grow,
    MemberStep::CreateMember,
    MemberStep::Register,
    MemberStep::Wire,
    MemberStep::Render,
    MemberStep::Record,
    MemberStep::Ready,
    MemberStep::Promote,
    MemberStep::MarkVoter,
    MemberStep::Pdb,
    MemberStep::MoveLeader,
    MemberStep::ClearId,
    MemberStep::DeleteMember,
    MemberStep::RemoveEtcd,
    MemberStep::Release,
    MemberStep::Count,
    MemberStep::WaitAdded,
    MemberStep::WaitRemoved,
    MemberStep::WaitFilled,
    MemberStep::ForceDeletePod,
    MemberStep::MarkRoll,
    MemberStep::DeletePod,
    MemberStep::WaitPod,
    MemberStep::Rejoin,
    MemberStep::UnmarkRoll,
};
}  // namespace

const char* step_name(MemberStep step) {
  switch (step) {
    case MemberStep::Scale: return "scale";
    case MemberStep::Grow: return "grow";
    case MemberStep::CreateMember: return "create-member";
    case MemberStep::Register: return "register";
    case MemberStep::Wire: return "wire";
    case MemberStep::Render: return "render";
    case MemberStep::Record: return "record";
    case MemberStep::Ready: return "ready";
    case MemberStep::Promote: return "promote";
    case MemberStep::MarkVoter: return "mark-voter";
    case MemberStep::Pdb: return "pdb";
    case MemberStep::MoveLeader: return "move-leader";
    case MemberStep::ClearId: return "clear-id";
    case MemberStep::DeleteMember: return "delete-member";
    case MemberStep::RemoveEtcd: return "remove-etcd";
    case MemberStep::Release: return "release";
    case MemberStep::Count: return "count";
    case MemberStep::WaitAdded: return "wait-added";
    case MemberStep::WaitRemoved: return "wait-removed";
    case MemberStep::WaitFilled: return "wait-filled";
    case MemberStep::ForceDeletePod: return "force-delete-pod";
    case MemberStep::MarkRoll: return "mark-roll";
    case MemberStep::DeletePod: return "delete-pod";
    case MemberStep::WaitPod: return "wait-pod";
    case MemberStep::Rejoin: return "rejoin";
    case MemberStep::UnmarkRoll: return "unmark-roll";
  }
  return "unknown";
}

std::optional<MemberStep> parse_member_step(std::string_view name) {
  for (MemberStep s : kAll) {
    if (name == step_name(s)) return s;
  }
  return std::nullopt;
}

}  // namespace admin
