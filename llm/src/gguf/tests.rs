//! Reader tests on hand-built GGUF images: a valid file, and a table of corruptions that
//! must each give an error (never a panic, an out-of-bounds read or a huge allocation).

use super::*;
use crate::LlmError;

/// Low-level image builder: writes exactly what it is told, so tests can lie.
#[derive(Default)]
struct Image {
    bytes: Vec<u8>,
}

impl Image {
    fn header(version: u32, n_tensors: u64, n_kv: u64) -> Self {
        let mut bytes = b"GGUF".to_vec();
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&n_tensors.to_le_bytes());
        bytes.extend_from_slice(&n_kv.to_le_bytes());
        Self { bytes }
    }
    fn u32(mut self, v: u32) -> Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn raw(mut self, b: &[u8]) -> Self {
        self.bytes.extend_from_slice(b);
        self
    }
    fn str(mut self, s: &str) -> Self {
        encode_str(s, &mut self.bytes);
        self
    }
    fn kv(mut self, key: &str, v: &MetaValue) -> Self {
        encode_str(key, &mut self.bytes);
        v.encode(&mut self.bytes);
        self
    }
    fn tensor(self, name: &str, dims: &[u64], ty: u32, offset: u64) -> Self {
        let mut s = self.str(name).u32(dims.len() as u32);
        for &d in dims {
            s = s.u64(d);
        }
        s.u32(ty).u64(offset)
    }
    fn pad(mut self, align: usize) -> Self {
        while !self.bytes.len().is_multiple_of(align) {
            self.bytes.push(0);
        }
        self
    }
    fn data(mut self, n: usize) -> Self {
        self.bytes.extend((0..n).map(|i| (i % 251) as u8));
        self
    }
    fn parse(self) -> Result<GgufFile, LlmError> {
        GgufFile::from_bytes(self.bytes)
    }
}

fn gguf_err(r: Result<GgufFile, LlmError>) -> GgufError {
    match r {
        Err(LlmError::Gguf { source, .. }) => source,
        Err(e) => panic!("expected a GGUF error, got {e}"),
        Ok(_) => panic!("expected a GGUF error, the file parsed"),
    }
}

/// A small valid file: metadata of several types, three tensors (f32, q4_1, q8_0).
fn valid() -> Image {
    let f32_bytes = 4 * 8 * 2; // [8, 2] f32 = 64 bytes
    let q41_bytes = 2 * 20 * 3; // [64, 3] q4_1 = 120 bytes -> padded to 128
    let q80_bytes = 34; // [32] q8_0
    Image::header(3, 3, 5)
        .kv("general.architecture", &MetaValue::String("llama".into()))
        .kv("llama.block_count", &MetaValue::U32(2))
        .kv("llama.rope.freq_base", &MetaValue::F32(10000.0))
        .kv("tokenizer.ggml.add_bos_token", &MetaValue::Bool(true))
        .kv(
            "tokenizer.ggml.tokens",
            &MetaValue::Array(MetaArray::String(vec![
                "<s>".into(),
                "a".into(),
                "b".into(),
            ])),
        )
        .tensor("a", &[8, 2], 0, 0)
        .tensor("b", &[64, 3], 3, 64)
        .tensor("c", &[32], 8, 192)
        .pad(32)
        .data(f32_bytes)
        .data(q41_bytes)
        .pad(32)
        .data(q80_bytes)
}

#[test]
fn valid_image_parses_with_exact_tensor_views() {
    let f = valid().parse().expect("valid image");
    assert_eq!(f.version(), 3);
    assert_eq!(f.alignment(), 32);
    assert_eq!(f.architecture().expect("arch"), "llama");
    assert_eq!(f.get_arch::<u32>("block_count").expect("u32"), 2);
    assert!(f.get::<bool>("tokenizer.ggml.add_bos_token").expect("bool"));
    assert_eq!(
        f.get::<&[String]>("tokenizer.ggml.tokens").expect("tokens")[2],
        "b"
    );
    assert_eq!(f.tensors().len(), 3);
    let b = f.tensor("b").expect("b");
    assert_eq!(
        (
            b.ggml_type(),
            b.dims(),
            b.n_bytes(),
            b.n_rows(),
            b.row_bytes()
        ),
        (GgmlType::Q4_1, &[64, 3][..], 120, 3, 40)
    );
    let (c, data) = f.tensor_bytes("c").expect("c");
    assert_eq!(c.n_elements(), 32);
    assert_eq!(data.len(), 34);
    assert_eq!(
        data.as_ptr() as usize - f.bytes().as_ptr() as usize,
        f.data_offset() as usize + 192
    );
    assert_eq!(f.tensor_data(f.tensor("a").expect("a"))[..3], [0, 1, 2]);
    assert!(matches!(
        f.tensor_bytes("zz"),
        Err(LlmError::MissingTensor { .. })
    ));
}

#[test]
fn v2_and_custom_alignment_are_honored() {
    let img = Image::header(2, 1, 1)
        .kv("general.alignment", &MetaValue::U32(64))
        .tensor("t", &[4], 1, 0)
        .pad(64)
        .data(8);
    let f = img.parse().expect("v2 with alignment 64");
    assert_eq!(
        (f.version(), f.alignment(), f.data_offset() % 64),
        (2, 64, 0)
    );
}

#[test]
fn no_tensors_and_no_metadata_is_fine() {
    let f = Image::header(3, 0, 0).parse().expect("empty file");
    assert!(f.tensors().is_empty() && f.metadata().is_empty());
}

#[test]
fn every_truncation_is_an_error() {
    let full = valid().bytes;
    for len in 0..full.len() {
        let r = GgufFile::from_bytes(full[..len].to_vec());
        assert!(
            matches!(r, Err(LlmError::Gguf { .. })),
            "prefix of {len} bytes parsed"
        );
    }
}

#[test]
fn corruption_table() {
    use GgufError as E;
    let s = |x: &str| MetaValue::String(x.into());
    type Check = fn(&GgufError) -> bool;
    let cases: Vec<(&str, Image, Check)> = vec![
        (
            "bad magic",
            Image {
                bytes: b"GGML\x03\0\0\0".to_vec(),
            },
            |e| matches!(e, E::BadMagic { .. }),
        ),
        (
            "short magic",
            Image {
                bytes: b"GG".to_vec(),
            },
            |e| matches!(e, E::BadMagic { .. }),
        ),
        ("version 0", Image::header(0, 0, 0), |e| {
            matches!(e, E::UnsupportedVersion(0))
        }),
        ("version 1", Image::header(1, 0, 0), |e| {
            matches!(e, E::UnsupportedVersion(1))
        }),
        ("version 4", Image::header(4, 0, 0), |e| {
            matches!(e, E::UnsupportedVersion(4))
        }),
        ("big endian", Image::header(3u32.swap_bytes(), 0, 0), |e| {
            matches!(e, E::BigEndian(_))
        }),
        ("huge tensor count", Image::header(3, u64::MAX, 0), |e| {
            matches!(e, E::CountTooLarge { .. })
        }),
        ("huge kv count", Image::header(3, 0, u64::MAX), |e| {
            matches!(e, E::CountTooLarge { .. })
        }),
        (
            "kv count past end",
            Image::header(3, 0, 1000).kv("a", &MetaValue::U8(1)),
            |e| matches!(e, E::CountTooLarge { .. }),
        ),
        (
            "huge key length",
            Image::header(3, 0, 1).u64(u64::MAX).raw(&[0; 16]),
            |e| matches!(e, E::Truncated { .. }),
        ),
        (
            "empty key",
            Image::header(3, 0, 1).str("").u32(0).raw(&[1; 8]),
            |e| matches!(e, E::EmptyKey { .. }),
        ),
        (
            "key not utf-8",
            Image::header(3, 0, 1)
                .u64(2)
                .raw(&[0xff, 0xfe])
                .u32(0)
                .raw(&[0; 8]),
            |e| matches!(e, E::InvalidUtf8 { .. }),
        ),
        (
            "duplicate key",
            Image::header(3, 0, 2)
                .kv("k", &MetaValue::U8(1))
                .kv("k", &MetaValue::U8(2)),
            |e| matches!(e, E::DuplicateKey(_)),
        ),
        (
            "bad value type",
            Image::header(3, 0, 1).str("k").u32(13).raw(&[0; 8]),
            |e| matches!(e, E::BadValueType { type_id: 13, .. }),
        ),
        (
            "bad bool",
            Image::header(3, 0, 1)
                .str("k")
                .u32(7)
                .raw(&[2])
                .raw(&[0; 8]),
            |e| matches!(e, E::BadBool { .. }),
        ),
        (
            "huge string",
            Image::header(3, 0, 1)
                .str("k")
                .u32(8)
                .u64(1 << 62)
                .raw(&[0; 8]),
            |e| matches!(e, E::Truncated { .. }),
        ),
        (
            "huge array",
            Image::header(3, 0, 1)
                .str("k")
                .u32(9)
                .u32(8)
                .u64(u64::MAX / 2)
                .raw(&[0; 64]),
            |e| matches!(e, E::CountTooLarge { .. }),
        ),
        (
            "huge u32 array",
            Image::header(3, 0, 1)
                .str("k")
                .u32(9)
                .u32(4)
                .u64(1 << 40)
                .raw(&[0; 64]),
            |e| matches!(e, E::CountTooLarge { .. }),
        ),
        (
            "bad array element type",
            Image::header(3, 0, 1)
                .str("k")
                .u32(9)
                .u32(99)
                .u64(1)
                .raw(&[0; 8]),
            |e| matches!(e, E::BadValueType { type_id: 99, .. }),
        ),
        ("deeply nested arrays", nested_arrays(40), |e| {
            matches!(e, E::NestingTooDeep { .. })
        }),
        (
            "alignment 3",
            Image::header(3, 0, 1).kv("general.alignment", &MetaValue::U32(3)),
            |e| matches!(e, E::BadAlignment(_)),
        ),
        (
            "alignment 0",
            Image::header(3, 0, 1).kv("general.alignment", &MetaValue::U32(0)),
            |e| matches!(e, E::BadAlignment(_)),
        ),
        (
            "alignment string",
            Image::header(3, 0, 1).kv("general.alignment", &s("32")),
            |e| matches!(e, E::BadAlignment(_)),
        ),
        ("bad tensor type", one_tensor(&[32], 4, 0, 64), |e| {
            matches!(e, E::UnknownTensorType { type_id: 4, .. })
        }),
        (
            "huge tensor type",
            one_tensor(&[32], u32::MAX, 0, 64),
            |e| matches!(e, E::UnknownTensorType { .. }),
        ),
        ("five dims", one_tensor(&[1, 1, 1, 1, 1], 0, 0, 64), |e| {
            matches!(e, E::BadTensorShape { .. })
        }),
        (
            "huge n_dims",
            Image::header(3, 1, 0).str("t").u32(u32::MAX).raw(&[0; 64]),
            |e| matches!(e, E::BadTensorShape { .. }),
        ),
        ("negative dim", one_tensor(&[u64::MAX], 0, 0, 64), |e| {
            matches!(e, E::BadTensorShape { .. })
        }),
        (
            "element overflow",
            one_tensor(&[1 << 32, 1 << 32], 0, 0, 64),
            |e| matches!(e, E::BadTensorShape { .. }),
        ),
        (
            // No elements (empty rows), but 2^80 rows: n_rows() used to overflow.
            "row count overflow",
            one_tensor(&[0, 1 << 40, 1 << 40], 0, 0, 64),
            |e| matches!(e, E::BadTensorShape { .. }),
        ),
        (
            "byte size overflow",
            one_tensor(&[1 << 62], 0, 0, 64),
            |e| matches!(e, E::BadTensorShape { .. }),
        ),
        (
            "row not a block multiple",
            one_tensor(&[33], 2, 0, 64),
            |e| matches!(e, E::BadTensorShape { .. }),
        ),
        ("data past end", one_tensor(&[32], 0, 0, 127), |e| {
            matches!(e, E::TensorOutOfBounds { .. })
        }),
        ("offset past end", one_tensor(&[8], 0, 1 << 20, 64), |e| {
            matches!(e, E::TensorOutOfBounds { .. })
        }),
        (
            "offset overflow",
            one_tensor(&[8], 0, u64::MAX - 31, 64),
            |e| matches!(e, E::TensorOutOfBounds { .. }),
        ),
        ("misaligned", one_tensor(&[8], 0, 4, 64), |e| {
            matches!(e, E::MisalignedTensor { offset: 4, .. })
        }),
        ("overlap", two_tensors(0, 32), |e| {
            matches!(e, E::OverlappingTensors { .. })
        }),
        ("same offset", two_tensors(64, 64), |e| {
            matches!(e, E::OverlappingTensors { .. })
        }),
        (
            "duplicate tensor",
            Image::header(3, 2, 0)
                .tensor("t", &[8], 0, 0)
                .tensor("t", &[8], 0, 32)
                .pad(32)
                .data(64),
            |e| matches!(e, E::DuplicateTensor(_)),
        ),
        (
            "tensor name not utf-8",
            Image::header(3, 1, 0)
                .u64(1)
                .raw(&[0x80])
                .u32(1)
                .u64(8)
                .u32(0)
                .u64(0)
                .pad(32)
                .data(32),
            |e| matches!(e, E::InvalidUtf8 { .. }),
        ),
        (
            "data section past end",
            Image::header(3, 1, 0).tensor("t", &[0], 0, 0),
            |e| matches!(e, E::Truncated { .. }),
        ),
    ];
    for (name, img, check) in cases {
        let e = gguf_err(img.parse());
        assert!(check(&e), "{name}: unexpected error {e:?}");
        assert!(!e.to_string().is_empty());
    }
}

fn one_tensor(dims: &[u64], ty: u32, offset: u64, data: usize) -> Image {
    Image::header(3, 1, 0)
        .tensor("t", dims, ty, offset)
        .pad(32)
        .data(data)
}

/// Two 64-byte f32 tensors at the given offsets in a 128-byte data section.
fn two_tensors(a: u64, b: u64) -> Image {
    Image::header(3, 2, 0)
        .tensor("x", &[16], 0, a)
        .tensor("y", &[16], 0, b)
        .pad(32)
        .data(128)
}

fn nested_arrays(depth: usize) -> Image {
    let mut img = Image::header(3, 0, 1).str("k").u32(9);
    for _ in 0..depth {
        img = img.u32(9).u64(1);
    }
    img.u32(0).u64(0)
}

#[test]
fn random_mutations_never_panic() {
    let base = valid().bytes;
    let header_len = GgufFile::from_bytes(base.clone())
        .expect("valid")
        .data_offset() as usize;
    let mut rng = pocket_stats::Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.next_u64();
    let mut errors = 0;
    for _ in 0..3000 {
        let mut bytes = base.clone();
        for _ in 0..1 + next() % 4 {
            let at = (next() % header_len as u64) as usize;
            bytes[at] = match next() % 4 {
                0 => 0xff,
                1 => 0,
                _ => next() as u8,
            };
        }
        if next() % 8 == 0 {
            bytes.truncate((next() % base.len() as u64) as usize);
        }
        if let Ok(f) = GgufFile::from_bytes(bytes) {
            for t in f.tensors() {
                let data = f.tensor_data(t);
                assert_eq!(data.len() as u64, t.n_bytes());
            }
        } else {
            errors += 1;
        }
    }
    assert!(
        errors > 1000,
        "mutations should mostly break the file ({errors} errors)"
    );
}

#[test]
fn removing_a_key_keeps_the_others_and_their_order() {
    let mut m = super::Metadata::new();
    for (k, v) in [("a", 1u32), ("b", 2), ("c", 3), ("d", 4)] {
        m.insert(k, MetaValue::U32(v));
    }
    assert_eq!(m.remove("b"), Some(MetaValue::U32(2)));
    assert_eq!(m.remove("b"), None);
    assert!(!m.contains("b"));
    assert_eq!(m.get_u32("c").expect("c"), 3);
    assert_eq!(m.get_u32("d").expect("d"), 4);
    m.insert("c", MetaValue::U32(30));
    let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["a", "c", "d"]);
    assert_eq!(m.get_u32("c").expect("c"), 30);
}
