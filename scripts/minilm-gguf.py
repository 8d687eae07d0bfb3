#!/usr/bin/env python3
"""Converts the all-MiniLM-L6-v2 sentence-embedding model to a GGUF file llama.cpp's server loads.

llama.cpp's own converter (convert_hf_to_gguf.py) imports torch and transformers, which cannot be
installed here; this one reads the model's safetensors with numpy and writes with the `gguf`
package, following the official converter's conventions for BERT models:

- architecture `bert`, tensors renamed by gguf's own map for it (the pooler is not used and dropped);
- 2-D weights as f16; biases, norms and the position and token-type embeddings as f32;
- the WordPiece vocabulary in llama.cpp's "phantom space" form (a word-start token gets U+2581
  in front, a `##` continuation loses its `##`, `[…]` tokens stay as they are), tokenizer model
  `bert`, the special tokens from the model's own tokenizer files;
- non-causal attention and the pooling the model was trained with (mean, from `1_Pooling`).

Usage: minilm-gguf.py MODEL_DIR OUT.gguf   (MODEL_DIR holds config.json, model.safetensors,
tokenizer.json and 1_Pooling/config.json). Also writes OUT.gguf.expected.json: the vectors of a few
sentences from a forward pass of the original fp32 weights in numpy, an independent reference the
served vectors are compared with (tests/node/local-embeddings.test.mjs).
"""

import json
import os
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16}


def read_safetensors(path):
    """Every tensor of a safetensors file, as numpy arrays (no torch)."""
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or name.endswith("position_ids"):
            continue  # position_ids: BERT's 0..n index, not a weight
        start, end = info["data_offsets"]
        dtype = DTYPES.get(info["dtype"])
        if dtype is None:
            raise SystemExit(f"minilm-gguf: tensor {name} is {info['dtype']}, which this converter does not read")
        tensors[name] = np.frombuffer(data[start:end], dtype=dtype).reshape(info["shape"])
    return tensors


def phantom(token):
    if token.startswith("[") and token.endswith("]"):
        return token
    if token.startswith("##"):
        return token[2:]
    return "\u2581" + token


def convert(model_dir, out_path):
    import gguf

    config = json.load(open(os.path.join(model_dir, "config.json")))
    pooling = json.load(open(os.path.join(model_dir, "1_Pooling", "config.json")))
    if not pooling.get("pooling_mode_mean_tokens"):
        raise SystemExit("minilm-gguf: only mean pooling is supported")
    tokenizer = json.load(open(os.path.join(model_dir, "tokenizer.json")))
    vocab = tokenizer["model"]["vocab"]
    tokens = [None] * len(vocab)
    for text, index in vocab.items():
        tokens[index] = text
    special = {t["id"] for t in tokenizer.get("added_tokens", []) if t.get("special")}
    types = [gguf.TokenType.CONTROL if i in special else gguf.TokenType.NORMAL for i in range(len(tokens))]

    arch = gguf.MODEL_ARCH.BERT
    writer = gguf.GGUFWriter(out_path, gguf.MODEL_ARCH_NAMES[arch])
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_token_type_count(config.get("type_vocab_size", 1))
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list([phantom(t) for t in tokens])
    writer.add_token_types(types)
    gguf.SpecialVocab(model_dir, n_vocab=len(tokens)).add_to_gguf(writer)

    names = gguf.get_tensor_name_map(arch, config["num_hidden_layers"])
    for name, tensor in read_safetensors(os.path.join(model_dir, "model.safetensors")).items():
        if name.startswith("pooler."):
            continue
        new_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new_name is None:
            raise SystemExit(f"minilm-gguf: no GGUF name for tensor {name}")
        # Position and token-type embeddings are added to f32 activations: f32, as the official
        # converter keeps them (llama.cpp's CPU backend has no f32 + f16 add).
        half = tensor.ndim == 2 and not new_name.startswith(("position_embd", "token_types"))
        data = tensor.astype(np.float16 if half else np.float32)
        writer.add_tensor(new_name, data)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


# ---- the check: a forward pass of the original weights --------------------------------------

def wordpiece(text, vocab):
    """BERT's uncased tokenization, enough for the check's plain sentences."""
    import unicodedata

    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    words, word = [], ""
    for c in text:
        if c.isspace():
            words.append(word)
            word = ""
        elif unicodedata.category(c).startswith("P") or c in "$+<=>^`|~":
            words += [word, c]
            word = ""
        else:
            word += c
    words.append(word)
    ids = [vocab["[CLS]"]]
    for w in filter(None, words):
        start, pieces = 0, []
        while start < len(w):
            end = len(w)
            while end > start:
                piece = ("##" if start else "") + w[start:end]
                if piece in vocab:
                    break
                end -= 1
            if end == start:
                pieces = [vocab["[UNK]"]]
                break
            pieces.append(vocab[piece])
            start = end
        ids += pieces
    return ids + [vocab["[SEP]"]]


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def forward(t, config, ids):
    from math import erf, sqrt

    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / sqrt(2))))
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][: len(ids)]
    x = x + t["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ t[p + n + ".weight"].T + t[p + n + ".bias"]  # noqa: E731
        q, k, v = (lin(x, f"attention.self.{n}") for n in ("query", "key", "value"))
        d = q.shape[-1] // heads
        split = lambda m: m.reshape(len(ids), heads, d).transpose(1, 0, 2)  # noqa: E731
        scores = split(q) @ split(k).transpose(0, 2, 1) / np.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attn = (scores @ split(v)).transpose(1, 0, 2).reshape(len(ids), -1)
        x = layer_norm(x + lin(attn, "attention.output.dense"), t[p + "attention.output.LayerNorm.weight"],
                       t[p + "attention.output.LayerNorm.bias"], eps)
        h = lin(gelu(lin(x, "intermediate.dense")), "output.dense")
        x = layer_norm(x + h, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps)
    v = x.mean(0)
    return v / np.linalg.norm(v)


# Sentences whose vectors the converted model must give (the test compares the served vectors).
CHECK_SENTENCES = ["This is an example sentence", "Each sentence is converted.", "How do I get my money back?"]


def expected_vectors(model_dir, out_path):
    """The vectors of CHECK_SENTENCES from the original fp32 weights, written beside the GGUF."""
    config = json.load(open(os.path.join(model_dir, "config.json")))
    vocab = json.load(open(os.path.join(model_dir, "tokenizer.json")))["model"]["vocab"]
    weights = {k: v.astype(np.float64) for k, v in read_safetensors(os.path.join(model_dir, "model.safetensors")).items()}
    vectors = [forward(weights, config, wordpiece(text, vocab)).round(6).tolist() for text in CHECK_SENTENCES]
    with open(out_path, "w") as f:
        json.dump({"sentences": CHECK_SENTENCES, "vectors": vectors}, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    convert(sys.argv[1], sys.argv[2])
    expected_vectors(sys.argv[1], sys.argv[2] + ".expected.json")
