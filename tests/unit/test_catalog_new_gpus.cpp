// The GPU catalog's Blackwell rack/Ultra parts (GB200, B300) and the enterprise PCIe cards
// (RTX PRO 6000 Blackwell, A40, L40): the datasheet figures as loaded, in SI units, with the
// arithmetic from the figures each file cites (per-rack / 72, sparse / 2, ...).
#include <catch2/catch.hpp>

#include "config/catalog_reader.h"

using namespace servesim;

TEST_CASE("gpu catalog: GB200 per GPU is the NVL72 rack figure / 72, dense", "[catalog][gpu]") {
  const GpuSpec g = load_gpu("gb200");
  CHECK(g.peak(DType::bf16) == Approx(360e15 / 72 / 2));   // 360 PF* per rack -> 2.5 PF dense
  CHECK(g.peak(DType::fp8) == Approx(720e15 / 72 / 2));    // 5 PF
  CHECK(g.peak(DType::fp4) == Approx(1440e15 / 72 / 2));   // 10 PF
  CHECK(g.memory_capacity == Approx(186e9));                // 13.4 TB / 72 = 186 GB
  CHECK(g.memory_bandwidth == Approx(576e12 / 72));         // 8 TB/s
  CHECK(g.intra_node.bandwidth == Approx(130e12 / 72 / 2).epsilon(0.01));  // 1.8 TB/s bidirectional -> 900 GB/s
  CHECK(g.gpus_per_node == 72);                             // one NVLink domain
}

TEST_CASE("gpu catalog: B300's dense FP4 is not half its sparse figure", "[catalog][gpu]") {
  const GpuSpec g = load_gpu("b300");
  CHECK(g.peak(DType::fp4) == Approx(13125e12));  // dense 13,125 vs sparse 18,000 TFLOPS
  CHECK(g.peak(DType::fp8) == Approx(4500e12));
  CHECK(g.peak(DType::bf16) == Approx(2250e12));
  CHECK(g.memory_capacity == Approx(288e9));
  CHECK(g.memory_bandwidth == Approx(8e12));
  // The B300 keeps B200's FP8/BF16 rates and adds 1.5x dense FP4 (B200: 9 PF).
  const GpuSpec b200 = load_gpu("b200");
  CHECK(g.peak(DType::fp8) == Approx(b200.peak(DType::fp8)));
  CHECK(g.peak(DType::fp4) / b200.peak(DType::fp4) == Approx(13125.0 / 9000.0));
}

TEST_CASE("gpu catalog: enterprise PCIe cards", "[catalog][gpu]") {
  SECTION("RTX PRO 6000 Blackwell: 4,000 sparse FP4 TOPS -> 2,000 dense; 512-bit GDDR7 at 28 Gbps") {
    const GpuSpec g = load_gpu("rtx-pro-6000");
    CHECK(g.peak(DType::fp4) == Approx(4000e12 / 2));
    CHECK(g.peak(DType::fp8) == Approx(g.peak(DType::fp4) / 2));
    CHECK(g.memory_bandwidth == Approx(512.0 * 28e9 / 8));  // 1,792 GB/s
    CHECK(g.memory_capacity == Approx(96e9));
    CHECK(g.intra_node.bandwidth == Approx(64e9));  // PCIe Gen5 x16, per direction
  }
  SECTION("A40: Ampere, no FP8; 149.7 dense BF16 TFLOPS, 696 GB/s") {
    const GpuSpec g = load_gpu("a40");
    CHECK(!g.supports(DType::fp8));
    CHECK(g.peak(DType::bf16) == Approx(149.7e12));
    CHECK(g.memory_bandwidth == Approx(696e9));
  }
  SECTION("L40: Ada, FP8 at twice BF16 (181.05 -> 362), 864 GB/s, 300 W") {
    const GpuSpec g = load_gpu("l40");
    CHECK(g.peak(DType::bf16) == Approx(181.05e12));
    CHECK(g.peak(DType::fp8) == Approx(2.0 * g.peak(DType::bf16)).epsilon(1e-3));
    CHECK(g.memory_bandwidth == Approx(864e9));
    CHECK(g.tdp_watts == Approx(300.0));
  }
}
