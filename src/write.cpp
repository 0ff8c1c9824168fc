#include "write.h"

#include <algorithm>

namespace onnx_shrink {

namespace {

constexpr uint64_t kCopyChunk = uint64_t(4) << 20;

// Counts what passes through, so that a plan that miscounted is caught.
class CountingSink final : public Sink {
 public:
  explicit CountingSink(Sink* target) : target_(target) {}
  void write(const void* bytes, size_t length) override {
    if (target_) target_->write(bytes, length);
    written += length;
  }
  uint64_t written = 0;

 private:
  Sink* target_;
};

class Writer {
 public:
  Writer(proto::Window& model, const Plan& plan, Encoder& encoder, Sink& out, Sink* external, Progress* progress)
      : model_(model), plan_(plan), encoder_(encoder), out_(&out), external_(external), progress_(progress),
        total_(plan.output_size + plan.external_size) {}

  void run() {
    uint64_t pos = 0;
    for (const Edit& e : plan_.edits) {
      copy(pos, e.begin);
      for (const Chunk& c : e.chunks) {
        out_.write(c.bytes.data(), c.bytes.size());
        if (c.has_payload) payload(c.payload);
      }
      pos = e.end;
    }
    copy(pos, model_.size());
    if (out_.written != plan_.output_size || external_.written != plan_.external_size) {
      throw std::logic_error("onnx-shrink: the output size differs from the plan");
    }
    report();
  }

 private:
  void copy(uint64_t from, uint64_t to) {
    while (from < to) {
      const size_t n = static_cast<size_t>(std::min(to - from, kCopyChunk));
      out_.write(model_.at(from, n), n);
      from += n;
      report();
    }
  }

  void payload(const Payload& p) {
    if (p.external) {
      static const uint8_t zeros[4096] = {};
      while (external_.written < p.external_offset) {  // alignment padding
        const size_t n = static_cast<size_t>(std::min<uint64_t>(p.external_offset - external_.written, sizeof zeros));
        external_.write(zeros, n);
      }
      encoder_.write(p, external_);
    } else {
      encoder_.write(p, out_);
    }
    report();
  }

  void report() {
    const double fraction = total_ ? double(out_.written + external_.written) / double(total_) : 1.0;
    if (progress_ && !progress_->report(std::min(1.0, fraction), "writing")) throw Error(ErrorCode::Cancelled, "cancelled");
  }

  proto::Window& model_;
  const Plan& plan_;
  Encoder& encoder_;
  CountingSink out_, external_;
  Progress* progress_;
  const uint64_t total_;
};

class NullSink final : public Sink {
 public:
  void write(const void*, size_t) override {}
};

}  // namespace

void write_output(proto::Window& model, const Plan& plan, Encoder& encoder, Sink& out, Sink* external_out,
                  Progress* progress) {
  if (plan.external_size > 0 && !external_out) {
    throw Error(ErrorCode::BadOption, "the result has external data but no place to write it was given");
  }
  out.expect(plan.output_size);
  if (external_out && plan.external_size > 0) external_out->expect(plan.external_size);
  Writer(model, plan, encoder, out, external_out, progress).run();
}

void encode_only(const Plan& plan, Encoder& encoder, Progress* progress) {
  NullSink null;
  uint64_t done = 0, total = 0;
  for (const Edit& e : plan.edits) {
    for (const Chunk& c : e.chunks) total += c.has_payload ? c.payload.size : 0;
  }
  for (const Edit& e : plan.edits) {
    for (const Chunk& c : e.chunks) {
      if (!c.has_payload) continue;
      encoder.write(c.payload, null);
      done += c.payload.size;
      if (progress && !progress->report(total ? double(done) / double(total) : 1.0, "encoding")) {
        throw Error(ErrorCode::Cancelled, "cancelled");
      }
    }
  }
}

}  // namespace onnx_shrink
