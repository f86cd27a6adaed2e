"""The per-position rows of a golden logits file (hf_goldens.py, rope_goldens.py, llama_cpp_goldens.py), the
format compare_hf_golden.py reads: the argmax over the whole vocabulary, the margin between the top two logits,
the `top_k` best ids and their logits, and the logits of fixed probe ids, rounded to `decimals`."""
import numpy as np


def golden_rows(logits, probes, top_k, decimals):
    rows = []
    for row in logits:
        order = np.argsort(-row, kind="stable")
        top = order[:top_k].tolist()
        rows.append({
            "argmax": int(order[0]),
            "margin": round(float(row[order[0]] - row[order[1]]), decimals),
            "top_ids": top,
            "top_logits": [round(float(row[i]), decimals) for i in top],
            "probe_logits": [round(float(row[i]), decimals) for i in probes],
        })
    return rows
