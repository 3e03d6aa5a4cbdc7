#include "cost/ggml_kernels.h"

#include <algorithm>

namespace servesim {

std::string ggml_backend_name(GgmlBackend b) {
  switch (b) {
    case GgmlBackend::cuda: return "cuda";
    case GgmlBackend::metal: return "metal";
    case GgmlBackend::cpu: return "cpu";
  }
  return "?";
}

GgmlBackend ggml_backend_for(const GpuSpec& gpu) {
  switch (gpu.family) {
    case DeviceFamily::apple_gpu: return GgmlBackend::metal;
    case DeviceFamily::cpu: return GgmlBackend::cpu;
    case DeviceFamily::gpu: return GgmlBackend::cuda;
  }
  return GgmlBackend::cuda;
}

bool ggml_amx_type(GgufType t) { return t == GgufType::q4_0 || t == GgufType::q8_0; }

GgmlKernels ggml_backend_kernels(GgmlBackend b) {
  GgmlKernels k;
  k.enabled = true;
  k.backend = b;
  switch (b) {
    case GgmlBackend::cuda:
      // MMVQ handles up to 8 tokens (ggml/src/ggml-cuda/mmvq.cuh: MMVQ_MAX_BATCH_SIZE 8).
      k.matvec_max_tokens = 8;
      k.matvec_memory = 0.9106;
      k.matvec_alu_per_weight = 6.622;
      k.mmq_flops_per_sm_cycle = 494.0;
      k.gemm_compute = 0.7;
      k.dequant_compute = 1.0;
      k.kernel_time = 2.068e-6;
      // Fitted (tools/fit/llama_cpp_kernels.py) on the Q4_0 llama-bench rows of RTX 4090, RTX 3090,
      // A100 and L40 (discussion #15013, -fa 0; data/llama_cpp): matvec_memory 0.911,
      // matvec_alu_per_weight 6.62 (MMVQ: the q8_1 activation quantisation, nibble unpacking, int8 dot
      // products and scales on the FP32 units), kernel_time 2.07 us, MMQ 494 FLOP per SM-cycle.
      // Held out: RTX 5090, H100, A40, DGX Spark, RTX PRO 6000 and the DGX Spark Q8_0 rows, median
      // |error| pp 10.4%, tg 2.4%. gemm_compute (F16 weights through cuBLAS) is not fitted: no F16
      // CUDA row; the catalog's 0.7 of the fp16 peak.
      k.source = "fitted on llama-bench tables (data/llama_cpp/README.md)";
      break;
    case GgmlBackend::metal:
      // Metal's mat-vec kernels serve small batches (ggml-metal: mul_mv for ne11 below ~8).
      k.matvec_max_tokens = 8;
      k.matvec_memory = 0.9271;
      k.matvec_alu_per_weight = 0;
      k.mmq_flops_per_sm_cycle = 0;
      k.gemm_compute = 0.756;
      k.dequant_compute = 0.9059;
      k.kernel_time = 14.71e-6;
      // Fitted (tools/fit/llama_cpp_kernels.py) on the M1 and M3 generations' F16 / Q8_0 / Q4_0
      // rows of llama.cpp discussion #4167 (data/llama_cpp): matvec_memory 0.927, kernel_time
      // 14.7 us (command encoding and dispatch of each kernel), gemm_compute 0.756 of the FP16 = FP32
      // peak, dequant_compute 0.906. Held out: the M2 and M4 generations, median |error| pp 2.4%,
      // tg 4.7%. A mat-vec ALU term did not lower the error (Apple's FP32 rate per byte of bandwidth
      // is high): 0, not fitted.
      k.source = "fitted on llama-bench tables (data/llama_cpp/README.md)";
      break;
    case GgmlBackend::cpu:
      // One vec_dot kernel family at every batch size: mat-vec and mat-mat share the ALUs.
      // ASSUMPTIONS, no llama-bench table of the catalog's CPUs fitted (data/llama_cpp/README.md):
      // decode streams weights at ~70% of the DDR bandwidth (a desktop Zen 4 with dual-channel
      // DDR5-6000, 96 GB/s, generates ~12 tokens/s on an 8B Q4_K_M: 4.9 GB x 12 = 59 GB/s, 61%);
      // prompt processing reaches ~35% of the int8 dot-product peak (ik_llama.cpp PR #128: PP-512 of
      // LLaMA-3.1-8B at 224-254 tokens/s on a Ryzen 7950X, 16 Zen 4 cores x ~5 GHz x 128 int8
      // ops per cycle = 10 TOP/s; 224 x 16 GFLOP = 3.6 TOP/s, a fork's kernels, an order of magnitude).
      k.matvec_max_tokens = 1;
      k.matvec_memory = 0.7;
      k.matvec_alu_per_weight = 4.0;
      k.mmq_flops_per_sm_cycle = 0;
      k.gemm_compute = 0.35;
      k.dequant_compute = 1.0;
      k.kernel_time = 5e-6;
      k.source = "assumptions (no CPU measurement fitted)";
      break;
  }
  return k;
}

GgmlGemmTime ggml_gemm_time(const GgmlKernels& k, const GpuSpec& gpu, const GgmlGemm& g) {
  GgmlGemmTime t;
  const double bw = gpu.memory_bandwidth;
  t.memory = g.bytes / (bw * k.matvec_memory);
  if (g.tokens <= k.matvec_max_tokens) {
    // Mat-vec: weights x tokens dot products, each alu_per_weight FP32 operations (F16: one FMA, 2);
    // the ALU work follows the load in each thread, so the two add up.
    const double alu_per_weight = g.quantized ? k.matvec_alu_per_weight : 2.0;
    const double fp32 = gpu.supports(DType::fp32) ? gpu.peak(DType::fp32) : gpu.peak(DType::fp16);
    t.compute = g.flops / 2.0 * alu_per_weight / fp32;
    t.exposed = std::min(t.compute, t.memory);
    return t;
  }
  // Mat-mat.
  const double fp16 = gpu.supports(DType::fp16) ? gpu.peak(DType::fp16) : gpu.peak(DType::bf16);
  switch (k.backend) {
    case GgmlBackend::cuda:
      if (g.quantized && k.mmq_flops_per_sm_cycle > 0 && gpu.sm_cycles_per_second() > 0) {
        t.compute = g.flops / (k.mmq_flops_per_sm_cycle * gpu.sm_cycles_per_second());
        break;
      }
      t.compute = g.flops / (fp16 * k.gemm_compute);
      break;
    case GgmlBackend::metal:
      t.compute = g.flops / (fp16 * k.gemm_compute * (g.quantized ? k.dequant_compute : 1.0));
      break;
    case GgmlBackend::cpu: {
      // Quantized weights: int8 dot products with the activations quantized to 8 bits, on AMX
      // tiles for the types llama.cpp repacks for them, else on the vector units.
      double peak = fp16;
      if (g.quantized) {
        const double amx = g.amx_type ? gpu.cpu.matrix_int8_ops() : 0.0;
        peak = std::max(amx, gpu.cpu.vector_int8_ops());
        if (peak <= 0) peak = gpu.supports(DType::fp32) ? gpu.peak(DType::fp32) : fp16;
      }
      t.compute = g.flops / (peak * k.gemm_compute * (g.quantized ? k.dequant_compute : 1.0));
      break;
    }
  }
  return t;
}

}  // namespace servesim
