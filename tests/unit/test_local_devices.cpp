// The machines people run models on at home: consumer NVIDIA GPUs, Apple silicon on
// unified memory and CPU sockets (hardware/device_family.h), as the catalog describes them.
#include <catch2/catch.hpp>

#include "config/catalog_reader.h"
#include "cost/memory_plan.h"
#include "hardware/gpu_catalog.h"
#include "cost/step_cost.h"

using namespace servesim;

TEST_CASE("local devices: the issue's devices are all in the catalog, with their family", "[catalog][local]") {
  for (const char* n : {"rtx-3090", "rtx-4090", "rtx-5090", "dgx-spark"}) {
    INFO(n);
    CHECK(load_gpu(n).family == DeviceFamily::gpu);
  }
  for (const char* n : {"apple-m1", "apple-m1-pro", "apple-m1-max", "apple-m1-ultra", "apple-m2", "apple-m2-pro",
                        "apple-m2-max", "apple-m2-ultra", "apple-m3", "apple-m3-pro", "apple-m3-max", "apple-m3-ultra",
                        "apple-m4", "apple-m4-pro", "apple-m4-max"}) {
    INFO(n);
    const GpuSpec g = load_gpu(n);
    CHECK(g.family == DeviceFamily::apple_gpu);
    // No separate FP16 matrix rate on these chips: the fp16 peak is the fp32 one.
    CHECK(g.peak(DType::fp16) == g.peak(DType::fp32));
    CHECK(g.usable_memory_fraction < 1.0);
  }
  for (const char* n : {"cpu-epyc-9654", "cpu-xeon-8480"}) {
    INFO(n);
    CHECK(load_gpu(n).family == DeviceFamily::cpu);
  }
}

TEST_CASE("local devices: a CPU socket's peaks come from its cores, clock and units", "[catalog][local]") {
  const GpuSpec epyc = load_gpu("cpu-epyc-9654");
  // 96 cores x 3.55 GHz = 340.8e9 core-cycles/s; x 32 FP32 FLOP = 10.906 TFLOP/s, x 64 bf16 = 21.8,
  // x 128 int8 = 43.6 TOP/s; fp16 without AVX512-FP16 runs at the FP32 rate.
  CHECK(epyc.peak(DType::fp32) == Approx(96 * 3.55e9 * 32).epsilon(1e-12));
  CHECK(epyc.peak(DType::fp16) == Approx(96 * 3.55e9 * 32).epsilon(1e-12));
  CHECK(epyc.peak(DType::bf16) == Approx(96 * 3.55e9 * 64).epsilon(1e-12));
  CHECK(epyc.peak(DType::int8) == Approx(96 * 3.55e9 * 128).epsilon(1e-12));
  // 12 channels x 4800 MT/s x 8 bytes = 460.8 GB/s, the file's bandwidth.
  CHECK(epyc.cpu.socket_bandwidth() == Approx(460.8e9).epsilon(1e-12));
  CHECK(epyc.memory_bandwidth == Approx(460.8e9).epsilon(1e-12));
  CHECK(epyc.cpu.matrix_int8_ops() == 0.0);

  const GpuSpec xeon = load_gpu("cpu-xeon-8480");
  // AMX: 56 cores x 3.0 GHz x 1024 bf16 FLOP = 172 TFLOP/s, x 2048 int8 = 344 TOP/s; the vector
  // units' int8 (VNNI, 256 per cycle) stay 43 TOP/s for the types llama.cpp does not repack for AMX.
  CHECK(xeon.peak(DType::bf16) == Approx(56 * 3.0e9 * 1024).epsilon(1e-12));
  CHECK(xeon.peak(DType::int8) == Approx(56 * 3.0e9 * 2048).epsilon(1e-12));
  CHECK(xeon.cpu.vector_int8_ops() == Approx(56 * 3.0e9 * 256).epsilon(1e-12));
  CHECK(xeon.peak(DType::fp16) == Approx(56 * 3.0e9 * 128).epsilon(1e-12));
  CHECK(xeon.memory_bandwidth == Approx(8 * 4800e6 * 8).epsilon(1e-12));
}

TEST_CASE("local devices: unified memory keeps the OS's share out of the memory plan", "[catalog][local][memory]") {
  // M2 Ultra with 192 GiB: macOS lets the GPU wire 3/4 of it, 144 GiB; the planner's capacity
  // is that, and its budget that times gpu_memory_utilization.
  const GpuSpec g = load_gpu("apple-m2-ultra");
  CHECK(g.memory_capacity == 192.0 * (1ull << 30));
  CHECK(g.usable_memory() == Approx(144.0 * (1ull << 30)).epsilon(1e-12));
  ModelSpec m = load_model("llama-2-7b");
  const ResolvedPrecision p = resolve_precision(PrecisionSpec{DType::fp16, DType::fp16, DType::fp16}, g);
  const CostModel cost(g, m, p, Parallelism{});
  MemoryConfig cfg;
  cfg.gpu_memory_utilization = 0.5;
  const MemoryPlan plan = plan_memory(cost, cfg);
  CHECK(plan.capacity == Approx(144.0 * (1ull << 30)).epsilon(1e-12));
  CHECK(plan.budget == Approx(72.0 * (1ull << 30)).epsilon(1e-12));
  // A GPU's own memory is all usable: the H100's plan capacity is its memory.
  const GpuSpec h100 = load_gpu("h100-sxm");
  CHECK(h100.usable_memory() == h100.memory_capacity);
}
