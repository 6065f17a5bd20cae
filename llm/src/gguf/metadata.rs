//! The key/value metadata of a GGUF file, in file order, with typed getters.

use std::collections::HashMap;

use super::value::{FromMeta, MetaValue};
use crate::LlmError;

/// Ordered metadata map. Getters return `LlmError::MissingMetadata` for absent keys and
/// `LlmError::WrongMetadataType` for values of another type.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    entries: Vec<(String, MetaValue)>,
    index: HashMap<String, usize>,
}

impl Metadata {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` to `value`, replacing an existing value in place (order is kept).
    pub fn insert(&mut self, key: impl Into<String>, value: MetaValue) {
        let key = key.into();
        match self.index.get(&key) {
            Some(&i) => self.entries[i].1 = value,
            None => {
                self.index.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    /// Removes `key`, returning its value (the order of the rest is kept).
    pub fn remove(&mut self, key: &str) -> Option<MetaValue> {
        let i = self.index.remove(key)?;
        let (_, value) = self.entries.remove(i);
        for (k, _) in &self.entries[i..] {
            if let Some(at) = self.index.get_mut(k) {
                *at -= 1;
            }
        }
        Some(value)
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.index.contains_key(key)
    }

    /// The raw value of `key`.
    pub fn value(&self, key: &str) -> Option<&MetaValue> {
        self.index.get(key).map(|&i| &self.entries[i].1)
    }

    /// Entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &MetaValue)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key` converted to `T`.
    pub fn get<'a, T: FromMeta<'a>>(&'a self, key: &str) -> Result<T, LlmError> {
        self.get_opt(key)?.ok_or_else(|| LlmError::MissingMetadata {
            key: key.to_string(),
        })
    }

    /// Like [`get`](Self::get), but an absent key gives `Ok(None)`; a wrong type is still
    /// an error.
    pub fn get_opt<'a, T: FromMeta<'a>>(&'a self, key: &str) -> Result<Option<T>, LlmError> {
        let Some(value) = self.value(key) else {
            return Ok(None);
        };
        T::from_meta(value)
            .map(Some)
            .ok_or_else(|| LlmError::WrongMetadataType {
                key: key.to_string(),
                expected: T::EXPECTED,
                found: value.type_description(),
            })
    }

    /// `get::<u32>`.
    pub fn get_u32(&self, key: &str) -> Result<u32, LlmError> {
        self.get(key)
    }

    /// `get::<u64>`.
    pub fn get_u64(&self, key: &str) -> Result<u64, LlmError> {
        self.get(key)
    }

    /// `get::<f32>`.
    pub fn get_f32(&self, key: &str) -> Result<f32, LlmError> {
        self.get(key)
    }

    /// `get::<bool>`.
    pub fn get_bool(&self, key: &str) -> Result<bool, LlmError> {
        self.get(key)
    }

    /// `get::<&str>`.
    pub fn get_str(&self, key: &str) -> Result<&str, LlmError> {
        self.get(key)
    }

    /// `general.architecture`, e.g. `llama`, `qwen2`, `qwen3`.
    pub fn architecture(&self) -> Result<&str, LlmError> {
        self.get_str("general.architecture")
    }

    /// The full key `"{architecture}.{suffix}"`, e.g. `arch_key("block_count")` ->
    /// `"llama.block_count"`.
    pub fn arch_key(&self, suffix: &str) -> Result<String, LlmError> {
        Ok(format!("{}.{suffix}", self.architecture()?))
    }

    /// The architecture-prefixed value: `get_arch::<u32>("block_count")`.
    pub fn get_arch<'a, T: FromMeta<'a>>(&'a self, suffix: &str) -> Result<T, LlmError> {
        self.get(&self.arch_key(suffix)?)
    }

    /// The architecture-prefixed value, `Ok(None)` if absent.
    pub fn get_arch_opt<'a, T: FromMeta<'a>>(
        &'a self,
        suffix: &str,
    ) -> Result<Option<T>, LlmError> {
        self.get_opt(&self.arch_key(suffix)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::MetaArray;

    #[test]
    fn getters_report_missing_and_mistyped_keys() {
        let mut m = Metadata::new();
        m.insert("general.architecture", MetaValue::String("llama".into()));
        m.insert("llama.block_count", MetaValue::U32(30));
        m.insert("llama.rope.freq_base", MetaValue::F32(1e5));
        m.insert("t", MetaValue::Array(MetaArray::String(vec!["a".into()])));

        assert_eq!(m.get_u32("llama.block_count").expect("present"), 30);
        assert_eq!(m.get_arch::<u64>("block_count").expect("present"), 30);
        assert_eq!(m.get_arch::<f32>("rope.freq_base").expect("present"), 1e5);
        assert_eq!(m.get::<&[String]>("t").expect("present").len(), 1);

        let e = m.get_u32("llama.context_length").expect_err("missing");
        assert!(
            matches!(e, LlmError::MissingMetadata { ref key } if key == "llama.context_length")
        );
        assert_eq!(
            m.get_arch_opt::<u32>("context_length")
                .expect("absent is ok"),
            None
        );

        let e = m.get_str("llama.block_count").expect_err("wrong type");
        assert!(
            matches!(e, LlmError::WrongMetadataType { expected: "string", ref found, .. } if found == "u32"),
            "{e}"
        );
        assert!(m.get_opt::<bool>("t").is_err());

        m.insert("llama.block_count", MetaValue::U32(28));
        assert_eq!(m.len(), 4);
        assert_eq!(m.get_u32("llama.block_count").expect("present"), 28);
    }
}
