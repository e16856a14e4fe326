#!/usr/bin/env python3
"""Writes a tiny llama-architecture GGUF with random weights (no download): 2 layers, n_embd 64,
4 heads (2 KV heads, grouped-query attention), feed-forward 128, context 256; the tokenizer (the
SentencePiece vocabulary of LLaMA, 32000 tokens) copied from llama.cpp's own
models/ggml-vocab-llama-spm.gguf. Matrices are stored as Q8_0 (llama.cpp's quantised matrix
multiply and matrix-vector kernels), the token embedding as F16, norms as F32.

Usage: make-tiny-model.py LLAMA_SRC OUT.gguf [SEED]
  LLAMA_SRC: llama.cpp's source (its gguf-py package and the vocabulary file are read from it).
The weights come from numpy's PCG64 generator seeded with SEED (default 27), so the same file is
written every time; the file used for the committed results has its SHA-256 in docs/support.md.
"""
import sys
from pathlib import Path

import numpy as np


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src = Path(sys.argv[1])
    out = Path(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 27
    sys.path.insert(0, str(src / "gguf-py"))
    import gguf  # noqa: E402 (llama.cpp's own package, from the source tree)

    vocab_file = src / "models" / "ggml-vocab-llama-spm.gguf"
    reader = gguf.GGUFReader(str(vocab_file))
    tok = {k: f for k, f in reader.fields.items() if k.startswith("tokenizer.")}
    tokens = tok["tokenizer.ggml.tokens"].contents()
    n_vocab = len(tokens)

    n_embd, n_layer, n_head, n_head_kv, n_ff, n_ctx = 64, 2, 4, 2, 128, 256
    head_dim = n_embd // n_head
    rng = np.random.Generator(np.random.PCG64(seed))

    w = gguf.GGUFWriter(str(out), "llama")
    w.add_name("zluda-tiny-random")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_rope_dimension_count(head_dim)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(n_vocab)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    w.add_tokenizer_model(tok["tokenizer.ggml.model"].contents())
    w.add_string("tokenizer.ggml.pre", tok["tokenizer.ggml.pre"].contents())
    w.add_token_list(tokens)
    w.add_token_scores(tok["tokenizer.ggml.scores"].contents())
    w.add_token_types(tok["tokenizer.ggml.token_type"].contents())
    w.add_bos_token_id(tok["tokenizer.ggml.bos_token_id"].contents())
    w.add_eos_token_id(tok["tokenizer.ggml.eos_token_id"].contents())
    w.add_unk_token_id(tok["tokenizer.ggml.unknown_token_id"].contents())
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    def mat(rows: int, cols: int, scale: float) -> np.ndarray:
        # ggml shape (cols, rows): numpy (rows, cols), rows = output features
        return (rng.standard_normal((rows, cols), dtype=np.float32) * scale).astype(np.float32)

    def q8(name: str, a: np.ndarray) -> None:
        q = gguf.quants.quantize(a, gguf.GGMLQuantizationType.Q8_0)
        w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=gguf.GGMLQuantizationType.Q8_0)

    s = 1.0 / np.sqrt(n_embd)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd, 1.0).astype(np.float16))
    for i in range(n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        q8(p + "attn_q.weight", mat(n_embd, n_embd, s))
        q8(p + "attn_k.weight", mat(n_head_kv * head_dim, n_embd, s))
        q8(p + "attn_v.weight", mat(n_head_kv * head_dim, n_embd, s))
        q8(p + "attn_output.weight", mat(n_embd, n_embd, s))
        w.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        q8(p + "ffn_gate.weight", mat(n_ff, n_embd, s))
        q8(p + "ffn_up.weight", mat(n_ff, n_embd, s))
        q8(p + "ffn_down.weight", mat(n_embd, n_ff, 1.0 / np.sqrt(n_ff)))
    w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    q8("output.weight", mat(n_vocab, n_embd, 4.0 * s))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"{out}: llama, {n_layer} layers, n_embd {n_embd}, {n_head} heads ({n_head_kv} KV), n_ff {n_ff}, "
          f"vocabulary {n_vocab} tokens from {vocab_file.name}, seed {seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
