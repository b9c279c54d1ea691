// Single-threaded GFLOPS of Debian's compute libraries on the shapes of the
// models issue #52 targets (an MLP 784-512-256-10 and a ResNet-18-shaped CNN
// at 224x224), to choose the library the `eigen.*` kernels compute with
// (docs/performance.md, "Compute libraries"). One thread each: the runtime
// splits a large kernel over its own work-queue threads and calls the
// library on each part, so a library's speed on one thread is what counts
// (its own thread pool would fight the executor's).
//
//   gemm  C[M, N] = A[M, K] B[K, N], row-major: Eigen 3.4 (a mapped matrix
//         product), OpenBLAS 0.3.21 (cblas_sgemm), oneDNN 2.6 (dnnl_sgemm),
//         XNNPACK (fully connected, its weights packed once when the
//         operator is made, as a model's are).
//   conv  NHWC input, HWIO filter, "same" padding: oneDNN's convolution
//         primitive, XNNPACK's convolution operator, and im2col followed by
//         OpenBLAS's and Eigen's GEMM.
//
// Prints one line per (operation, shape, library): the median of `rounds`
// timed calls and GFLOPS from it. Build and run: benchmarks/compute/run.sh.
#include <cblas.h>
#include <xnnpack.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

namespace {

double MedianSeconds(const std::function<void()>& call, int rounds) {
  call();  // warm-up: packing, first-touch, caches
  std::vector<double> times;
  for (int i = 0; i < rounds; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> Random(size_t count, std::mt19937& generator) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(generator);
  return values;
}

void Report(const char* operation, const std::string& shape, const char* library,
            double seconds, double flops) {
  std::printf("%-4s %-28s %-16s %10.1f us %8.2f GFLOPS\n", operation, shape.c_str(), library,
              seconds * 1e6, flops / seconds / 1e9);
}

struct Gemm {
  int m, k, n;
  const char* what;
};

void BenchmarkGemm(const Gemm& g, int rounds, std::mt19937& generator) {
  const std::vector<float> a = Random(size_t(g.m) * g.k, generator);
  const std::vector<float> b = Random(size_t(g.k) * g.n, generator);
  std::vector<float> c(size_t(g.m) * g.n);
  const double flops = 2.0 * g.m * g.k * g.n;
  const std::string shape = std::to_string(g.m) + "x" + std::to_string(g.k) + "x" +
                            std::to_string(g.n) + " " + g.what;
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMajor> ea(a.data(), g.m, g.k);
  Eigen::Map<const RowMajor> eb(b.data(), g.k, g.n);
  Eigen::Map<RowMajor> ec(c.data(), g.m, g.n);
  Report("gemm", shape, "eigen",
         MedianSeconds([&] { ec.noalias() = ea * eb; }, rounds), flops);
  Report("gemm", shape, "openblas", MedianSeconds([&] {
           cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g.m, g.n, g.k, 1.0f, a.data(),
                       g.k, b.data(), g.n, 0.0f, c.data(), g.n);
         }, rounds), flops);
  Report("gemm", shape, "onednn", MedianSeconds([&] {
           dnnl_sgemm('N', 'N', g.m, g.n, g.k, 1.0f, a.data(), g.k, b.data(), g.n, 0.0f,
                      c.data(), g.n);
         }, rounds), flops);
  // XNNPACK's fully connected operator takes weights [N, K].
  std::vector<float> weights(size_t(g.n) * g.k);
  for (int i = 0; i < g.k; ++i) {
    for (int j = 0; j < g.n; ++j) weights[size_t(j) * g.k + i] = b[size_t(i) * g.n + j];
  }
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_f32(g.k, g.n, g.k, g.n, weights.data(), nullptr,
                                        -INFINITY, INFINITY, 0, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, g.m, a.data(), c.data(), nullptr) !=
          xnn_status_success) {
    std::fprintf(stderr, "xnnpack: fully connected %s failed\n", shape.c_str());
    std::exit(1);
  }
  Report("gemm", shape, "xnnpack", MedianSeconds([&] { xnn_run_operator(op, nullptr); }, rounds),
         flops);
  xnn_delete_operator(op);
}

struct Conv {
  int batch, size, in_channels, kernel, stride, out_channels;
  const char* what;
};

void BenchmarkConv(const Conv& v, int rounds, std::mt19937& generator) {
  const int out_size = (v.size + v.stride - 1) / v.stride;
  const int needed = std::max(0, (out_size - 1) * v.stride + v.kernel - v.size);
  const int before = needed / 2, after = needed - before;
  const std::vector<float> input = Random(size_t(v.batch) * v.size * v.size * v.in_channels, generator);
  const std::vector<float> filter =  // HWIO
      Random(size_t(v.kernel) * v.kernel * v.in_channels * v.out_channels, generator);
  std::vector<float> output(size_t(v.batch) * out_size * out_size * v.out_channels);
  const double flops = 2.0 * v.batch * out_size * out_size * v.out_channels * v.kernel *
                       v.kernel * v.in_channels;
  const std::string shape = std::to_string(v.batch) + "x" + std::to_string(v.size) + "x" +
                            std::to_string(v.size) + "x" + std::to_string(v.in_channels) + " k" +
                            std::to_string(v.kernel) + "s" + std::to_string(v.stride) + " o" +
                            std::to_string(v.out_channels) + " " + v.what;

  // im2col: rows are output positions, columns (kh, kw, ic), as the HWIO
  // filter's rows; then one GEMM [positions, K] x [K, OC].
  const int k = v.kernel * v.kernel * v.in_channels;
  const int positions = v.batch * out_size * out_size;
  std::vector<float> columns(size_t(positions) * k);
  auto im2col = [&] {
    float* row = columns.data();
    for (int n = 0; n < v.batch; ++n) {
      for (int oh = 0; oh < out_size; ++oh) {
        for (int ow = 0; ow < out_size; ++ow) {
          for (int kh = 0; kh < v.kernel; ++kh) {
            const int h = oh * v.stride + kh - before;
            for (int kw = 0; kw < v.kernel; ++kw) {
              const int w = ow * v.stride + kw - before;
              if (h < 0 || h >= v.size || w < 0 || w >= v.size) {
                std::fill_n(row, v.in_channels, 0.0f);
              } else {
                std::copy_n(input.data() + ((size_t(n) * v.size + h) * v.size + w) * v.in_channels,
                            v.in_channels, row);
              }
              row += v.in_channels;
            }
          }
        }
      }
    }
  };
  Report("conv", shape, "im2col+openblas", MedianSeconds([&] {
           im2col();
           cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, positions, v.out_channels, k,
                       1.0f, columns.data(), k, filter.data(), v.out_channels, 0.0f,
                       output.data(), v.out_channels);
         }, rounds), flops);
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMajor> ecol(columns.data(), positions, k);
  Eigen::Map<const RowMajor> efilter(filter.data(), k, v.out_channels);
  Eigen::Map<RowMajor> eout(output.data(), positions, v.out_channels);
  Report("conv", shape, "im2col+eigen", MedianSeconds([&] {
           im2col();
           eout.noalias() = ecol * efilter;
         }, rounds), flops);

  // oneDNN: NHWC activations, HWIO weights, the primitive picks its layout
  // for the weights (reordered once, as a model's are).
  {
    using namespace dnnl;
    engine cpu(engine::kind::cpu, 0);
    stream s(cpu);
    memory::dims src_dims = {v.batch, v.in_channels, v.size, v.size};
    memory::dims weight_dims = {v.out_channels, v.in_channels, v.kernel, v.kernel};
    memory::dims dst_dims = {v.batch, v.out_channels, out_size, out_size};
    auto src_md = memory::desc(src_dims, memory::data_type::f32, memory::format_tag::nhwc);
    auto dst_md = memory::desc(dst_dims, memory::data_type::f32, memory::format_tag::nhwc);
    auto user_weight_md = memory::desc(weight_dims, memory::data_type::f32, memory::format_tag::hwio);
    auto any_weight_md = memory::desc(weight_dims, memory::data_type::f32, memory::format_tag::any);
    auto descriptor = convolution_forward::desc(
        prop_kind::forward_inference, algorithm::convolution_direct, src_md, any_weight_md, dst_md,
        {v.stride, v.stride}, {before, before}, {after, after});
    auto primitive_descriptor = convolution_forward::primitive_desc(descriptor, cpu);
    memory src(src_md, cpu, const_cast<float*>(input.data()));
    memory dst(dst_md, cpu, output.data());
    memory user_weights(user_weight_md, cpu, const_cast<float*>(filter.data()));
    memory weights(primitive_descriptor.weights_desc(), cpu);
    reorder(user_weights, weights).execute(s, user_weights, weights);
    convolution_forward conv(primitive_descriptor);
    Report("conv", shape, "onednn", MedianSeconds([&] {
             conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
             s.wait();
           }, rounds), flops);
  }

  // XNNPACK: weights [OC, KH, KW, IC].
  std::vector<float> ohwi(filter.size());
  for (int kh = 0; kh < v.kernel; ++kh)
    for (int kw = 0; kw < v.kernel; ++kw)
      for (int ic = 0; ic < v.in_channels; ++ic)
        for (int oc = 0; oc < v.out_channels; ++oc)
          ohwi[((size_t(oc) * v.kernel + kh) * v.kernel + kw) * v.in_channels + ic] =
              filter[((size_t(kh) * v.kernel + kw) * v.in_channels + ic) * v.out_channels + oc];
  xnn_operator_t op = nullptr;
  if (xnn_create_convolution2d_nhwc_f32(before, after, after, before, v.kernel, v.kernel, v.stride,
                                        v.stride, 1, 1, 1, v.in_channels, v.out_channels,
                                        v.in_channels, v.out_channels, ohwi.data(), nullptr,
                                        -INFINITY, INFINITY, 0, &op) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_f32(op, v.batch, v.size, v.size, input.data(), output.data(),
                                       nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnnpack: convolution %s failed\n", shape.c_str());
    std::exit(1);
  }
  Report("conv", shape, "xnnpack", MedianSeconds([&] { xnn_run_operator(op, nullptr); }, rounds),
         flops);
  xnn_delete_operator(op);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  openblas_set_num_threads(1);
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnnpack: xnn_initialize failed\n");
    return 1;
  }
  std::mt19937 generator(52);
  const Gemm gemms[] = {
      {1, 784, 512, "mlp1 b1"},   {1, 512, 256, "mlp2 b1"},   {1, 256, 10, "mlp3 b1"},
      {8, 784, 512, "mlp1 b8"},   {8, 512, 256, "mlp2 b8"},   {8, 256, 10, "mlp3 b8"},
      {1, 512, 1000, "resnet fc b1"}, {8, 512, 1000, "resnet fc b8"},
      {3136, 576, 64, "layer1 im2col"}, {196, 2304, 256, "layer3 im2col"},
  };
  for (const Gemm& g : gemms) BenchmarkGemm(g, rounds, generator);
  const Conv convs[] = {
      {1, 224, 3, 7, 2, 64, "conv1"},   {1, 56, 64, 3, 1, 64, "layer1"},
      {1, 28, 128, 3, 1, 128, "layer2"}, {1, 14, 256, 3, 1, 256, "layer3"},
      {1, 7, 512, 3, 1, 512, "layer4"},  {1, 56, 64, 1, 2, 128, "layer2 down 1x1"},
      {8, 224, 3, 7, 2, 64, "conv1"},   {8, 56, 64, 3, 1, 64, "layer1"},
      {8, 28, 128, 3, 1, 128, "layer2"}, {8, 14, 256, 3, 1, 256, "layer3"},
      {8, 7, 512, 3, 1, 512, "layer4"},  {8, 56, 64, 1, 2, 128, "layer2 down 1x1"},
  };
  for (const Conv& c : convs) BenchmarkConv(c, rounds, generator);
  return 0;
}
