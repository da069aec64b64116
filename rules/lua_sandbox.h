// A sandboxed Lua 5.4 state for one rule: only base (minus load/dofile/require/...),
// string, table, math and utf8; a memory budget (custom allocator), an instruction budget
// and a wall-clock budget (count hook). Exceeding a budget ABORTS the rule: pcall/xpcall are
// replaced by versions that re-raise once the state is aborted, and the hook then fires at
// every instruction, so a rule cannot catch its way past a limit. Library calls that run
// long inside C (pattern matching, string.rep, table.move) are bounded by rules/lua_limits.cpp.
// Rules see facts as read-only tables: lazy views of the one shared C++ document
// (push_view), converted only where a rule reads.
#pragma once
#include <atomic>
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

struct lua_State;
struct lua_Debug;

namespace npu {

struct SandboxLimits {
  size_t memory_bytes = size_t{64} << 20;  // per rule
  long long instructions = 200'000'000;    // per rule phase (load, check)
  long long wall_ms = 20'000;              // per rule phase (load, check)
  size_t output_bytes = size_t{16} << 20;  // what the rule hands back (emit, rule{}), converted
  size_t findings = 1000;                  // findings kept per rule; more are counted, not kept
  size_t print_bytes = size_t{64} << 10;   // print() output (to stderr) per rule
  // All rules of a command together (gate and compare run them on both sides): the time spent
  // in Lua by every sandbox that counts into `total_spent_ms`; null: the process's own counter.
  long long total_wall_ms = 40'000;
  std::atomic<long long>* total_spent_ms = nullptr;
};

class LuaSandbox {
 public:
  explicit LuaSandbox(const SandboxLimits& limits = {});
  ~LuaSandbox();
  LuaSandbox(const LuaSandbox&) = delete;
  LuaSandbox& operator=(const LuaSandbox&) = delete;

  lua_State* L() const { return L_; }

  // Runs a chunk; on error returns false and sets error() to "file:line: message".
  bool run_chunk(const std::string& code, const std::string& chunk_name);
  // Calls the function on the stack top with nargs arguments below it (lua_pcall with a
  // traceback-free message handler). Returns false and sets error() on failure.
  bool call(int nargs, int nresults);
  const std::string& error() const { return error_; }

  // The sandbox of a state made by this class.
  static LuaSandbox* of(lua_State* L);

  // Pushes a lazy read-only view of `j`: objects and arrays become empty proxy tables whose
  // metatable reads from the C++ node when a key is indexed (arrays 1-based; a child object or
  // array is itself a view, created on first read and cached per state while referenced, so
  // `facts.x == facts.x`); scalars are pushed as values. `j` is NOT copied: it must stay alive
  // and unchanged as long as this state exists. Views support __index, __len, __pairs, next()
  // (the sandbox's next is view-aware), ipairs, table.concat/unpack; writes raise "facts are
  // read-only". The Lua objects a view creates are charged to the rule's memory budget.
  void push_view(const nlohmann::json& j);
  // Converts the Lua value at `index` to JSON (rules/lua_convert.h: tables with keys 1..n
  // become arrays, depth/cycle/size limits, UTF-8 repaired), charged to the output budget. A
  // view converts as the equivalent copied table would (an empty array becomes {}, nulls drop
  // out). On a refusal returns false and sets error(). Raises no Lua error.
  bool to_json(int index, nlohmann::json& out);

  // Resets the instruction counter and the clock (each rule phase gets the full budget).
  void reset_budget();
  // Aborts the rule: records `why` (with the Lua position), makes every later instruction
  // fail, and raises it. pcall/xpcall in the sandbox re-raise it. Does not return.
  [[noreturn]] void abort_rule(lua_State* L, const char* why);
  bool aborted() const { return aborted_; }
  // Aborts when the wall-clock budget is spent (called by the hook and after long C calls).
  void check_clock(lua_State* L);
  const SandboxLimits& limits() const { return limits_; }
  // print(): bytes still allowed on stderr.
  size_t& print_left() { return print_left_; }
  // While trusted data is pushed, memory is not charged to the rule; afterwards the rule's
  // budget counts from what is in use then.
  void begin_trusted() { trusted_ = true; }
  void end_trusted() {
    trusted_ = false;
    baseline_ = used_;
  }
  // Bytes the state holds now (all allocations, trusted ones included).
  size_t memory_used() const { return used_; }

 private:
  static void* alloc(void* ud, void* ptr, size_t osize, size_t nsize);
  static void hook(lua_State* L, ::lua_Debug* ar);
  void set_error_from_stack();
  void install_views();
  void refresh_deadline();
  // Adds the time since the last refresh to the command's total (after each call into Lua).
  void account_time();
  std::atomic<long long>& total_spent() const;

  lua_State* L_ = nullptr;
  SandboxLimits limits_;
  size_t used_ = 0;
  size_t baseline_ = 0;
  bool trusted_ = false;
  long long executed_ = 0;
  bool memory_exceeded_ = false;
  bool aborted_ = false;
  std::string abort_reason_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point since_;  // start of the time not yet added to the total
  bool total_bound_ = false;                     // the deadline is the command's total budget
  size_t output_left_ = 0;
  size_t print_left_ = 0;
  std::string error_;
};

}  // namespace npu
