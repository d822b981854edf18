#include "flopspy/trace/library_groups.h"

#include <algorithm>

namespace flopspy::trace {

std::vector<LibraryGroupsRecord> MakeLibraryGroupsRecords(std::span<const LibraryGroupShape> listed,
                                                          const LibraryGroupsCut& cut) {
  std::vector<LibraryGroupsRecord> records;
  for (size_t first = 0; first < listed.size(); first += kGroupsPerRecord) {
    LibraryGroupsRecord& r = records.emplace_back();
    r.h = MakeHeader<LibraryGroupsRecord>();
    r.first = static_cast<uint16_t>(first);
    r.valid = static_cast<uint16_t>(std::min<size_t>(kGroupsPerRecord, listed.size() - first));
    if (first == 0) r.cut = cut;
    std::copy_n(listed.begin() + static_cast<ptrdiff_t>(first), r.valid, r.groups);
  }
  return records;
}

LibraryGroupsCollector::Step LibraryGroupsCollector::Refuse(const RecordView& record,
                                                            const std::string& why) {
  error_ = "the LibraryGroups record at byte " + std::to_string(record.file_offset) + " " + why;
  if (open_) {
    error_ += "; the groups of the grouped call at byte " + std::to_string(call_offset_) +
              " are left out (its FLOPs and bytes, written with it, stand)";
  }
  open_ = false;
  skipping_ = true;  // the rest of that call's groups records are dropped without more messages
  next_offset_ = record.file_offset + record.bytes.size();
  groups_.clear();
  return Step::kDamaged;
}

LibraryGroupsCollector::Step LibraryGroupsCollector::Add(const RecordView& r) {
  const bool adjacent = r.file_offset == next_offset_;
  if (r.type == RecordType::kLibraryGroups && (open_ || skipping_) && adjacent) {
    if (skipping_) {
      next_offset_ += r.bytes.size();
      return Step::kNone;
    }
    if (r.bytes.size() < sizeof(LibraryGroupsRecord)) {
      return Refuse(r, "is cut short (" + std::to_string(r.bytes.size()) + " of " +
                           std::to_string(sizeof(LibraryGroupsRecord)) + " bytes)");
    }
    const auto g = r.As<LibraryGroupsRecord>();
    if (g.valid == 0 || g.valid > kGroupsPerRecord) {
      return Refuse(r, "says it holds " + std::to_string(g.valid) + " groups (1 to " +
                           std::to_string(kGroupsPerRecord) + " fit)");
    }
    if (g.first != groups_.size()) {
      return Refuse(r, "starts at group " + std::to_string(g.first) + " where group " +
                           std::to_string(groups_.size()) + " was due");
    }
    if (listed_ < 0) {
      // cut.problems is -1 when an unlisted group had a negative size (the hook says so on
      // purpose: blas-formulas.md), not damage.
      if (g.cut.groups < 0 || g.cut.groups >= call_.batch || g.cut.problems < -1) {
        return Refuse(r, "sums " + std::to_string(g.cut.groups) +
                             " unlisted groups, which does not fit a call of " +
                             std::to_string(call_.batch) + " groups");
      }
      listed_ = call_.batch - g.cut.groups;
      cut_ = g.cut;
    }
    if (static_cast<int64_t>(groups_.size()) + g.valid > listed_) {
      return Refuse(r,
                    "lists more groups than the call has (" + std::to_string(listed_) + " listed)");
    }
    groups_.insert(groups_.end(), g.groups, g.groups + g.valid);
    next_offset_ += r.bytes.size();
    if (static_cast<int64_t>(groups_.size()) < listed_) return Step::kNone;
    open_ = false;
    return Step::kComplete;
  }

  Step step = Step::kNone;
  skipping_ = false;
  if (open_) {
    error_ = "the grouped call at byte " + std::to_string(call_offset_) +
             " says its groups follow, but " +
             (groups_.empty() ? std::string("no LibraryGroups record does")
                              : "only " + std::to_string(groups_.size()) + " of them do") +
             ": its groups are left out (its FLOPs and bytes, written with it, stand)";
    open_ = false;
    groups_.clear();
    step = Step::kDamaged;
  } else if (r.type == RecordType::kLibraryGroups) {
    return Refuse(r, "is not right after a grouped call");
  }
  if (r.type == RecordType::kLibraryCall) {
    call_ = r.As<LibraryCallRecord>();
    if ((call_.flags & kLibGrouped) && (call_.flags & kLibGroupsFollow)) {
      open_ = true;
      call_offset_ = r.file_offset;
      next_offset_ = r.file_offset + r.bytes.size();
      listed_ = -1;
      groups_.clear();
      cut_ = LibraryGroupsCut{};
    }
  }
  return step;
}

std::string LibraryGroupsCollector::Finish() {
  if (!open_) return {};
  open_ = false;
  return "the grouped call at byte " + std::to_string(call_offset_) +
         " says its groups follow, but the trace ends before them: its groups are left out (its "
         "FLOPs and bytes, written with it, stand)";
}

}  // namespace flopspy::trace
