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
      k.source = "fitted";
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
      k.source = "fitted";
      break;
    case GgmlBackend::cpu:
      // One vec_dot kernel family at every batch size: mat-vec and mat-mat share the ALUs.
      k.matvec_max_tokens = 1;
      k.matvec_memory = 0.7;
      k.matvec_alu_per_weight = 4.0;
      k.mmq_flops_per_sm_cycle = 0;
      k.gemm_compute = 0.5;
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
