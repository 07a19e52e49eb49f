# Vendor baseline for bench_skinny_gemm when cuBLAS cannot be dlopen'ed: times torch.nn.functional.linear (bf16,
# cuBLAS/cuBLASLt underneath) with the same shapes and method (median over replays of a CUDA graph of 20
# launches, weights rotating over copies so they are not L2-resident). Prints N K M us.
import torch

L, R = 20, 31
print("torch", torch.__version__, torch.cuda.get_device_name())
print("%5s %6s %6s %10s" % ("N", "K", "M", "torch_us"))
for n in (1, 4, 16, 32, 64, 128):
    for k in (2048, 7168, 16384):
        for m in (1024, 4096, 7168):
            copies = max(1, min(32, (240 << 20) // (m * k * 2) + 1))
            bs = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
            a = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            out = torch.empty(n, m, device="cuda", dtype=torch.bfloat16)
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                torch.matmul(a, bs[0].t(), out=out)
                torch.cuda.synchronize()
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g, stream=s):
                    for i in range(L):
                        torch.matmul(a, bs[i % copies].t(), out=out)
                g.replay()
                torch.cuda.synchronize()
                ts = []
                for _ in range(R):
                    e0 = torch.cuda.Event(enable_timing=True)
                    e1 = torch.cuda.Event(enable_timing=True)
                    e0.record(s)
                    g.replay()
                    e1.record(s)
                    e1.synchronize()
                    ts.append(e0.elapsed_time(e1) * 1000.0 / L)
            ts.sort()
            print("%5d %6d %6d %10.2f" % (n, k, m, ts[len(ts) // 2]), flush=True)
            del bs, a, out, g
