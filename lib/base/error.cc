#include "base/error.h"

namespace base {

Error make_error(ErrorKind kind, std::string message, std::string object, std::string hint) {
  Error e;
  e.kind = kind;
  e.message = std::move(message);
  e.object = std::move(object);
  e.hint = std::move(hint);
  return e;
}

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Failed: return 1;
    case ErrorKind::Unhealthy: return 1;
    case ErrorKind::CannotConnect: return 2;
    case ErrorKind::Refused: return 3;
    case ErrorKind::Timeout: return 4;
    case ErrorKind::Partial: return 5;
    case ErrorKind::NotFound: return 6;
    case ErrorKind::PermissionDenied: return 7;
    case ErrorKind::Inconsistent: return 8;
    case ErrorKind::Usage: return 128;
    case ErrorKind::Interrupted: return 130;
    case ErrorKind::Terminated: return 143;
  }
  return 1;
}

const char* kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Failed: return "Failed";
    case ErrorKind::Unhealthy: return "Unhealthy";
    case ErrorKind::CannotConnect: return "CannotConnect";
    case ErrorKind::Refused: return "Refused";
    case ErrorKind::Timeout: return "Timeout";
    case ErrorKind::Partial: return "Partial";
    case ErrorKind::NotFound: return "NotFound";
    case ErrorKind::PermissionDenied: return "PermissionDenied";
    case ErrorKind::Inconsistent: return "Inconsistent";
    case ErrorKind::Usage: return "Usage";
    case ErrorKind::Interrupted: return "Interrupted";
    case ErrorKind::Terminated: return "Terminated";
  }
  return "Failed";
}

std::string fold_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) {
      if (out.back() != ' ') out.push_back(' ');
      pending_space = false;
    }
    out.push_back(static_cast<char>(c));
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string Error::one_line() const {
  std::string out;
  if (!object.empty()) out += object + ": ";
  out += message.empty() ? std::string(kind_name(kind)) : message;
  for (size_t i = 0; i < causes.size(); ++i) {
    out += i == 0 ? ": " : ", ";
    out += causes[i];
  }
  if (!hint.empty()) out += "; " + hint;
  return fold_line(out);
}

}  // namespace base
