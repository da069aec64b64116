// Loads a trace (or run folder) and prints machine-readable figures: bytes, events,
// seconds, MB/s, events/s and peak RSS. bench/run.sh drives it over generated inputs.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/resource.h>

#include "base/load_error.h"
#include "facts/diagnostics/diagnostics.h"
#include "loaders/detect.h"
#include "loaders/run_loader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_load PATH [threads]\n");
    return 2;
  }
  npu::LoadOptions opt;
  if (argc > 2) opt.trace.threads = std::atoi(argv[2]);
  try {
    auto t0 = std::chrono::steady_clock::now();
    npu::Detection d = npu::detect_input(argv[1]);
    npu::RunModel m = npu::load_run(d, opt);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Facts over the loaded model: the analysis cost beyond the load.
    auto t1 = std::chrono::steady_clock::now();
    npu::FactsWork work;
    npu::Facts facts = npu::compute_facts(m, &work);
    double facts_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    (void)facts;
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    double mb = static_cast<double>(m.stats.trace_bytes) / 1e6;
    std::printf(
        "bytes=%llu events=%llu slices=%zu flows=%zu seconds=%.3f trace_seconds=%.3f mb_per_s=%.1f "
        "events_per_s=%.0f peak_rss_mb=%.1f facts_seconds=%.3f\n",
        static_cast<unsigned long long>(m.stats.trace_bytes), static_cast<unsigned long long>(m.stats.trace_events),
        m.slices.size(), m.flows.size(), secs, m.stats.trace_seconds, mb / secs,
        static_cast<double>(m.stats.trace_events) / secs, static_cast<double>(ru.ru_maxrss) / 1024.0, facts_secs);
    for (const auto& p : m.stats.phases)
      std::printf("  phase %-36s %.3f s  rss %.0f MB, peak %.0f MB\n", p.name.c_str(), p.seconds, p.rss_mb,
                  p.peak_rss_mb);
    for (const auto& [name, seconds] : work.pass_seconds) std::printf("  facts %-36s %.3f s\n", name.c_str(), seconds);
  } catch (const npu::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
