//! The one error type of the LLM engine.

/// Errors of the LLM engine; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    // --- GGUF reader, metadata, tokenizer, sampler (llm-front) ---
    #[error("{path}: not a usable GGUF file: {source}")]
    Gguf {
        path: std::path::PathBuf,
        #[source]
        source: crate::gguf::GgufError,
    },
    #[error("model metadata key `{key}` is missing")]
    MissingMetadata { key: String },
    #[error("model metadata key `{key}` is {found}, expected {expected}")]
    WrongMetadataType {
        key: String,
        expected: &'static str,
        found: String,
    },
    #[error("model has no tensor named `{name}`")]
    MissingTensor { name: String },
    #[error("unsupported tokenizer: {reason}")]
    UnsupportedTokenizer { reason: String },
    #[error("the model's tokenizer data is invalid: {reason}")]
    InvalidVocab { reason: String },
    #[error("token id {id} is outside the vocabulary of {vocab_size} tokens")]
    InvalidToken { id: u32, vocab_size: usize },
    #[error("invalid sampler setting: {reason}")]
    InvalidSampler { reason: String },
    #[error("unsupported chat template: {reason}")]
    UnsupportedChatTemplate { reason: String },
    // --- model, session, generation (llm-core) ---
    #[error("unsupported model architecture `{arch}` (supported: llama, qwen2, qwen3)")]
    UnsupportedArch { arch: String },
    #[error("the model file is not usable: {reason}")]
    InvalidModel { reason: String },
    #[error("compute kernel error: {0}")]
    Kernel(#[from] pocket_kernels::KernelError),
    #[error("{tokens} tokens do not fit the context of {max} tokens")]
    ContextFull { tokens: usize, max: usize },
    #[error("invalid session setting: {reason}")]
    InvalidSession { reason: String },
    // --- benchmarks ---
    #[error("a read-bandwidth buffer of {mib} MiB is outside 1..={max} MiB on this machine")]
    BandwidthBuffer { mib: usize, max: usize },
    // --- requantization ---
    #[error("cannot requantize {tensor}: {reason}")]
    Requant { tensor: String, reason: String },
}
