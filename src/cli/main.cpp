// onnx-shrink native driver: the engine on files, for tests and benchmarks. The user-facing CLI is
// the npm package's, which shares these flags.
//
// Exit status: 0 success, 2 bad input or options (message on stderr), 1 anything else.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../onnx_shrink.h"
#include "../option_words.h"

namespace {

using onnx_shrink::Error;
using onnx_shrink::ErrorCode;

// "a|b|c": the words of an option, for the usage text.
std::string alternatives(const onnx_shrink::OptionWords& t) {
  std::string s;
  for (size_t k = 0; k < t.count; ++k) s += std::string(k ? "|" : "") + t.words[k].word;
  return s;
}

// The usage text; the words of the flags that take words come from their tables.
std::string usage() {
  using namespace onnx_shrink;
  std::string bits = bits_words();  // "auto, 8, ... or 16" -> "auto|8|...|16"
  for (size_t at; (at = bits.find(", ")) != std::string::npos || (at = bits.find(" or ")) != std::string::npos;) {
    bits.replace(at, bits[at] == ',' ? 2 : 4, "|");
  }
  // A flag and its value, then its description from the 28th column (on a line of its own when long).
  auto flag = [](const std::string& left, const std::string& description) {
    const std::string head = "  " + left;
    return head + (head.size() < 27 ? std::string(27 - head.size(), ' ') : "\n" + std::string(27, ' ')) + description + "\n";
  };
  const std::string more(27, ' ');
  return "usage: onnx-shrink IN.onnx -o OUT.onnx [options]\n"
         "       onnx-shrink IN.onnx --inspect [options]\n"
         "       onnx-shrink IN.onnx --expand -o OUT.onnx\n\n" +
         flag("-o OUT.onnx", "the result; '-' (or a pipe or device) gets it once it is whole") +
         flag("--mode " + alternatives(kModeWords), "int8: 8-bit codes expanded in the graph (default);") +
         more + "palette: at most --levels values per tensor, stored as floats\n" +
         flag("--levels N", "palette levels, 2..65536 (default 256)") +
         flag("--block N", "int8: one scale per N values along the reduction axis (16..4096)") +
         flag("--scheme " + alternatives(kSchemeWords), "int8: auto (default) | channel | tensor (the original Shrink Ray);") +
         more + "palette: auto (default) | kmeans | uniform (the original)\n" +
         flag("--form " + alternatives(kFormWords), "int8: Cast->Mul->Add, folded at load (default) | DequantizeLinear") +
         flag("--bits " + bits, "int8: bits per value of the codes (default auto: 8, plus a 9th and") +
         more + "10th where the bytes --small saves pay for them: never larger than\n" +
         more + "8 bits with --small keep);\n" +
         more + "2..7: one byte per value still, but gzip and brotli store about that many\n" +
         flag("--tensor-bits NAME=B,...", "int8: bits for the named tensors instead of --bits") +
         flag("--min-elements N", "smaller tensors get no 8-bit codes (default 16384)") +
         flag("--small " + alternatives(kSmallWords), "int8: float32 tensors under --min-elements stored as float16") +
         more + "where that holds them (auto: when large ones are shrunk)\n" +
         flag("--exclude NAMES", "comma-separated tensor names to leave alone") +
         flag("--exclude-nodes NAMES", "leave the weights read by these nodes alone") +
         flag("--exclude-ops TYPES", "leave the weights read by these op types alone") +
         flag("--external-data " + alternatives(kExternalWords), "where tensor data goes (auto: inline unless over 2 GB)") +
         flag("--external-location F", "external data file name (default OUT.onnx.data)") +
         flag("--report FILE.json", "write the report as JSON") +
         flag("--inspect", "print the report (JSON) without writing a model") +
         flag("--expand", "turn a shrunk model back into plain float weights") +
         flag("--rounding-draw N", "int8: another equally good rounding (N > 0; 0: the default's), for measuring how") +
         more + "much the output error depends on rounding alone\n" +
         flag("--quiet", "no summary on stderr") +
         flag("--version", "print the version");
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "onnx-shrink: %s\nRun 'onnx-shrink --help' for the options.\n", message.c_str());
  std::exit(2);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The value `value` names among an option's words; a usage error names them all.
template <typename Enum>
void parse_choice(const std::string& flag, const std::string& value, const onnx_shrink::OptionWords& t, Enum& out) {
  if (!t.parse(value, out)) usage_error(flag + " takes " + t.list(false) + ", not '" + value + "'");
}

uint64_t parse_number(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || *end || errno || value[0] == '-') usage_error(flag + " needs a whole number, not '" + value + "'");
  return v;
}

// A file mapped read-only. The input is never written to.
class MappedFile {
 public:
  // Files up to this size have their pages mapped at once (MAP_POPULATE): one call instead of a
  // page fault per 64 KB as the engine reads on.
  static constexpr uint64_t kPopulateLimit = uint64_t(1) << 30;
  explicit MappedFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    // (A missing or unreadable input is bad input, exit 2, as in the npm CLI.)
    if (fd_ < 0) throw Error(ErrorCode::BadOption, "cannot open '" + path + "': " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0) throw Error(ErrorCode::Io, "cannot stat '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::BadOption, "'" + path + "' is a folder, not a model file");
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | (size_ <= kPopulateLimit ? MAP_POPULATE : 0), fd_, 0);
      if (p == MAP_FAILED) throw Error(ErrorCode::Io, "cannot map '" + path + "': " + std::strerror(errno));
      data_ = static_cast<const uint8_t*>(p);
      ::madvise(p, size_, MADV_SEQUENTIAL);
    }
    dev_ = st.st_dev;
    ino_ = st.st_ino;
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool same_file(const std::string& path) const {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
  }

 private:
  int fd_ = -1;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// The temporary files being written (a model and its external data at most), for the signal
// handler: a Ctrl-C mid-write removes them too. A handler may only make async-signal-safe calls
// (unlink, raise), so it reads plain pointers; this is the driver's only global state.
std::atomic<const char*> g_writing[2] = {};

extern "C" void remove_partial_files_and_stop(int signal) {
  for (auto& path : g_writing) {
    if (const char* p = path.load()) ::unlink(p);
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// "-" (standard output), or an existing pipe, terminal or device such as /dev/stdout: a target
// that cannot be replaced by renaming a file onto it.
bool is_stream(const std::string& path) {
  if (path == "-") return true;
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// A link to a file: the file it points to gets the result, and the link stays a link.
std::string link_target(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  return real ? std::string(real.get()) : path;  // a dangling link: replaced, as a missing file
}

// Writes to PATH.partial and renames it to PATH only when everything succeeded. A stream target
// gets a temporary file in $TMPDIR instead, copied out whole on success: a failed run sends
// nothing down a pipe, and /dev/stdout is never replaced by a file.
class FileSink final : public onnx_shrink::Sink {
 public:
  explicit FileSink(std::string path) : path_(std::move(path)), stream_(is_stream(path_)) {
    if (stream_) {
      const char* dir = std::getenv("TMPDIR");
      temp_ = std::string(dir && *dir ? dir : "/tmp") + "/onnx-shrink-XXXXXX.partial";
    } else {
      path_ = link_target(path_);
      temp_ = path_ + ".partial";
    }
    for (auto& slot : g_writing) {
      const char* none = nullptr;
      if (slot.compare_exchange_strong(none, temp_.c_str())) {
        slot_ = &slot;
        break;
      }
    }
    // mkstemps fills in the X's of temp_'s own buffer, which the signal handler reads.
    fd_ = stream_ ? ::mkstemps(temp_.data(), 8) : ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      const int error = errno;
      release();
      throw Error(ErrorCode::Io, "cannot write '" + path_ + "': " + std::strerror(error));
    }
    buffer_.reserve(kBuffer);
  }
  ~FileSink() override {
    release();
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
  }
  void write(const void* bytes, size_t length) override {
    if (length >= kBuffer) {
      flush();
      put(static_cast<const uint8_t*>(bytes), length);
      return;
    }
    if (buffer_.size() + length > kBuffer) flush();
    const uint8_t* p = static_cast<const uint8_t*>(bytes);
    buffer_.insert(buffer_.end(), p, p + length);
  }
  void commit() {
    flush();
    if (::close(fd_) != 0) throw Error(ErrorCode::Io, "cannot write '" + temp_ + "': " + std::strerror(errno));
    fd_ = -1;
    if (stream_) {
      copy_out();  // the destructor removes the temporary file
      return;
    }
    if (!replace(temp_, path_) && ::rename(temp_.c_str(), path_.c_str()) != 0) {
      throw Error(ErrorCode::Io, "cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno));
    }
    committed_ = true;
    release();
  }
  bool stream() const { return stream_; }

 private:
  void release() {
    if (slot_) slot_->store(nullptr);
    slot_ = nullptr;
  }
  // Puts `from` in place of an existing regular file at `to` by exchanging the two names, then
  // removes the old file (now named `from`). The same atomic replacement as rename(), but ext4
  // starts writing the new file's data out before a rename() over an existing file returns
  // (auto_da_alloc), which cost 0.03 s of a 0.19 s run on the 150 MB conv stack. False when the
  // exchange is not possible (no file there, not a regular file, a file system without it).
  static bool replace(const std::string& from, const std::string& to) {
    struct stat st;
    if (::lstat(to.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) != 0) return false;
    ::unlink(from.c_str());
    return true;
  }
  static constexpr size_t kBuffer = size_t(1) << 20;
  void flush() {
    put(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  void put(const uint8_t* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw Error(ErrorCode::Io, "cannot write '" + temp_ + "': " + std::strerror(errno));
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  void copy_out() {
    const std::string name = path_ == "-" ? "standard output" : path_;
    const int in = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
    const int out = path_ == "-" ? STDOUT_FILENO : ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (in < 0 || out < 0) {
      const int error = errno;
      if (in >= 0) ::close(in);
      throw Error(ErrorCode::Io, "cannot write '" + name + "': " + std::strerror(error));
    }
    std::vector<uint8_t> chunk(kBuffer);
    ssize_t n = 0;
    while ((n = ::read(in, chunk.data(), chunk.size())) > 0 || (n < 0 && errno == EINTR)) {
      for (ssize_t done = 0; n > 0 && done < n;) {
        const ssize_t w = ::write(out, chunk.data() + done, static_cast<size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          const int error = errno;
          ::close(in);
          if (out != STDOUT_FILENO) ::close(out);
          throw Error(ErrorCode::Io, "cannot write '" + name + "': " + std::strerror(error));
        }
        done += w;
      }
    }
    ::close(in);
    if (out != STDOUT_FILENO && ::close(out) != 0) throw Error(ErrorCode::Io, "cannot write '" + name + "': " + std::strerror(errno));
  }
  std::string path_, temp_;
  bool stream_ = false;
  int fd_ = -1;
  std::vector<uint8_t> buffer_;
  bool committed_ = false;
  std::atomic<const char*>* slot_ = nullptr;
};

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}
std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// External data files, found beside the model. Locations may not leave the model's folder.
class ExternalFiles final : public onnx_shrink::ExternalResolver {
 public:
  explicit ExternalFiles(std::string folder) : folder_(std::move(folder)) {}
  const onnx_shrink::Source* find(const std::string& location) override {
    auto it = sources_.find(location);
    if (it != sources_.end()) return it->second.get();
    if (location.empty() || location[0] == '/' || location.find("..") != std::string::npos) {
      throw Error(ErrorCode::ExternalDataInvalid, "external data location '" + location + "' leaves the model's folder");
    }
    const std::string path = folder_ + "/" + location;
    if (::access(path.c_str(), R_OK) != 0) return nullptr;
    files_.push_back(std::make_unique<MappedFile>(path));
    sources_[location] = std::make_unique<onnx_shrink::MemorySource>(files_.back()->data(), files_.back()->size());
    return sources_[location].get();
  }

  // A result must not replace a file the input reads (`-o b.onnx` writes b.onnx.data, which may be
  // the input's own data file). The engine has opened every one it reads by the time it is done.
  void refuse_to_replace(const std::string& target) const {
    for (const auto& f : files_) {
      if (f->same_file(target)) {
        throw Error(ErrorCode::BadOption, "the result would replace '" + target +
                                              "', which the input model reads; onnx-shrink never overwrites its input: choose another output name");
      }
    }
  }

 private:
  std::string folder_;
  std::vector<std::unique_ptr<MappedFile>> files_;
  std::map<std::string, std::unique_ptr<onnx_shrink::MemorySource>> sources_;
};

struct Arguments {
  std::string input, output, report;
  bool inspect = false, expand = false, quiet = false;
  onnx_shrink::Options options;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  // The shrinking flags given, with the mode each applies to ('i' int8, 'p' palette, 0 both), checked
  // once all are read (as options.js tags them for the npm CLI).
  static const std::pair<const char*, char> kShrinkFlags[] = {
      {"--mode", 0}, {"--levels", 'p'}, {"--block", 'i'}, {"--scheme", 0}, {"--form", 'i'}, {"--bits", 'i'}, {"--tensor-bits", 'i'},
      {"--small", 'i'}, {"--min-elements", 0}, {"--rounding-draw", 'i'}, {"--exclude", 0}, {"--exclude-nodes", 0}, {"--exclude-ops", 0}};
  std::vector<std::pair<std::string, char>> given;
  // --flag=value is --flag value; `attached` holds such a value until its flag takes it.
  std::vector<std::string> args;
  std::vector<bool> attached;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const size_t eq = s.find('=');
    const bool split = s.rfind("--", 0) == 0 && eq != std::string::npos && eq > 2;
    args.push_back(split ? s.substr(0, eq) : s), attached.push_back(false);
    if (split) args.push_back(s.substr(eq + 1)), attached.push_back(true);
  }
  argc = static_cast<int>(args.size()) + 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = args[i - 1];
    if (attached[i - 1]) usage_error(args[i - 2] + " takes no value (got " + args[i - 2] + "=" + arg + ")");
    for (const auto& [flag, mode] : kShrinkFlags) {
      if (arg == flag) given.emplace_back(arg, mode);
    }
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return args[++i - 1];
    };
    if (arg == "-h" || arg == "--help") {
      std::fputs(usage().c_str(), stdout);
      std::exit(0);
    } else if (arg == "--version") {
      std::printf("%s\n", onnx_shrink::version());
      std::exit(0);
    } else if (arg == "-o" || arg == "--output") {
      a.output = value();
    } else if (arg == "--mode") {
      parse_choice(arg, value(), onnx_shrink::kModeWords, a.options.mode);
    } else if (arg == "--levels") {
      a.options.levels = static_cast<uint32_t>(std::min<uint64_t>(parse_number(arg, value()), 0xffffffffu));
    } else if (arg == "--block") {
      a.options.block = static_cast<uint32_t>(std::min<uint64_t>(parse_number(arg, value()), 0xffffffffu));
    } else if (arg == "--scheme") {
      parse_choice(arg, value(), onnx_shrink::kSchemeWords, a.options.scheme);
    } else if (arg == "--form") {
      parse_choice(arg, value(), onnx_shrink::kFormWords, a.options.form);
    } else if (arg == "--bits") {
      const std::string v = value();
      if (!onnx_shrink::parse_bits(v, a.options.bits)) usage_error("--bits takes " + onnx_shrink::bits_words() + ", not '" + v + "'");
    } else if (arg == "--tensor-bits") {
      for (const std::string& item : split_list(value())) {
        const size_t eq = item.rfind('=');
        uint32_t bits = 0;
        if (eq == std::string::npos || eq == 0 || !onnx_shrink::parse_bits(item.substr(eq + 1), bits)) {
          usage_error("--tensor-bits takes NAME=BITS pairs, BITS " + onnx_shrink::bits_words() + ", not '" + item + "'");
        }
        a.options.tensor_bits.emplace_back(item.substr(0, eq), bits);
      }
    } else if (arg == "--small") {
      parse_choice(arg, value(), onnx_shrink::kSmallWords, a.options.small);
    } else if (arg == "--min-elements") {
      a.options.min_elements = parse_number(arg, value());
    } else if (arg == "--rounding-draw") {
      const uint64_t n = parse_number(arg, value());
      if (n > 0xffffffffu) usage_error("--rounding-draw takes a number from 0 to 4294967295");
      a.options.rounding_draw = static_cast<uint32_t>(n);
    } else if (arg == "--exclude") {
      for (auto& s : split_list(value())) a.options.exclude.push_back(s);
    } else if (arg == "--exclude-nodes") {
      for (auto& s : split_list(value())) a.options.exclude_nodes.push_back(s);
    } else if (arg == "--exclude-ops") {
      for (auto& s : split_list(value())) a.options.exclude_ops.push_back(s);
    } else if (arg == "--external-data") {
      parse_choice(arg, value(), onnx_shrink::kExternalWords, a.options.external);
    } else if (arg == "--external-location") {
      a.options.external_location = value();
    } else if (arg == "--report") {
      a.report = value();
    } else if (arg == "--inspect") {
      a.inspect = true;
    } else if (arg == "--expand") {
      a.expand = true;
    } else if (arg == "--quiet" || arg == "-q") {
      a.quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      usage_error("unknown option " + arg);
    } else if (a.input.empty()) {
      a.input = arg;
    } else {
      usage_error("only one input model at a time (got '" + a.input + "' and '" + arg + "')");
    }
  }
  if (a.input.empty()) usage_error("no input model");
  if (a.expand && a.inspect) usage_error("--expand writes a model and --inspect writes none: give one");
  for (const auto& [flag, mode] : given) {
    // --expand turns shrunk weights back into floats: shrinking's options would change nothing.
    if (a.expand) usage_error("--expand turns a shrunk model's weights back into floats: it takes no " + flag);
    const bool palette = a.options.mode == onnx_shrink::Mode::Palette;
    if (mode && (mode == 'p') != palette) {
      usage_error(flag + " applies to " + (palette ? "int8" : "palette") + " mode, not " + (palette ? "palette" : "int8") + " mode");
    }
  }
  if (!a.inspect && a.output.empty()) usage_error("no output: give -o OUT.onnx, or --inspect");
  if (a.output == "-" && ::isatty(STDOUT_FILENO)) {
    usage_error("-o - writes the model's bytes to standard output, which is a terminal here: redirect it (> model.onnx, | brotli > model.onnx.br)");
  }
  if (!a.output.empty() && a.options.external_location.empty()) {
    a.options.external_location = base_name(a.output) + ".data";
  }
  return a;
}

void write_text(const std::string& path, const std::string& text) {
  FileSink sink(path);
  sink.write(text.data(), text.size());
  sink.write("\n", 1);
  sink.commit();
}

int run(const Arguments& a) {
  MappedFile input(a.input);
  if (!a.output.empty() && input.same_file(a.output)) {
    throw Error(ErrorCode::BadOption, "the output '" + a.output + "' is the input file; onnx-shrink never overwrites its input");
  }
  if (!a.report.empty() && input.same_file(a.report)) {
    throw Error(ErrorCode::BadOption, "--report '" + a.report + "' is the input file; onnx-shrink never overwrites its input");
  }
  if (!a.report.empty() && a.report == a.output) throw Error(ErrorCode::BadOption, "--report and -o name the same file");
  for (const std::string* target : {&a.output, &a.report}) {
    struct stat st;
    if (!target->empty() && ::stat(target->c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      throw Error(ErrorCode::BadOption, "'" + *target + "' is a folder: the native driver writes one file, give its name");
    }
    const std::string folder = folder_of(*target);
    if (target->empty() || *target == "-") continue;
    const bool exists = ::stat(folder.c_str(), &st) == 0;
    if (!exists || !S_ISDIR(st.st_mode)) {
      throw Error(ErrorCode::BadOption, "cannot write '" + *target + "': '" + folder + "' " +
                                            (exists ? "is a file, not a folder" : "does not exist (the native driver makes no folders)"));
    }
  }
  onnx_shrink::MemorySource source(input.data(), input.size());
  ExternalFiles externals(folder_of(a.input));
  onnx_shrink::Io io;
  io.external = &externals;

  onnx_shrink::Report report;
  if (a.inspect) {
    report = onnx_shrink::shrink(source, a.options, nullptr, io);
    if (!a.report.empty()) externals.refuse_to_replace(a.report);
    std::printf("%s\n", onnx_shrink::to_json(report).c_str());
  } else {
    FileSink out(a.output);
    std::unique_ptr<FileSink> external;
    const std::string external_path = folder_of(a.output) + "/" + a.options.external_location;
    onnx_shrink::Options options = a.options;
    if (out.stream()) {
      // A stream gets one file: the data stays inline (an error past 2 GB says so).
      if (options.external == onnx_shrink::ExternalData::External) {
        throw Error(ErrorCode::BadOption, "--external-data external needs a file to put beside the model: give -o FILE");
      }
      options.external = onnx_shrink::ExternalData::Inline;
    }
    if (!a.expand && options.external != onnx_shrink::ExternalData::Inline) {
      if (input.same_file(external_path)) {
        throw Error(ErrorCode::BadOption, "the external data file '" + external_path + "' would overwrite an input");
      }
      external = std::make_unique<FileSink>(external_path);
      io.external_sink = external.get();
    }
    report = a.expand ? onnx_shrink::expand(source, out, io) : onnx_shrink::shrink(source, options, &out, io);
    externals.refuse_to_replace(a.output);
    if (!a.report.empty()) externals.refuse_to_replace(a.report);
    if (external && report.external_bytes_after > 0) externals.refuse_to_replace(external_path);
    out.commit();
    if (external && report.external_bytes_after > 0) external->commit();
  }
  if (!a.report.empty()) write_text(a.report, onnx_shrink::to_json(report));
  if (!a.quiet) std::fprintf(stderr, "%s\n", report.summary.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Arguments arguments = parse(argc, argv);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, remove_partial_files_and_stop);
  try {
    return run(arguments);
  } catch (const Error& e) {
    std::fprintf(stderr, "onnx-shrink: %s: %s\n", arguments.input.c_str(), e.what());
    return 2;  // bad input, options or files (an input not read, an output not written), as the npm CLI says
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "onnx-shrink: %s: out of memory\n", arguments.input.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnx-shrink: %s: internal error: %s\n", arguments.input.c_str(), e.what());
    return 1;
  }
}
