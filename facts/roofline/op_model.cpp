#include "facts/roofline/op_model.h"

#include <algorithm>
#include <charconv>

namespace npu::roofline {

namespace {

double elems(const Shape& s) {
  double n = 1;
  for (int64_t d : s) n *= static_cast<double>(d);
  return n;
}

OpWork refuse(std::string why) {
  OpWork w;
  w.why = std::move(why);
  return w;
}

std::string dims_text(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

// The first input whose type is a floating (or int8) tensor type: the operands' element.
void operand_type(const std::vector<std::string>& types, OpWork* w) {
  for (const auto& t : types) {
    const std::string c = dtype_class(t);
    if (c.empty()) continue;
    w->dtype = c;
    w->elem_bytes = dtype_bytes(t);
    return;
  }
}

// A GEMM of `batch` products [M,K] x [K,N]; `extra` elements read besides the operands (a bias).
OpWork gemm(double batch, int64_t m, int64_t k, int64_t n, double extra, int es) {
  OpWork w;
  w.modelled = true;
  w.kind = "gemm";
  w.flops = 2.0 * batch * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  w.bytes = es * (batch * (static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n) + extra);
  return w;
}

OpWork bytes_only(const std::vector<Shape>& in, const std::vector<Shape>& out, const std::vector<std::string>& in_types,
                  const std::vector<std::string>& out_types) {
  OpWork w;
  for (size_t i = 0; i < in.size(); ++i) {
    const int es = i < in_types.size() ? dtype_bytes(in_types[i]) : 0;
    if (!in[i].empty() && es == 0) return refuse("input " + std::to_string(i) + " has no known element size");
    w.bytes += es * elems(in[i]);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const int es = i < out_types.size() ? dtype_bytes(out_types[i]) : 0;
    if (!out[i].empty() && es == 0) return refuse("output " + std::to_string(i) + " has no known element size");
    w.bytes += es * elems(out[i]);
  }
  w.modelled = w.bytes > 0;
  if (!w.modelled) w.why = "no tensor shapes recorded";
  w.kind = "bytes_only";
  return w;
}

// torch matmul-like products: A[..., M, K] x B[..., K, N] (batch dims of A; B 2-D or batched alike).
OpWork torch_product(const Shape& a, const Shape& b, double extra, int es) {
  if (a.size() < 2 || b.size() < 2) return refuse("operands of fewer than 2 dims " + dims_text(a) + " x " + dims_text(b));
  const int64_t k = a.back(), m = a[a.size() - 2];
  const int64_t kb = b[b.size() - 2], n = b.back();
  if (k != kb) return refuse("contradictory shapes: " + dims_text(a) + " x " + dims_text(b) + " (K differs)");
  double batch = 1;
  for (size_t i = 0; i + 2 < a.size(); ++i) batch *= static_cast<double>(a[i]);
  if (b.size() > 2) {
    double bb = 1;
    for (size_t i = 0; i + 2 < b.size(); ++i) bb *= static_cast<double>(b[i]);
    if (bb != batch && bb != 1 && batch != 1)
      return refuse("contradictory shapes: batch of " + dims_text(a) + " and " + dims_text(b) + " differ");
    batch = std::max(batch, bb);
  }
  return gemm(batch, m, k, n, extra, es);
}

bool is_bytes_only_torch(std::string_view n) {
  static const char* kOps[] = {"aten::add",  "aten::add_",  "aten::mul",   "aten::mul_",   "aten::sub",   "aten::div",
                               "aten::gelu", "aten::relu",  "aten::silu",  "aten::copy_",  "aten::fill_", "aten::zero_",
                               "aten::gelu_backward", "aten::threshold_backward", "aten::silu_backward"};
  return std::find(std::begin(kOps), std::end(kOps), n) != std::end(kOps);
}

}  // namespace

bool parse_kineto_dims(std::string_view t, std::vector<Shape>* out) {
  out->clear();
  size_t i = 0;
  auto skip = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r')) ++i;
  };
  skip();
  if (i >= t.size() || t[i++] != '[') return false;
  for (;;) {
    skip();
    if (i < t.size() && t[i] == ']') return true;
    if (i >= t.size() || t[i++] != '[') return false;  // a nested list (TensorList) or a scalar: not read
    Shape s;
    for (;;) {
      skip();
      if (i < t.size() && t[i] == ']') break;
      int64_t v = 0;
      auto [p, ec] = std::from_chars(t.data() + i, t.data() + t.size(), v);
      if (ec != std::errc() || v < 0) return false;
      s.push_back(v);
      i = static_cast<size_t>(p - t.data());
      skip();
      if (i < t.size() && t[i] == ',') ++i;
    }
    ++i;
    out->push_back(std::move(s));
    skip();
    if (i < t.size() && t[i] == ',') ++i;
  }
}

std::vector<std::string> parse_kineto_types(std::string_view t) {
  std::vector<std::string> out;
  size_t i = 0;
  while ((i = t.find('"', i)) != std::string_view::npos) {
    const size_t j = t.find('"', i + 1);
    if (j == std::string_view::npos) break;
    out.emplace_back(t.substr(i + 1, j - i - 1));
    i = j + 1;
  }
  return out;
}

std::vector<std::string> split_list(std::string_view t, char sep) {
  std::vector<std::string> out;
  if (!t.empty() && t.front() == '"') t.remove_prefix(1);
  if (!t.empty() && t.back() == '"') t.remove_suffix(1);
  if (t.empty()) return out;
  size_t start = 0;
  for (size_t i = 0; i <= t.size(); ++i)
    if (i == t.size() || t[i] == sep) {
      out.emplace_back(t.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

bool parse_ascend_shapes(std::string_view t, std::vector<Shape>* out) {
  out->clear();
  for (const std::string& part : split_list(t, ';')) {
    Shape s;
    for (const std::string& d : split_list(part, ',')) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
      if (ec != std::errc() || p != d.data() + d.size() || v < 0) return false;
      s.push_back(v);
    }
    out->push_back(std::move(s));
  }
  return true;
}

int dtype_bytes(std::string_view t) {
  if (t == "c10::BFloat16" || t == "c10::Half" || t == "FLOAT16" || t == "BF16" || t == "DT_BF16" || t == "short int")
    return 2;
  if (t == "float" || t == "FLOAT" || t == "int" || t == "INT32" || t == "UINT32") return 4;
  if (t == "double" || t == "DOUBLE" || t == "long int" || t == "INT64" || t == "UINT64") return 8;
  if (t.find("Float8") != std::string_view::npos || t == "signed char" || t == "unsigned char" || t == "bool" ||
      t == "INT8" || t == "UINT8" || t == "BOOL" || t == "HIFLOAT8" || t == "FLOAT8_E4M3FN" || t == "FLOAT8_E5M2")
    return 1;
  return 0;
}

std::string dtype_class(std::string_view t) {
  if (t == "c10::BFloat16" || t == "BF16" || t == "DT_BF16") return "bf16";
  if (t == "c10::Half" || t == "FLOAT16") return "fp16";
  if (t == "float" || t == "FLOAT") return "fp32";
  if (t.find("Float8") != std::string_view::npos || t.rfind("FLOAT8", 0) == 0 || t == "HIFLOAT8") return "fp8";
  if (t == "signed char" || t == "INT8") return "int8";
  return "";
}

OpWork model_torch_op(std::string_view name, const std::vector<Shape>& in, const std::vector<std::string>& types) {
  OpWork type;
  operand_type(types, &type);
  const int es = type.elem_bytes;
  auto done = [&](OpWork w) {
    if (w.modelled) {
      w.dtype = type.dtype;
      w.elem_bytes = es;
    }
    return w;
  };
  const bool gemm_op = name == "aten::mm" || name == "aten::bmm" || name == "aten::matmul" || name == "aten::addmm" ||
                       name == "aten::baddbmm" || name == "aten::linear";
  if (gemm_op && es == 0) return refuse("no floating operand type recorded");
  if (name == "aten::mm" || name == "aten::bmm" || name == "aten::matmul") {
    if (in.size() < 2) return refuse("fewer than 2 inputs recorded");
    return done(torch_product(in[0], in[1], 0, es));
  }
  if (name == "aten::addmm" || name == "aten::baddbmm") {
    if (in.size() < 3) return refuse("fewer than 3 inputs recorded");
    return done(torch_product(in[1], in[2], elems(in[0]), es));
  }
  if (name == "aten::linear") {
    if (in.size() < 2 || in[1].size() != 2 || in[0].empty()) return refuse("linear without [.., K] x [N, K] inputs");
    const Shape& x = in[0];
    if (x.back() != in[1][1])
      return refuse("contradictory shapes: " + dims_text(x) + " and weight " + dims_text(in[1]) + " (K differs)");
    double rows = 1;
    for (size_t i = 0; i + 1 < x.size(); ++i) rows *= static_cast<double>(x[i]);
    const double bias = in.size() > 2 ? elems(in[2]) : 0;
    OpWork w = gemm(1, 1, x.back(), in[1][0], bias, es);
    w.flops *= rows;
    w.bytes = es * (rows * static_cast<double>(x.back()) + elems(in[1]) + rows * static_cast<double>(in[1][0]) + bias);
    return done(w);
  }
  if (is_bytes_only_torch(name)) {
    // Elementwise: inputs read, one output of the largest input's size written.
    std::vector<Shape> out;
    const Shape* largest = nullptr;
    for (const Shape& s : in)
      if (!s.empty() && (!largest || elems(s) > elems(*largest))) largest = &s;
    if (largest) out.push_back(*largest);
    std::vector<std::string> tensor_types;
    for (size_t i = 0; i < in.size(); ++i) tensor_types.push_back(i < types.size() ? types[i] : "");
    return done(bytes_only(in, out, tensor_types, {types.empty() ? "" : types[0]}));
  }
  return refuse("op without a model");
}

namespace {

// Ascend MatMulV2/V3 and BatchMatMul: M and N from the output, K from A's elements (transposes are
// not recorded); B must hold K x N. ND formats only.
OpWork ascend_matmul(const std::vector<Shape>& in, const std::vector<Shape>& out, int es) {
  if (in.size() < 2 || out.empty() || in[0].size() < 2 || out[0].size() < 2)
    return refuse("matmul without two operands and an output of >= 2 dims");
  const Shape& o = out[0];
  const int64_t m = o[o.size() - 2], n = o.back();
  double batch = 1;
  for (size_t i = 0; i + 2 < o.size(); ++i) batch *= static_cast<double>(o[i]);
  double batch_a = 1;
  for (size_t i = 0; i + 2 < in[0].size(); ++i) batch_a *= static_cast<double>(in[0][i]);
  const Shape& a = in[0];
  const int64_t a0 = a[a.size() - 2], a1 = a.back();
  if (a0 != m && a1 != m) return refuse("contradictory shapes: A " + dims_text(a) + " holds no M of output " + dims_text(o));
  const int64_t k = a0 == m ? a1 : a0;
  const Shape& b = in[1];
  const int64_t b0 = b[b.size() - 2], b1 = b.back();
  if (!((b0 == k && b1 == n) || (b0 == n && b1 == k)))
    return refuse("contradictory shapes: B " + dims_text(b) + " is not K x N = " + std::to_string(k) + " x " +
                  std::to_string(n));
  const double bias = in.size() > 2 ? elems(in[2]) : 0;
  OpWork w = gemm(batch, m, k, n, bias, es);
  w.bytes = es * (batch_a * m * static_cast<double>(k) + elems(b) + batch * m * static_cast<double>(n) + bias);
  return w;
}

// Ascend convolutions, their weights in FRACTAL_Z (C1*KH*KW, Cout/16, 16, C0) and activations in
// 5HD (N, C1, H, W, C0): FLOPs = 2 x N x Ho x Wo x the weight's elements (C0 and Cout padding
// included). Ho, Wo: the forward output (Conv2D's output, the backprops' out_backprop).
OpWork ascend_conv(std::string_view type, const std::vector<Shape>& in, const std::vector<Shape>& out,
                   const std::vector<std::string>& formats) {
  const Shape* weight = nullptr;
  const Shape* y = nullptr;  // the forward output (5HD)
  auto fmt = [&](size_t i) { return i < formats.size() ? formats[i] : std::string(); };
  if (type.rfind("Conv2DBackpropFilter", 0) == 0) {
    if (in.size() < 3 || out.empty()) return refuse("backprop filter without x, sizes, dy and dw");
    weight = &out[0];
    y = &in[2];
  } else if (type.rfind("Conv2DBackpropInput", 0) == 0) {
    if (in.size() < 3) return refuse("backprop input without sizes, w and dy");
    weight = &in[1];
    y = &in[2];
    if (fmt(1) != "FRACTAL_Z") return refuse("weight format " + fmt(1) + ", not FRACTAL_Z");
  } else {
    if (in.size() < 2 || out.empty()) return refuse("conv without x, w and y");
    weight = &in[1];
    y = &out[0];
    if (fmt(1) != "FRACTAL_Z") return refuse("weight format " + fmt(1) + ", not FRACTAL_Z");
  }
  if (weight->size() != 4 || y->size() != 5)
    return refuse("conv shapes not FRACTAL_Z (4 dims) and 5HD (5 dims): " + dims_text(*weight) + ", " + dims_text(*y));
  const double cout_w = static_cast<double>((*weight)[1]) * static_cast<double>((*weight)[2]);
  const double cout_y = static_cast<double>((*y)[1]) * static_cast<double>((*y)[4]);
  if (cout_y > cout_w || cout_w - cout_y >= 16)
    return refuse("contradictory shapes: weight " + dims_text(*weight) + " has " + std::to_string(int64_t(cout_w)) +
                  " output channels, the output " + dims_text(*y) + " " + std::to_string(int64_t(cout_y)));
  OpWork w;
  w.modelled = true;
  w.kind = "conv";
  w.flops = 2.0 * static_cast<double>((*y)[0]) * static_cast<double>((*y)[2]) * static_cast<double>((*y)[3]) * elems(*weight);
  return w;
}

bool is_bytes_only_ascend(std::string_view t) {
  static const char* kTypes[] = {"TransData", "Cast",  "TensorMove", "Mul",     "Add",       "Sub",       "RealDiv",
                                 "Relu",      "ReluGrad", "Gelu",    "GeluGrad", "Transpose", "Muls",     "Adds",
                                 "Axpy",      "AddN",  "BroadcastTo", "Fill",   "OnesLike",  "ZerosLike", "Div",
                                 "Exp",       "Sqrt",  "Neg",        "Square",  "FastGelu",  "FastGeluGrad", "SiLU"};
  return std::find(std::begin(kTypes), std::end(kTypes), t) != std::end(kTypes);
}

}  // namespace

OpWork model_ascend_op(std::string_view type, const std::vector<Shape>& in, const std::vector<Shape>& out,
                       const std::vector<std::string>& in_types, const std::vector<std::string>& out_types,
                       const std::vector<std::string>& in_formats) {
  OpWork t;
  operand_type(in_types, &t);
  if (in.empty() && out.empty()) return refuse("no shapes recorded");
  for (const auto& f : in_formats)
    if (f.find("NZ") != std::string::npos && type.find("MatMul") != std::string_view::npos)
      return refuse("FRACTAL_NZ operands: no model of their padded shapes yet");
  OpWork w;
  if (type == "MatMulV2" || type == "MatMulV3" || type == "MatMul" || type == "BatchMatMul" || type == "BatchMatMulV2" ||
      type == "BatchMatMulV3") {
    if (t.elem_bytes == 0) return refuse("no floating operand type recorded");
    w = ascend_matmul(in, out, t.elem_bytes);
  } else if (type.rfind("Conv2D", 0) == 0) {
    w = ascend_conv(type, in, out, in_formats);
    if (w.modelled) {
      const OpWork b = bytes_only(in, out, in_types, out_types);
      if (!b.modelled) return b;
      w.bytes = b.bytes;
      // The operand type of a backprop input is its second input (the first is the sizes).
      OpWork ft;
      std::vector<std::string> floats;
      for (const auto& s : in_types)
        if (!dtype_class(s).empty()) floats.push_back(s);
      operand_type(floats, &ft);
      t = ft;
    }
  } else if (is_bytes_only_ascend(type)) {
    w = bytes_only(in, out, in_types, out_types);
  } else {
    return refuse("op without a model");
  }
  if (w.modelled) {
    w.dtype = t.dtype;
    w.elem_bytes = t.elem_bytes;
  }
  return w;
}

}  // namespace npu::roofline
