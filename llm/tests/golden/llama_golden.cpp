// Records reference outputs of llama.cpp for pocket-llm's parity tests (run by
// make_model_golden.sh, never in CI). Linked against the llama.cpp build in /work/peers.
//
//   llama_golden tokens MODEL PROMPT N      -> greedy token ids after PROMPT, one per line,
//                                              each followed by its margin over the runner-up
//   llama_golden logits MODEL PROMPT        -> the logits after each prompt token, one line each
//   llama_golden logits-ids MODEL "ID ..."  -> the same for raw token ids, run as one batch
//   llama_golden quant-check SRC OURS       -> for each tensor of OURS in another format than
//                                              in SRC, whether its bytes are what ggml's
//                                              quantizer (no importance matrix, as
//                                              llama-quantize) gives for SRC's values; exits 1
//                                              if any differ
//
// PROMPT is tokenized with special tokens parsed and no BOS added; greedy = argmax of the
// raw logits (no sampler), single sequence, 2 threads, flash attention as llama.cpp picks.
#include "gguf.h"
#include "llama.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static void quiet(enum ggml_log_level, const char *, void *) {}

static int quant_check(const char * src, const char * ours) {
    ggml_context * cs = nullptr;
    ggml_context * co = nullptr;
    gguf_context * gs = gguf_init_from_file(src, { false, &cs });
    gguf_context * go = gguf_init_from_file(ours, { false, &co });
    if (!gs || !go) { fprintf(stderr, "cannot read %s or %s\n", src, ours); return 1; }
    int same = 0, differ = 0, copied = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(go); i++) {
        const char * name = gguf_get_tensor_name(go, i);
        ggml_tensor * to = ggml_get_tensor(co, name);
        ggml_tensor * ts = ggml_get_tensor(cs, name);
        if (!ts) { fprintf(stderr, "%s: not in %s\n", name, src); return 1; }
        if (to->type == ts->type) { copied++; continue; }
        const int64_t ne = ggml_nelements(ts), cols = ts->ne[0];
        std::vector<float> f(ne);
        ggml_get_type_traits(ts->type)->to_float(ts->data, f.data(), ne);
        std::vector<char> q(ggml_nbytes(to));
        ggml_quantize_chunk(to->type, f.data(), q.data(), 0, ne / cols, cols, nullptr);
        if (memcmp(q.data(), to->data, q.size()) == 0) {
            same++;
        } else {
            differ++;
            fprintf(stderr, "%s (%s) differs from ggml's quantizer\n", name, ggml_type_name(to->type));
        }
    }
    printf("%d tensors as ggml quantizes them, %d differ, %d copied\n", same, differ, copied);
    gguf_free(gs);
    gguf_free(go);
    ggml_free(cs);
    ggml_free(co);
    return differ ? 1 : 0;
}

int main(int argc, char ** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s tokens|logits MODEL PROMPT [N]\n", argv[0]);
        return 2;
    }
    const std::string mode = argv[1];
    if (mode == "quant-check") return quant_check(argv[2], argv[3]);
    const int n_predict = argc > 4 ? atoi(argv[4]) : 0;
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    llama_model * model = llama_model_load_from_file(argv[2], mp);
    if (!model) { fprintf(stderr, "cannot load %s\n", argv[2]); return 1; }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    const std::string prompt = argv[3];
    std::vector<llama_token> toks;
    if (mode == "logits-ids") {
        for (const char * p = prompt.c_str(); *p;) {
            char * end = nullptr;
            long v = strtol(p, &end, 10);
            if (end == p) break;
            toks.push_back((llama_token) v);
            p = end;
        }
    } else {
        toks.resize(prompt.size() + 16);
        int nt = llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), toks.data(), (int) toks.size(), false, true);
        if (nt < 0) { fprintf(stderr, "tokenize failed\n"); return 1; }
        toks.resize(nt);
    }
    const int n = (int) toks.size();
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 512;
    cp.n_batch = 512;
    cp.n_threads = 2;
    cp.n_threads_batch = 2;
    if (mode == "logits") {
        // One token per batch so every position's logits are returned.
        cp.n_batch = 1;
        cp.n_ubatch = 1;
    }
    llama_context * ctx = llama_init_from_model(model, cp);
    const int n_vocab = llama_vocab_n_tokens(vocab);
    if (mode == "logits-ids") {
        llama_batch b = llama_batch_init(n, 0, 1);
        for (int i = 0; i < n; i++) {
            b.token[i] = toks[i];
            b.pos[i] = i;
            b.n_seq_id[i] = 1;
            b.seq_id[i][0] = 0;
            b.logits[i] = 1;
        }
        b.n_tokens = n;
        if (llama_decode(ctx, b)) { fprintf(stderr, "decode failed\n"); return 1; }
        for (int i = 0; i < n; i++) {
            const float * lg = llama_get_logits_ith(ctx, i);
            for (int j = 0; j < n_vocab; j++) printf(j ? " %.6g" : "%.6g", lg[j]);
            printf("\n");
        }
        llama_batch_free(b);
    } else if (mode == "logits") {
        for (int i = 0; i < n; i++) {
            if (llama_decode(ctx, llama_batch_get_one(&toks[i], 1))) { fprintf(stderr, "decode failed\n"); return 1; }
            const float * lg = llama_get_logits_ith(ctx, -1);
            for (int j = 0; j < n_vocab; j++) printf(j ? " %.6g" : "%.6g", lg[j]);
            printf("\n");
        }
    } else {
        if (llama_decode(ctx, llama_batch_get_one(toks.data(), n))) { fprintf(stderr, "decode failed\n"); return 1; }
        for (int s = 0; s < n_predict; s++) {
            const float * lg = llama_get_logits_ith(ctx, -1);
            llama_token best = 0;
            for (int j = 1; j < n_vocab; j++) if (lg[j] > lg[best]) best = j;
            float second = -INFINITY;
            for (int j = 0; j < n_vocab; j++) if (j != best && lg[j] > second) second = lg[j];
            printf("%d %.4f\n", best, lg[best] - second);
            if (llama_decode(ctx, llama_batch_get_one(&best, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
        }
    }
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
