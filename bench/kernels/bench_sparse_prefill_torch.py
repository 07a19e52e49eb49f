# PyTorch baseline for bench_sparse_mla_prefill (run by the coordinator on the device): the natural eager
# alternative to the kernel on the same shapes, in bf16: index-gather of each token's top-k kv rows, QK^T matmul,
# fp32 softmax with the sink folded in as an extra logit, PV matmul. Tokens are processed in chunks so that the
# gathered [chunk, topk, d_qk] tensor fits memory. Median over replays of a CUDA graph. Prints the shape, the same
# floor as the C++ benchmark (max(bytes / 4214 GB/s, flops / 790 TFLOP/s)), the median ms and floor / measured.
import torch

R = 11
BW, FL = 4214e9, 790e12
print("torch", torch.__version__, torch.cuda.get_device_name())
print("%-9s %5s %4s %4s %6s %5s %9s %9s %7s" % ("shape", "s_q", "h_q", "d_qk", "s_kv", "topk", "floor_ms", "torch_ms",
                                               "ratio"))


def attend(q, kv, idx, sink, scale, d_v, chunk):
    s_q = q.shape[0]
    outs, lses = [], []
    for t0 in range(0, s_q, chunk):
        qi = q[t0:t0 + chunk]                                  # [c, h, d_qk]
        ii = idx[t0:t0 + chunk]                                # [c, topk]
        g = kv[ii.clamp(0, kv.shape[0] - 1)]                   # [c, topk, d_qk] gather (bf16)
        logits = torch.matmul(qi, g.transpose(1, 2)).float() * scale  # [c, h, topk]
        logits = logits.masked_fill((ii < 0).unsqueeze(1), float("-inf"))
        lse = torch.logsumexp(logits, dim=-1)                  # [c, h]
        lse_o = torch.logaddexp(lse, sink.unsqueeze(0))
        p = torch.exp(logits - lse_o.unsqueeze(-1)).to(torch.bfloat16)
        outs.append(torch.matmul(p, g[..., :d_v]))            # [c, h, d_v]
        lses.append(lse)
    return torch.cat(outs), torch.cat(lses)


for name, s_q, h_q, d_qk, s_kv, topk in (("V4-Flash", 1024, 64, 512, 32768, 512),
                                         ("V4-Flash", 4096, 64, 512, 32768, 512),
                                         ("V3.2", 1024, 128, 576, 65536, 2048),
                                         ("V3.2", 4096, 128, 576, 65536, 2048)):
    d_v = 512
    q = (torch.randn(s_q, h_q, d_qk, device="cuda") * 0.1).to(torch.bfloat16)
    kv = (torch.randn(s_kv, d_qk, device="cuda") * 0.1).to(torch.bfloat16)
    off = torch.randint(0, s_kv, (s_q, 1), device="cuda")
    idx = ((off + torch.arange(topk, device="cuda").unsqueeze(0) * 40503) % s_kv).to(torch.int64)
    sink = torch.randn(h_q, device="cuda")
    scale = d_qk ** -0.5
    chunk = max(1, min(s_q, (2 << 30) // (topk * d_qk * 2 + h_q * topk * 12)))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        attend(q, kv, idx, sink, scale, d_v, chunk)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            attend(q, kv, idx, sink, scale, d_v, chunk)
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
            ts.append(e0.elapsed_time(e1))
    ts.sort()
    ms = ts[len(ts) // 2]
    nbytes = 2.0 * (s_q * topk * d_qk + s_q * h_q * d_qk + s_q * h_q * d_v)
    flops = 2.0 * s_q * h_q * topk * (d_qk + d_v)
    floor_ms = max(nbytes / BW, flops / FL) * 1e3
    print("%-9s %5d %4d %4d %6d %5d %9.3f %9.3f %7.4f" % (name, s_q, h_q, d_qk, s_kv, topk, floor_ms, ms, floor_ms / ms),
          flush=True)
    del q, kv, idx, g
    torch.cuda.empty_cache()
