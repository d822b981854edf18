// The groups of a grouped GEMM call (LibraryGroups records, format 2): the sums a writer keeps of
// the groups it does not list, and a checker that pairs a reader's LibraryGroups records with the
// LibraryCall before them, refusing damaged or misplaced ones (docs/trace-format.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "flopspy/trace/reader.h"
#include "flopspy/trace/schema.h"

namespace flopspy::trace {

// Adds one group to `sums`: its problems and their m*n*k, m*k, k*n, m*n (and m*n again when C is
// read: beta not known to be zero). Sizes of any value; the products are doubles, the counts wrap.
inline void AddGroup(LibraryGroupsCut& sums, const LibraryGroupShape& g) {
  const double count = static_cast<double>(g.count);
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n);
  const double k = static_cast<double>(g.k);
  sums.groups = static_cast<int64_t>(static_cast<uint64_t>(sums.groups) + 1);
  sums.problems =
      static_cast<int64_t>(static_cast<uint64_t>(sums.problems) + static_cast<uint64_t>(g.count));
  sums.mnk += count * m * n * k;
  sums.mk += count * m * k;
  sums.kn += count * k * n;
  sums.mn += count * m * n;
  if (g.beta != 0) sums.mn_reads_c += count * m * n;
}

// The LibraryGroups records that follow a grouped call listing `listed` (at most 65535 groups):
// kGroupsPerRecord to a record, in order, `cut` (the sums of the groups not listed) in the first.
std::vector<LibraryGroupsRecord> MakeLibraryGroupsRecords(std::span<const LibraryGroupShape> listed,
                                                          const LibraryGroupsCut& cut);

// Fed every record of a trace in file order, it collects the groups of each grouped call
// (LibraryCall with kLibGroupsFollow) from the LibraryGroups records right after it. A groups
// record that is cut short, out of order, not right after its call, or that disagrees with the
// call's group count is refused with a message naming its offset; the call then has no groups
// (its figures, written by the flusher, stand), and every other record reads as usual.
class LibraryGroupsCollector {
 public:
  enum class Step {
    kNone,      // nothing for this record
    kComplete,  // the record completed a call's groups: call(), groups() and cut() hold them
    kDamaged,   // the record (or the call before it) was refused: error() says why
  };
  Step Add(const RecordView& record);
  // After the last record: a message when a grouped call still waits for its groups, else "".
  std::string Finish();

  const LibraryCallRecord& call() const { return call_; }
  std::span<const LibraryGroupShape> groups() const { return groups_; }
  const LibraryGroupsCut& cut() const { return cut_; }
  const std::string& error() const { return error_; }

 private:
  Step Refuse(const RecordView& record, const std::string& why);

  bool open_ = false;         // a grouped call waits for its groups
  bool skipping_ = false;     // a refused call's further groups records are dropped quietly
  uint64_t next_offset_ = 0;  // where the next groups record must start
  uint64_t call_offset_ = 0;
  int64_t listed_ = -1;  // groups the records list, known from the first (-1 before it)
  LibraryCallRecord call_{};
  std::vector<LibraryGroupShape> groups_;
  LibraryGroupsCut cut_{};
  std::string error_;
};

}  // namespace flopspy::trace
