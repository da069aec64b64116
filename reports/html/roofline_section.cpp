// The Roofline section (facts.roofline, docs/facts-roofline.md): a log-log chart of intensity
// (FLOP/byte) against achieved FLOP/s with the device's memory roof and one compute roof per
// precision, a point per operator group sized by its time, and the groups as a table. Drawn here
// as SVG, so the page needs no script for it; id="roofline" is what other views link to.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"

namespace npu::html {

namespace {

constexpr double kW = 640, kH = 360, kPad = 48;
constexpr double kXMin = 0.1, kXMax = 1e4;  // FLOP/byte

struct Axes {
  double ymin, ymax;
  double x(double v) const { return kPad + (std::log10(v) - std::log10(kXMin)) / 5.0 * (kW - 2 * kPad); }
  double y(double v) const {
    return kH - kPad - (std::log10(v) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)) * (kH - 2 * kPad);
  }
};

std::string roofs(const json& dev, const Axes& a) {
  const double bw = num(dev, "hbm_bytes_per_s").value_or(0);
  std::string out;
  if (bw <= 0) return out;
  for (const auto& [prec, peak] : at(dev, "peak_flops_per_s").items()) {
    if (!peak.is_number() || (prec != "bf16" && prec != "fp32" && prec != "tf32" && prec != "hf32")) continue;
    const double p = peak.get<double>(), ridge = p / bw;
    out += fmt::format(
        "<polyline fill=\"none\" stroke=\"#555\" points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{} {:.0f} TFLOP/s</text>\n",
        a.x(kXMin), a.y(std::max(a.ymin, kXMin * bw)), a.x(std::clamp(ridge, kXMin, kXMax)), a.y(p), a.x(kXMax), a.y(p),
        a.x(kXMax) - 120, a.y(p) - 3, esc(prec), p / 1e12);
  }
  return out;
}

std::string chart(const json& r) {
  const json& dev = at(r, "device");
  double ymax = 1e12;
  for (const auto& [k, p] : at(dev, "peak_flops_per_s").items())
    if (p.is_number()) ymax = std::max(ymax, p.get<double>() * 2);
  Axes a{ymax / 1e6, ymax};
  std::string svg = fmt::format("<svg viewBox=\"0 0 {} {}\" width=\"{}\" role=\"img\" aria-label=\"roofline\">\n", kW,
                                kH, kW);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"11\">FLOP/byte (log)</text>"
                     "<text x=\"4\" y=\"14\" font-size=\"11\">achieved FLOP/s (log)</text>\n",
                     kW / 2 - 40, kH - 8);
  svg += roofs(dev, a);
  double total = 0;
  for (const json& g : list(r, "groups")) total += num(g, "time_ns").value_or(0);
  for (const json& g : list(r, "groups")) {
    const double i = num(g, "intensity").value_or(0), f = num(g, "achieved_flops_per_s").value_or(0);
    if (i <= 0 || f <= 0) continue;
    const double rad = 3 + 12 * std::sqrt(num(g, "time_ns").value_or(0) / std::max(1.0, total));
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.6\"><title>{} {} "
                       "({}): {:.3g} FLOP/byte, {:.3g} TFLOP/s, {}</title></circle>\n",
                       a.x(std::clamp(i, kXMin, kXMax)), a.y(std::clamp(f, a.ymin, a.ymax)), rad,
                       str(g, "bound") == "memory" ? "#2a7ab0" : "#c0504d", esc(str(g, "op")), esc(str(g, "shapes")),
                       esc(str(g, "precision")), i, f / 1e12, esc(str(g, "bound")));
  }
  return svg + "</svg>\n";
}

std::string group_table(const json& r) {
  Table t("roofline-groups", {{"op", false},
                              {"shapes", false},
                              {"precision", false},
                              {"count", true},
                              {"time (ms)", true},
                              {"FLOP/byte", true},
                              {"TFLOP/s", true},
                              {"fraction of roof", true},
                              {"bound", false},
                              {"gap (ms)", true}});
  for (const json& g : list(r, "groups")) {
    const auto f = num(g, "fraction");
    t.row({tcell(str(g, "op")), tcell(str(g, "shapes")), tcell(str(g, "precision")), count_cell(num(g, "count")),
           ms_cell(num(g, "time_ns")), ncell(num(g, "intensity"), [](double v) { return fmt::format("{:.1f}", v); }),
           ncell(num(g, "achieved_flops_per_s"), [](double v) { return fmt::format("{:.1f}", v / 1e12); }),
           f ? tcell(fmt::format("{:.2f}{}", *f, at(g, "above_roof") == true ? " (above roof)" : "")) : tcell("-"),
           tcell(str(g, "bound")), ms_cell(num(g, "gap_ns"))});
  }
  return t.html();
}

}  // namespace

std::string section_roofline(const json& report) {
  const json& r = at(at(report, "facts"), "roofline");
  if (!r.is_object()) return "";
  const json& dev = at(r, "device");
  const json& cov = at(r, "coverage");
  std::string body = "<section id=\"roofline\" class=\"card\">\n<h2>Roofline</h2>\n<p>";
  body += at(dev, "known") == true
              ? esc(str(dev, "name")) + " (" + esc(str(dev, "basis")) + "; " + esc(str(dev, "source")) + ")"
              : "device limits unknown: " + esc(str(dev, "why"));
  body += fmt::format(". Modelled: {:.0f}% of the compute time.</p>\n", 100 * num(cov, "share").value_or(0));
  body += chart(r) + group_table(r) + "</section>\n";
  return body;
}

}  // namespace npu::html
