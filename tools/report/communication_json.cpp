#include "report/communication_json.h"

#include <string>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"

namespace flopspy::tools {

using nlohmann::json;

namespace {

json Optional(const std::optional<double>& v) {
  return v ? json(*v) : json();
}

}  // namespace

json CommunicationJson(const analyzers::CommReport& c) {
  if (c.empty()) return json();
  json rows = json::array();
  for (const analyzers::CommRow& r : c.rows) {
    const bool group = r.routine == analyzers::BlasRoutine::kNcclGroupEnd;
    rows.push_back({{"collective", analyzers::BlasRoutineName(r.routine)},
                    {"type", group ? json() : json(analyzers::DataTypeName(r.type))},
                    {"bytes", r.bytes},
                    {"nranks", r.nranks > 0 ? json(r.nranks) : json()},
                    {"calls", r.calls},
                    {"in_group", r.in_group},
                    {"timed_calls", r.timed_calls},
                    {"gpu_ns", r.gpu_ns},
                    {"cpu_ns", r.cpu_ns},
                    {"algbw_bytes_per_s", Optional(r.algbw)},
                    {"busbw_bytes_per_s", Optional(r.busbw)}});
  }
  json advice = json::array();
  for (const analyzers::CommAdvice& a : c.advice) {
    advice.push_back(
        {{"kind", a.kind == analyzers::CommAdvice::Kind::kExposed ? "exposed" : "small_messages"},
         {"ns", a.ns},
         {"sentence", a.sentence}});
  }
  return {{"calls", c.calls},
          {"failed", c.failed},
          {"bytes", c.bytes},
          {"gpu_ns", c.gpu_ns},
          {"kernel_ns", c.kernel_ns},
          {"overlapped_ns", c.overlapped_ns},
          {"exposed_share", c.exposed_share()},
          {"rows", std::move(rows)},
          {"advice", std::move(advice)}};
}

json CommSkewJson(const analyzers::CommSkewReport& s) {
  if (s.empty()) return json();
  json ranks = json::array();
  for (const analyzers::RankSkew& r : s.ranks) {
    ranks.push_back({{"trace", r.label},
                     {"rank", r.rank >= 0 ? json(r.rank) : json()},
                     {"matched", r.matched},
                     {"last", r.last},
                     {"wait_ns", r.wait_ns},
                     {"comm_ns", r.comm_ns}});
  }
  json straggler;
  if (s.straggler) {
    const analyzers::RankSkew& r = s.ranks[*s.straggler];
    straggler = {{"trace", r.label}, {"rank", r.rank >= 0 ? json(r.rank) : json()}};
  }
  return {{"matched", s.matched},
          {"mean_skew_ns", s.mean_skew_ns},
          {"max_skew_ns", s.max_skew_ns},
          {"several_hosts", s.several_hosts},
          {"straggler", std::move(straggler)},
          {"ranks", std::move(ranks)}};
}

}  // namespace flopspy::tools
