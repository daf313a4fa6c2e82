// NVRTC compiles in worker processes. Within one process, NVRTC runs compiles partly serialized
// (two at once took 1.5 to 2 times one on the H100 machine), so a cold start that needs many
// kernels spreads them over processes.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/hash.h"

namespace lazy::jit {

struct CompileRequest {
  std::string name;
  std::string source;
  int arch;
  std::vector<std::string> options;
};

struct CompileResult {
  bool ok = false;
  std::vector<char> cubin;
  std::string log;     // NVRTC's log (or why the worker failed) when not ok
  double seconds = 0;  // the compile alone, in the worker
};

// Below this many kernels to compile, starting processes costs more than it saves.
inline constexpr std::size_t kMinKernelsForWorkers = 4;

// The worker program: LAZY_NVRTC_WORKER, else lazyfuse-nvrtc-worker beside liblazyfuse, in
// ../bin from it, or in tools/ of a build tree; empty when none is found.
std::string find_worker_program();

// A worker process and the socket to it (its stdin and stdout).
struct Worker {
  int pid = -1;
  int socket = -1;  // -1 once it has stopped answering
};

// Worker processes kept for the life of the program, each warming NVRTC up as it starts. The
// device starts a few while CUDA initialises (runtime::start_compile_workers), so that a cold
// start's first syncs find them warm; more start when a sync has many kernels to compile.
class WorkerPool {
 public:
  // The process's pool, running find_worker_program().
  static WorkerPool& instance();
  // A pool of its own running `program` (tests give it a program that is not a worker, or a
  // build other than this library's: `build`, which each request names).
  explicit WorkerPool(std::string program, ir::Hash128 build = this_build())
      : program_(std::move(program)), build_(build) {}
  // What a worker must have been built from to compile for this library: its templates, which
  // every kernel includes (a worker of another lazyfuse would compile other code).
  static ir::Hash128 this_build();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool();

  // Starts workers until `count` run (no more if the worker program is missing).
  void start(std::size_t count);
  // Workers started and still answering; takes no lock, so a sync asks while another compiles.
  std::size_t running() const { return running_.load(); }
  // Compiles every request on up to `max_workers` workers; nothing when none could start.
  std::optional<std::vector<CompileResult>> compile(std::span<const CompileRequest> requests,
                                                    std::size_t max_workers);

 private:
  // Sends the worker the next unserved request (counted by `next`) until none is left. A worker
  // that stops answering fails the requests it takes.
  void serve_worker(Worker& worker, std::atomic<std::size_t>& next,
                    std::span<const CompileRequest> requests, std::vector<CompileResult>& results);
  // Closes a worker's pipe and reaps it (killing it first when `stuck`): it is not used again.
  void retire_worker(Worker& worker, bool stuck);

  std::mutex mutex_;
  std::string program_;
  ir::Hash128 build_;
  std::vector<Worker> workers_;
  std::atomic<std::size_t> running_{0};
};

// Compiles every request in up to `max_workers` worker processes; nothing when no worker could
// be started (the caller compiles in-process then). A request that fails to compile comes back
// not ok.
std::optional<std::vector<CompileResult>> compile_in_workers(
    std::span<const CompileRequest> requests, std::size_t max_workers);

// The worker's side: reads requests from in_fd, answers on out_fd, until in_fd closes or a
// request names another build (answered as such, then the worker exits).
int serve_compile_requests(int in_fd, int out_fd);

}  // namespace lazy::jit
