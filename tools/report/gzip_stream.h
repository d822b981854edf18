// A std::ostream that writes gzip (RFC 1952) into another stream, for `--chrome FILE.json.gz`:
// the Perfetto UI and chrome://tracing open .json.gz as they are, and a timeline's JSON shrinks
// about tenfold. zlib does the compression (docs/flopspy-report.md, "Dependencies").
#pragma once

#include <zlib.h>

#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

namespace flopspy::tools {

class GzipStream : public std::ostream {
 public:
  explicit GzipStream(std::ostream& sink);
  ~GzipStream() override;
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Compresses what is left and writes the gzip trailer; false when zlib or the sink failed.
  bool Finish();

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(std::ostream& sink);
    ~Buffer() override;
    bool Finish();

   protected:
    int_type overflow(int_type ch) override;
    int sync() override;

   private:
    bool Deflate(int flush);

    std::ostream& sink_;
    z_stream z_{};
    bool ok_ = false;
    bool finished_ = false;
    std::vector<char> in_, out_;
  };
  Buffer buffer_;
};

}  // namespace flopspy::tools
