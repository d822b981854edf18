#include "report/gzip_stream.h"

namespace flopspy::tools {
namespace {
constexpr size_t kChunk = size_t{1} << 16;
// 15-bit window, +16: a gzip header and trailer instead of zlib's.
constexpr int kGzipWindowBits = 15 + 16;
}  // namespace

GzipStream::Buffer::Buffer(std::ostream& sink) : sink_(sink), in_(kChunk), out_(kChunk) {
  ok_ = deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
                     Z_DEFAULT_STRATEGY) == Z_OK;
  setp(in_.data(), in_.data() + in_.size());
}

GzipStream::Buffer::~Buffer() {
  deflateEnd(&z_);
}

bool GzipStream::Buffer::Deflate(int flush) {
  if (!ok_) return false;
  z_.next_in = reinterpret_cast<Bytef*>(pbase());
  z_.avail_in = static_cast<uInt>(pptr() - pbase());
  int rc = Z_OK;
  do {
    z_.next_out = reinterpret_cast<Bytef*>(out_.data());
    z_.avail_out = static_cast<uInt>(out_.size());
    rc = deflate(&z_, flush);
    if (rc == Z_STREAM_ERROR) {
      ok_ = false;
      return false;
    }
    sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z_.avail_out));
    // With Z_FINISH, deflate returns Z_OK until the whole trailer is out.
  } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  setp(in_.data(), in_.data() + in_.size());
  ok_ = ok_ && sink_.good();
  return ok_;
}

GzipStream::Buffer::int_type GzipStream::Buffer::overflow(int_type ch) {
  if (finished_ || !Deflate(Z_NO_FLUSH)) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

// A flush of the stream compresses nothing early: gzip blocks are best left full.
int GzipStream::Buffer::sync() {
  return ok_ ? 0 : -1;
}

bool GzipStream::Buffer::Finish() {
  if (finished_) return ok_;
  finished_ = true;
  return Deflate(Z_FINISH);
}

GzipStream::GzipStream(std::ostream& sink) : std::ostream(nullptr), buffer_(sink) {
  rdbuf(&buffer_);
}

GzipStream::~GzipStream() = default;

bool GzipStream::Finish() {
  return buffer_.Finish() && good();
}

}  // namespace flopspy::tools
