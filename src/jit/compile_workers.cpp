#include "jit/compile_workers.h"

#include <dlfcn.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "codegen/templates.h"
#include "ir/settings.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc.h"
#include "jit/nvrtc_warm_up.h"
#include "lazy/error.h"

extern char** environ;

namespace lazy::jit {

namespace {

namespace fs = std::filesystem;

constexpr const char* kWorkerName = "lazyfuse-nvrtc-worker";
enum class Status : std::uint64_t { ok = 0, compile_error = 1, failure = 2, other_build = 3 };

// Sockets, not pipes: MSG_NOSIGNAL turns a dead worker into an error instead of a SIGPIPE that
// would end the user's program.
bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, p, size);  // the worker's own stdout
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= std::size_t(n);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= std::size_t(n);
  }
  return true;
}

bool write_word(int fd, std::uint64_t word) {
  return write_all(fd, &word, sizeof word);
}
bool read_word(int fd, std::uint64_t* word) {
  return read_all(fd, word, sizeof *word);
}
bool write_blob(int fd, std::string_view blob) {
  return write_word(fd, blob.size()) && write_all(fd, blob.data(), blob.size());
}
// Requests and answers stay far below this; a larger length means a broken stream.
constexpr std::uint64_t kMaxBlob = std::uint64_t(1) << 32;
bool read_blob(int fd, std::string* blob) {
  std::uint64_t size = 0;
  if (!read_word(fd, &size) || size > kMaxBlob) return false;
  blob->resize(size);
  return read_all(fd, blob->data(), size);
}

// Whether `fd` has something to read (or was closed) within `seconds`: a worker that stopped
// without dying (a deadlock, a stopped process) must not stop the program with it.
bool answers_within(int fd, int seconds) {
  pollfd watched{fd, POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = ::poll(&watched, 1, int(left.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return true;  // let the read report it
  }
}

bool write_request(int fd, const CompileRequest& request, const ir::Hash128& build) {
  bool ok = write_word(fd, build.lo) && write_word(fd, build.hi) && write_blob(fd, request.name) &&
            write_word(fd, std::uint64_t(request.arch)) && write_word(fd, request.options.size());
  for (const std::string& option : request.options) ok = ok && write_blob(fd, option);
  return ok && write_blob(fd, request.source);
}

std::optional<Worker> start_worker(const std::string& program) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], STDOUT_FILENO);
  char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
  pid_t pid = -1;
  int error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sockets[1]);
  if (error != 0) {
    ::close(sockets[0]);
    return std::nullopt;
  }
  return Worker{pid, sockets[0]};
}

}  // namespace

std::string find_worker_program() {
  if (std::optional<std::string> worker = ir::text_setting(ir::Setting::nvrtc_worker)) {
    return ::access(worker->c_str(), X_OK) == 0 ? *worker : "";
  }
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&find_worker_program), &info) == 0 || !info.dli_fname) {
    return "";
  }
  fs::path library_dir = fs::path(info.dli_fname).parent_path();
  for (const fs::path& candidate :
       {library_dir / kWorkerName, library_dir / ".." / "bin" / kWorkerName,
        library_dir / "tools" / kWorkerName}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

ir::Hash128 WorkerPool::this_build() {
  return codegen::templates_checksum();
}

WorkerPool& WorkerPool::instance() {
  // Never destroyed: the workers end when the process does (their input closes).
  static WorkerPool* pool = new WorkerPool(find_worker_program());
  return *pool;
}

WorkerPool::~WorkerPool() {
  for (const Worker& worker : workers_) {
    if (worker.socket < 0) continue;
    ::close(worker.socket);  // the worker reads end of input and exits
    int ignored;
    ::waitpid(worker.pid, &ignored, 0);
  }
}

void WorkerPool::start(std::size_t count) {
  std::lock_guard lock(mutex_);
  if (program_.empty()) return;
  while (workers_.size() < count) {
    std::optional<Worker> worker = start_worker(program_);
    if (!worker) return;
    workers_.push_back(*worker);
    ++running_;
  }
}

std::optional<std::vector<CompileResult>> WorkerPool::compile(
    std::span<const CompileRequest> requests, std::size_t max_workers) {
  start(std::min(max_workers, requests.size()));
  std::lock_guard lock(mutex_);  // one sync at a time uses the pool
  std::erase_if(workers_, [](const Worker& w) { return w.socket < 0; });
  if (workers_.empty() || requests.empty()) return std::nullopt;
  const std::size_t used = std::min(workers_.size(), requests.size());

  // Each worker takes the next unserved request when it finishes one: compile times vary
  // several-fold, so a fixed share would leave workers idle while one finishes a long list.
  std::vector<CompileResult> results(requests.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < used; ++w) {
    threads.emplace_back([&, w] {
      try {
        serve_worker(workers_[w], next, requests, results);
      } catch (const std::exception& error) {  // a thread must not end the program
        for (std::size_t r = next++; r < requests.size(); r = next++) {
          results[r].ok = false;
          results[r].log = error.what();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

void WorkerPool::serve_worker(Worker& worker, std::atomic<std::size_t>& next,
                              std::span<const CompileRequest> requests,
                              std::vector<CompileResult>& results) {
  // A request left unserved (every worker stopped) stays not ok: the caller compiles it itself.
  const int timeout_seconds = int(ir::integer_setting(ir::Setting::nvrtc_worker_timeout));
  for (std::size_t r = next++; worker.socket >= 0 && r < requests.size(); r = next++) {
    CompileResult& result = results[r];
    std::uint64_t status = 0, micros = 0;
    std::string payload;
    if (!write_request(worker.socket, requests[r], build_) ||
        !answers_within(worker.socket, timeout_seconds) || !read_word(worker.socket, &status) ||
        !read_word(worker.socket, &micros) || !read_blob(worker.socket, &payload)) {
      result.log = "the compile worker " + program_ + " stopped answering";
      retire_worker(worker, /*stuck=*/true);
      return;
    }
    if (status == std::uint64_t(Status::other_build)) {  // it has exited: not used again
      result.log = "the compile worker " + program_ + " " + payload;
      retire_worker(worker, /*stuck=*/false);
      return;
    }
    result.ok = status == std::uint64_t(Status::ok);
    result.seconds = double(micros) * 1e-6;
    if (result.ok) {
      result.cubin.assign(payload.begin(), payload.end());
    } else {
      result.log = std::move(payload);
    }
  }
}

void WorkerPool::retire_worker(Worker& worker, bool stuck) {
  ::close(worker.socket);
  if (stuck)
    ::kill(worker.pid, SIGKILL);  // it may be alive but stuck: closing its input is not enough
  int ignored;
  ::waitpid(worker.pid, &ignored, 0);
  worker.socket = -1;
  --running_;
}

std::optional<std::vector<CompileResult>> compile_in_workers(
    std::span<const CompileRequest> requests, std::size_t max_workers) {
  return WorkerPool::instance().compile(requests, max_workers);
}

int serve_compile_requests(int in_fd, int out_fd) {
  // NVRTC's first compile in a process costs most; paid before the first request, it stays out
  // of that request's time (and, for workers started while CUDA initialises, off the cold path).
  warm_up_nvrtc();
  const ir::Hash128 build = WorkerPool::this_build();
  while (true) {
    CompileRequest request;
    ir::Hash128 asked;
    std::uint64_t arch = 0, options = 0;
    if (!read_word(in_fd, &asked.lo)) return 0;  // the library closed the pipe: done
    if (!read_word(in_fd, &asked.hi)) return 1;
    if (asked != build) {
      // Its kernels include other templates than ours: the library compiles them itself.
      const bool answered = write_word(out_fd, std::uint64_t(Status::other_build)) &&
                            write_word(out_fd, 0) &&
                            write_blob(out_fd, "was built from another lazyfuse than the library");
      return answered ? 2 : 1;
    }
    if (!read_blob(in_fd, &request.name)) return 1;
    if (!read_word(in_fd, &arch) || !read_word(in_fd, &options)) return 1;
    request.arch = int(arch);
    request.options.resize(options);
    for (std::string& option : request.options)
      if (!read_blob(in_fd, &option)) return 1;
    if (!read_blob(in_fd, &request.source)) return 1;

    Status status = Status::ok;
    std::string payload;
    auto start = std::chrono::steady_clock::now();
    try {
      // The worker has the templates in its own copy of the library.
      std::vector<char> cubin =
          compile_kernel_source(request.source, request.name, request.arch, request.options);
      payload.assign(cubin.begin(), cubin.end());
    } catch (const CompileError& error) {
      status = Status::compile_error;
      payload = error.log();
    } catch (const std::exception& error) {
      status = Status::failure;
      payload = error.what();
    }
    auto micros = std::uint64_t(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    if (!write_word(out_fd, std::uint64_t(status)) || !write_word(out_fd, micros) ||
        !write_blob(out_fd, payload)) {
      return 1;
    }
  }
}

}  // namespace lazy::jit
