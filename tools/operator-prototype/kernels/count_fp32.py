#!/usr/bin/env python3
"""Count the FP32 instructions (FFMA, FADD, FMUL: what the datasheet FP32 peak counts, one per
lane per cycle) that the elementwise kernels of Vidur's tables issue per element, from their
machine code for sm_80 (A100) and sm_90 (H100): the source of efficiency.<kind>_fp32_per_byte
(sim/hardware/efficiency.cpp; docs/validation.md, "FP32 issue").

Needs CUDA's nvcc (any version with sm_80 and sm_90; seen: 13.0) and an opcode table to name the
instructions: no disassembler ships with nvcc alone, so the 128-bit instruction words are named by
their low 12 bits (the opcode and operand form) from CuAssembler's sm_80 instruction records
(github cloudcores/CuAssembler, CuAsm/InsAsmRepos/DefaultInsAsmRepos.sm_80.txt; 323 opcodes, each
one base mnemonic). The same table names the sm_90 build: the FP32, memory and branch opcodes
decode alike (seen: every instruction of the loops named, the same 12 FP32 per SiLU-and-mul
element on both).

Usage: python3 tools/operator-prototype/kernels/count_fp32.py DefaultInsAsmRepos.sm_80.txt [nvcc]
Counts the kernel's main path: everything up to its last EXIT before any called subroutine (the
IEEE division's slow path, not taken for finite inputs). Each loop runs one element per turn
(vidur_elementwise.cu), so a kernel's count is one element's, plus, for norm_block_reduce, one
thread's reduction.
"""
import collections, os, re, subprocess, sys, tempfile

FP32 = ('FFMA', 'FADD', 'FMUL')
HERE = os.path.dirname(os.path.abspath(__file__))


def opcode_names(path):
    names = {}
    for m in re.finditer(r'\(0x[0-9a-f]+, 0x([0-9a-f]+), "([^"]*)"\)', open(path).read()):
        text = re.sub(r'^@!?U?P[T0-9]+\s+', '', m.group(2).strip())
        names[int(m.group(1), 16) & 0xfff] = text.split()[0].split('.')[0].rstrip(';')
    return names


def kernels(cubin, names):
    """(kernel name, [mnemonic per instruction]) per .text section of a cubin (readelf)."""
    table = subprocess.check_output(['readelf', '-S', '-W', cubin], text=True, stderr=subprocess.DEVNULL)
    data = open(cubin, 'rb').read()
    for m in re.finditer(r'\]\s+\.text\.(\S+)\s+PROGBITS\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)', table):
        off, size = int(m.group(2), 16), int(m.group(3), 16)
        yield m.group(1), [names.get(int.from_bytes(data[i:i + 16], 'little') & 0xfff, '?')
                           for i in range(off, off + size, 16)]


def main_path(ins):
    if 'RET' not in ins: return ins
    first_ret = ins.index('RET')
    last_exit = max(i for i, n in enumerate(ins[:first_ret]) if n == 'EXIT')
    return ins[:last_exit + 1]


def main():
    names = opcode_names(sys.argv[1])
    nvcc = sys.argv[2] if len(sys.argv) > 2 else 'nvcc'
    counts = collections.defaultdict(dict)
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ('80', '90'):
            cubin = os.path.join(tmp, f'k{arch}.cubin')
            subprocess.check_call([nvcc, '-O2', f'-arch=sm_{arch}', '-cubin', '-o', cubin,
                                   os.path.join(HERE, 'vidur_elementwise.cu')])
            for name, ins in kernels(cubin, names):
                path = main_path(ins); c = collections.Counter(path)
                counts[name][arch] = sum(c[k] for k in FP32)
                unnamed = c['?']
                print(f'sm_{arch} {name:20s} {len(path):4d} instructions, FP32 {counts[name][arch]:3d} '
                      f'({", ".join(f"{k} {c[k]}" for k in FP32)}), MUFU {c["MUFU"]}, unnamed {unnamed}')
    per = {k: v['80'] for k, v in counts.items()}
    if any(v['80'] != v['90'] for v in counts.values()):
        print('note: sm_80 and sm_90 counts differ; the figures below are sm_80\'s')
    # Bytes per element as the cost model counts them (sim/calibration/operator_fit.cpp):
    # act reads gate and up, writes one (6); Vidur's norm is two RMSNorms (read + write, 4) and two
    # adds (read two, write one, 6): 20 per element; rope reads and writes a pair (8).
    act = per['act_silu_and_mul'] / 6
    print(f'\nact:  {per["act_silu_and_mul"]} per element / 6 bytes = {act:.4f} FP32 instructions per byte')
    for hidden in (4096, 5120, 8192):
        rms = per['norm_sum_squares'] + per['norm_scale'] + per['norm_block_reduce'] * 1024 / hidden
        norm = (2 * rms + 2 * per['norm_residual_add']) / 20
        print(f'norm: hidden {hidden}: 2 x ({per["norm_sum_squares"]} + {per["norm_scale"]} + '
              f'{per["norm_block_reduce"]} x 1024 / {hidden}) + 2 x {per["norm_residual_add"]} per element / 20 bytes '
              f'= {norm:.4f} per byte')
    print(f'rope: {per["rope_rotate"]} per pair / 8 bytes = {per["rope_rotate"] / 8:.4f} per byte')


if __name__ == '__main__':
    main()
