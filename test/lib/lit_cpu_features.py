"""lit features for the host CPU's int8 dot-product instructions, for tests that run the kernels of one
llm-lower-to-linalg int8-dot kind or check which one `llmc compile` chose for this machine:
cpu-avx2 (VPMADDUBSW) and cpu-vnni (VPDPBUSD: AVX-512 VNNI with VL, or AVX-VNNI); and for the bf16 weights'
prefill GEMM on VDPBF16PS (bf16-dot): cpu-avx512bf16; and AVX-512 F with F16C (cpu-avx512f), for the bench's
C kernels written with AVX-512 intrinsics (bench/f16_rows.c, bench/f16_panels.c)."""


def cpu_flags(path="/proc/cpuinfo"):
    try:
        with open(path) as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def add_cpu_features(config):
    flags = cpu_flags()
    if "avx2" in flags:
        config.available_features.add("cpu-avx2")
    if {"avx512_vnni", "avx512vl"} <= flags or "avx_vnni" in flags:
        config.available_features.add("cpu-vnni")
    if "avx512_bf16" in flags:
        config.available_features.add("cpu-avx512bf16")
    if {"avx512f", "f16c"} <= flags:
        config.available_features.add("cpu-avx512f")
