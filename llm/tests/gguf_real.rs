//! The GGUF reader on the real model files (SmolLM2-135M Q4_1, Qwen2.5-Coder-0.5B).

use pocket_assets::{Store, ids};
use pocket_llm::LlmError;
use pocket_llm::gguf::{GgmlType, GgufFile};

/// The installed file `file` of asset `id`.
fn model_path(id: &str, file: &str) -> std::path::PathBuf {
    let store = Store::open_default().expect("asset store");
    store
        .require_file(id, file)
        .expect("model installed (pocket assets fetch, --set extra for Qwen2.5-Coder-0.5B)")
}

fn open(id: &str, file: &str) -> GgufFile {
    GgufFile::open(model_path(id, file)).expect("model parses")
}

#[test]
fn smollm2_metadata_and_tensors() {
    let f = open(ids::SMOLLM2, ids::SMOLLM2_FILE);
    assert_eq!(f.version(), 3);
    assert_eq!(f.architecture().expect("arch"), "llama");
    assert_eq!(f.get_arch::<u32>("block_count").expect("layers"), 30);
    assert_eq!(f.get_arch::<u32>("embedding_length").expect("d"), 576);
    assert_eq!(
        f.get_arch::<u32>("attention.head_count_kv")
            .expect("kv heads"),
        3
    );
    assert_eq!(
        f.get_arch::<f32>("rope.freq_base").expect("rope"),
        100_000.0
    );
    assert_eq!(f.get::<&str>("tokenizer.ggml.pre").expect("pre"), "smollm");
    assert_eq!(
        f.get::<&[String]>("tokenizer.ggml.tokens")
            .expect("vocab")
            .len(),
        49_152
    );
    assert_eq!(
        f.get::<&[i32]>("tokenizer.ggml.token_type")
            .expect("types")
            .len(),
        49_152
    );
    assert!(
        f.get::<&str>("tokenizer.chat_template")
            .expect("template")
            .contains("<|im_start|>")
    );
    assert!(matches!(
        f.get::<u32>("tokenizer.ggml.pre"),
        Err(LlmError::WrongMetadataType { .. })
    ));

    assert_eq!(f.tensors().len(), 272);
    let (emb, data) = f.tensor_bytes("token_embd.weight").expect("embeddings");
    assert_eq!(
        (emb.ggml_type(), emb.dims()),
        (GgmlType::Q8_0, &[576, 49_152][..])
    );
    assert_eq!(data.len() as u64, 576 / 32 * 34 * 49_152);
    let down = f.tensor("blk.0.ffn_down.weight").expect("ffn_down");
    assert_eq!(
        (down.ggml_type(), down.dims()),
        (GgmlType::Q4_1, &[1536, 576][..])
    );
    let norm = f.tensor("blk.29.attn_norm.weight").expect("norm");
    assert_eq!((norm.ggml_type(), norm.n_bytes()), (GgmlType::F32, 576 * 4));
    // The last tensor ends inside the file; every view is aligned to 32 bytes in the file.
    for t in f.tensors() {
        let d = f.tensor_data(t);
        assert_eq!(d.len() as u64, t.n_bytes());
        assert_eq!((d.as_ptr() as usize - f.bytes().as_ptr() as usize) % 32, 0);
    }
    assert!(
        f.tensor("output.weight").is_none(),
        "SmolLM2 ties its output to the embeddings"
    );
}

#[test]
fn qwen25_metadata_and_mixed_quant_tensors() {
    let f = open(ids::QWEN25_CODER, ids::QWEN25_CODER_FILE);
    assert_eq!(f.architecture().expect("arch"), "qwen2");
    assert_eq!(f.get_arch::<u32>("block_count").expect("layers"), 24);
    assert_eq!(
        f.get_arch::<u32>("attention.head_count").expect("heads"),
        14
    );
    assert_eq!(
        f.get_arch::<f32>("attention.layer_norm_rms_epsilon")
            .expect("eps"),
        1e-6
    );
    assert_eq!(
        f.get::<u32>("tokenizer.ggml.eos_token_id").expect("eos"),
        151_645
    );
    assert_eq!(
        f.get::<&[String]>("tokenizer.ggml.merges")
            .expect("merges")
            .len(),
        151_387
    );
    assert_eq!(f.tensors().len(), 291);
    let out = f.tensor("output.weight").expect("untied output");
    assert_eq!(
        (out.ggml_type(), out.dims()),
        (GgmlType::Q8_0, &[896, 151_936][..])
    );
    let bias = f.tensor("blk.0.attn_q.bias").expect("qkv bias");
    assert_eq!((bias.ggml_type(), bias.dims()), (GgmlType::F32, &[896][..]));
    let mut types: Vec<GgmlType> = f.tensors().iter().map(|t| t.ggml_type()).collect();
    types.sort_by_key(|t| t.id());
    types.dedup();
    assert_eq!(
        types,
        [
            GgmlType::F32,
            GgmlType::Q5_0,
            GgmlType::Q8_0,
            GgmlType::Q4K,
            GgmlType::Q6K
        ]
    );
    let total: u64 = f.tensors().iter().map(|t| t.n_bytes()).sum();
    assert!(f.data_offset() + total <= f.bytes().len() as u64);
}

#[test]
fn truncated_real_header_is_an_error() {
    let path = model_path(ids::SMOLLM2, ids::SMOLLM2_FILE);
    let mut bytes = vec![0u8; 2 << 20];
    use std::io::Read;
    std::fs::File::open(&path)
        .and_then(|mut f| f.read_exact(&mut bytes))
        .expect("read header");
    // The data section starts at 1.7 MB: the first 2 MB hold the whole header but not the
    // tensors, and every cut inside the header fails too.
    for cut in [3, 20, 1000, 100_000, 1_000_000, 1_785_000, 2 << 20] {
        let r = GgufFile::from_bytes(bytes[..cut].to_vec());
        assert!(matches!(r, Err(LlmError::Gguf { .. })), "cut at {cut}");
    }
}

/// An untied token embedding stays in the file (a row is read per token, not copied at load:
/// 144 MB of Qwen2.5-Coder-0.5B, 131 MB of the 1.5B): its rows read right, and a file shrunk
/// under the loaded model gives an error naming it, never a fault.
#[test]
fn an_untied_embedding_is_read_from_the_file_and_a_shrunk_file_is_an_error() {
    use pocket_llm::{Model, Session, SessionOptions};
    let src = model_path(ids::QWEN25_CODER, ids::QWEN25_CODER_FILE);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("model.gguf");
    std::fs::copy(&src, &path).expect("copy");
    let model = Model::load(&path).expect("loads");
    assert!(!model.tied_embeddings());
    let opts = SessionOptions {
        context: 64,
        threads: 2,
        batch: 16,
    };
    let mut session = Session::new(model.clone(), opts).expect("session");
    let hello = model.tokenizer().encode("Hello", false);
    let logits = session.prefill(&hello).expect("prefill").to_vec();
    assert!(logits.iter().all(|l| l.is_finite()));
    // The same words give the same logits as a model that copied everything (no detach).
    let copied = Model::load_with(
        &src,
        pocket_llm::LoadOptions {
            detach: false,
            ..Default::default()
        },
    )
    .expect("loads");
    let mut other = Session::new(copied, opts).expect("session");
    assert_eq!(other.prefill(&hello).expect("prefill"), &logits[..]);
    // Shrunk to its first MB (as `cp` over it does first): the next token's row is gone.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_len(1 << 20))
        .expect("truncate");
    let err = session
        .prefill(&model.tokenizer().encode(" world", false))
        .expect_err("a row past the end");
    assert!(
        matches!(err, LlmError::Io { ref path, .. } if path.ends_with("model.gguf")),
        "{err}"
    );
}

/// A model loaded for a voice (`speakable_only`) keeps only the output rows of tokens a voice
/// can say: their logits are exactly the full model's, every other token's is `-inf`, greedy
/// replies in English are the same, and a decoded token reads fewer bytes. Both the
/// interleaved (repacked) and the row-major copy are checked.
#[test]
fn a_model_for_a_voice_computes_only_the_speakable_tokens() {
    use pocket_llm::{LoadOptions, Model, Session, SessionOptions};
    let path = model_path(ids::QWEN25_CODER, ids::QWEN25_CODER_FILE);
    let load = |repack, speakable_only| {
        let opts = LoadOptions {
            repack,
            speakable_only,
            ..LoadOptions::default()
        };
        Model::load_with(&path, opts).expect("loads")
    };
    let full = load(true, false);
    let opts = SessionOptions {
        context: 64,
        threads: 2,
        batch: 16,
    };
    let words = full.tokenizer().encode("The capital of France is", false);
    let speakable = full.tokenizer().speakable_ids();
    let vocab = full.config().vocab_size;
    assert!(
        speakable.len() > vocab / 2 && speakable.len() < vocab * 9 / 10,
        "{} of {vocab} tokens speakable",
        speakable.len()
    );
    for repack in [true, false] {
        // The same kernels as the model it is compared with.
        let mut session = Session::new(load(repack, false), opts).expect("session");
        let expected = session.prefill(&words).expect("prefill").to_vec();
        let voice = load(repack, true);
        assert_eq!(voice.output_tokens(), speakable.len());
        assert!(voice.weight_bytes_per_token() < full.weight_bytes_per_token());
        let mut s = Session::new(voice.clone(), opts).expect("session");
        let logits = s.prefill(&words).expect("prefill");
        let mut kept = speakable.iter().peekable();
        for (id, (&got, &want)) in logits.iter().zip(&expected).enumerate() {
            if kept.next_if(|&&k| k as usize == id).is_some() {
                assert_eq!(got, want, "token {id} (repack {repack})");
            } else {
                assert_eq!(got, f32::NEG_INFINITY, "token {id} (repack {repack})");
            }
        }
        let argmax = |l: &[f32]| {
            (0..l.len())
                .max_by(|&a, &b| l[a].total_cmp(&l[b]))
                .unwrap_or(0)
        };
        assert_eq!(argmax(logits), argmax(&expected), "repack {repack}");
    }
}
