//! Chat prompt rendering in the turn formats GGUF chat models use: ChatML
//! (`<|im_start|>role\ncontent<|im_end|>\n`: Qwen, SmolLM2, MNN-Pocket), Llama 3
//! (`<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>`) and the tagged
//! Zephyr / Phi-3 style (`<|role|>\ncontent</s>` or `<|end|>`). The format, the default system
//! prompt and Qwen3's `enable_thinking` switch are read from the model's
//! `tokenizer.chat_template`.

use crate::LlmError;
use crate::gguf::Metadata;
use crate::tokenizer::Tokenizer;

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// The role name written in the prompt.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

/// Rendering options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatOptions {
    /// End with `<|im_start|>assistant\n` so the model writes the reply.
    pub add_generation_prompt: bool,
    /// For templates with a thinking switch: `false` appends an empty
    /// `<think>\n\n</think>\n\n` block after the generation prompt, as Qwen3's template does,
    /// so the model answers directly.
    pub enable_thinking: bool,
}

impl Default for ChatOptions {
    /// A reply prompt without thinking (what a voice assistant wants).
    fn default() -> Self {
        Self {
            add_generation_prompt: true,
            enable_thinking: false,
        }
    }
}

/// How a template writes one turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TurnFormat {
    /// `<|im_start|>role\ncontent<|im_end|>\n`.
    #[default]
    ChatMl,
    /// `<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>`.
    Llama3,
    /// `<|role|>\ncontent` + `end` + `\n`, `end` being `</s>` (Zephyr, TinyLlama: the
    /// model's end-of-sequence text) or `<|end|>` (Phi-3).
    Tagged { end: String },
}

/// A chat template: turn format, default system prompt, thinking switch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatTemplate {
    format: TurnFormat,
    default_system: Option<String>,
    thinking: bool,
}

const IM_START: &str = "<|im_start|>";
const IM_END: &str = "<|im_end|>";
const HEADER_START: &str = "<|start_header_id|>";
const HEADER_END: &str = "<|end_header_id|>";
const EOT: &str = "<|eot_id|>";
const PHI3_END: &str = "<|end|>";

impl ChatTemplate {
    /// Plain ChatML: no default system prompt, no thinking switch.
    pub fn chatml() -> Self {
        Self::default()
    }

    /// ChatML with the given default system prompt and thinking switch.
    pub fn new(default_system: Option<String>, thinking: bool) -> Self {
        Self {
            format: TurnFormat::ChatMl,
            default_system,
            thinking,
        }
    }

    /// The template of a model, read from `tokenizer.chat_template` (plain ChatML if the
    /// file has none). A Zephyr-style template's turns end with the model's end-of-sequence
    /// text.
    pub fn from_metadata(meta: &Metadata) -> Result<Self, LlmError> {
        let eos_text = meta
            .get_opt::<u32>("tokenizer.ggml.eos_token_id")
            .ok()
            .flatten()
            .and_then(|id| eos_text(meta, id));
        Self::recognize(
            meta.get_opt::<&str>("tokenizer.chat_template")?,
            eos_text.as_deref(),
        )
    }

    /// The template of a loaded model, as [`from_metadata`](Self::from_metadata) does, with the
    /// end-of-sequence text from its tokenizer (a loaded model's metadata no longer holds the
    /// vocabulary: [`GgufFile::forget_vocabulary`](crate::gguf::GgufFile::forget_vocabulary)).
    pub fn of_model(meta: &Metadata, tokenizer: &Tokenizer) -> Result<Self, LlmError> {
        let eos_text = tokenizer.eos().and_then(|id| tokenizer.token_text(id));
        Self::recognize(meta.get_opt::<&str>("tokenizer.chat_template")?, eos_text)
    }

    /// [`from_metadata`](Self::from_metadata) for a template's text alone (`</s>` ends a
    /// Zephyr-style turn).
    pub fn from_template_text(template: Option<&str>) -> Result<Self, LlmError> {
        Self::recognize(template, None)
    }

    /// Recognizes a Jinja chat template by the markers it writes. For ChatML the default
    /// system prompt is the literal system turn it writes when the conversation has none;
    /// `enable_thinking` in the template means it has the thinking switch.
    fn recognize(template: Option<&str>, eos_text: Option<&str>) -> Result<Self, LlmError> {
        let Some(t) = template else {
            return Ok(Self::chatml());
        };
        let thinking = t.contains("enable_thinking");
        let (format, default_system) = if t.contains(IM_START) {
            (TurnFormat::ChatMl, literal_system_prompt(t))
        } else if t.contains(HEADER_START) && t.contains(EOT) {
            (TurnFormat::Llama3, None)
        } else if t.contains("<|user|>") && t.contains("<|assistant|>") {
            let end = if t.contains(PHI3_END) {
                PHI3_END
            } else {
                eos_text.unwrap_or("</s>")
            };
            (TurnFormat::Tagged { end: end.into() }, None)
        } else {
            return Err(LlmError::UnsupportedChatTemplate {
                reason: format!(
                    "the model's chat template is none of the supported turn formats: ChatML \
                     (<|im_start|>), Llama 3 (<|start_header_id|> ... <|eot_id|>), Zephyr / \
                     Phi-3 (<|user|> ... <|assistant|>); it begins {:?}",
                    t.chars().take(80).collect::<String>()
                ),
            });
        };
        Ok(Self {
            format,
            default_system,
            thinking,
        })
    }

    /// How this template writes a turn.
    pub fn format(&self) -> &TurnFormat {
        &self.format
    }

    /// The system prompt used when the conversation starts without one.
    pub fn default_system(&self) -> Option<&str> {
        self.default_system.as_deref()
    }

    /// Whether the template has Qwen3's `enable_thinking` switch.
    pub fn supports_thinking(&self) -> bool {
        self.thinking
    }

    /// The prompt for `messages`.
    pub fn render(&self, messages: &[Message], opts: ChatOptions) -> String {
        let mut out = String::new();
        self.render_into(messages, opts, &mut out);
        out
    }

    /// Appends the prompt for `messages` to `out`. Assistant turns are written without any
    /// `<think>` block they may contain.
    pub fn render_into(&self, messages: &[Message], opts: ChatOptions, out: &mut String) {
        if let Some(system) = &self.default_system
            && messages.first().is_none_or(|m| m.role != Role::System)
        {
            self.turn_into(Role::System, system, out);
        }
        for m in messages {
            let content = if m.role == Role::Assistant {
                strip_think(&m.content)
            } else {
                &m.content
            };
            self.turn_into(m.role, content, out);
        }
        if opts.add_generation_prompt {
            self.generation_prompt_into(opts.enable_thinking, out);
        }
    }

    /// Appends just the generation prompt (`<|im_start|>assistant\n` in ChatML), plus the
    /// empty think block when thinking is off and the template has the switch.
    pub fn generation_prompt_into(&self, enable_thinking: bool, out: &mut String) {
        self.header_into(Role::Assistant, out);
        if self.thinking && !enable_thinking {
            out.push_str("<think>\n\n</think>\n\n");
        }
    }

    /// Appends one whole turn.
    pub fn turn_into(&self, role: Role, content: &str, out: &mut String) {
        self.header_into(role, out);
        out.push_str(content);
        self.turn_end_into(out);
    }

    /// Appends what closes a turn whose content was just written (an open reply).
    pub fn turn_end_into(&self, out: &mut String) {
        match &self.format {
            TurnFormat::ChatMl => out.push_str("<|im_end|>\n"),
            TurnFormat::Llama3 => out.push_str(EOT),
            TurnFormat::Tagged { end } => {
                out.push_str(end);
                out.push('\n');
            }
        }
    }

    /// Appends what opens a turn of `role`, before its content.
    pub fn header_into(&self, role: Role, out: &mut String) {
        match &self.format {
            TurnFormat::ChatMl => {
                out.push_str(IM_START);
                out.push_str(role.as_str());
                out.push('\n');
            }
            TurnFormat::Llama3 => {
                out.push_str(HEADER_START);
                out.push_str(role.as_str());
                out.push_str(HEADER_END);
                out.push_str("\n\n");
            }
            TurnFormat::Tagged { .. } => {
                out.push_str("<|");
                out.push_str(role.as_str());
                out.push_str("|>\n");
            }
        }
    }

    /// The text every user turn starts with (how earlier turns are found in a transcript).
    pub fn user_header(&self) -> String {
        let mut s = String::new();
        self.header_into(Role::User, &mut s);
        s
    }
}

/// The vocabulary text of token `id` (the end-of-sequence marker a template writes).
fn eos_text(meta: &Metadata, id: u32) -> Option<String> {
    match meta.value("tokenizer.ggml.tokens")? {
        crate::gguf::MetaValue::Array(crate::gguf::MetaArray::String(tokens)) => {
            tokens.get(id as usize).cloned()
        }
        _ => None,
    }
}

/// The reply text without a leading `<think>...</think>` block (and the newlines after it),
/// as Qwen3's template writes earlier assistant turns. An unclosed block leaves nothing.
pub fn strip_think(content: &str) -> &str {
    let trimmed = content.trim_start();
    let Some(rest) = trimmed.strip_prefix("<think>") else {
        return content;
    };
    match rest.find("</think>") {
        Some(end) => rest[end + "</think>".len()..].trim_start_matches(['\n', '\r', ' ']),
        None => "",
    }
}

/// Finds `<|im_start|>system` + newline + literal text + `<|im_end|>` inside a Jinja string
/// literal: the system prompt the template writes when the conversation has none.
fn literal_system_prompt(template: &str) -> Option<String> {
    const HEAD: &str = "<|im_start|>system";
    let mut from = 0;
    while let Some(at) = template[from..].find(HEAD) {
        let after = from + at + HEAD.len();
        from = after;
        let rest = &template[after..];
        let Some(rest) = rest.strip_prefix("\\n").or_else(|| rest.strip_prefix('\n')) else {
            continue;
        };
        let Some(end) = rest.find(IM_END) else {
            continue;
        };
        let text = &rest[..end];
        // Template code (a variable, a concatenation, a closed literal) is not a prompt.
        if text.is_empty() || text.contains(['\'', '"', '{', '}', '+']) {
            continue;
        }
        return Some(text.replace("\\n", "\n"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMOLLM2: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    /// The part of Qwen3's official template that matters here.
    const QWEN3: &str = "{%- if messages[0].role == 'system' %}\n    {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n{%- endif %}\n{%- for message in messages %}...{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|im_start|>assistant\\n' }}\n    {%- if enable_thinking is defined and enable_thinking is false %}\n        {{- '<think>\\n\\n</think>\\n\\n' }}\n    {%- endif %}\n{%- endif %}";

    #[test]
    fn smollm2_template_adds_its_default_system_prompt() {
        let t = ChatTemplate::from_template_text(Some(SMOLLM2)).expect("chatml");
        assert_eq!(
            t.default_system(),
            Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face")
        );
        assert!(!t.supports_thinking());
        let p = t.render(&[Message::user("Hi")], ChatOptions::default());
        assert_eq!(
            p,
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
             <|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
        let own = t.render(
            &[
                Message::system("Be brief."),
                Message::user("Hi"),
                Message::assistant("Hello!"),
                Message::user("Bye"),
            ],
            ChatOptions {
                add_generation_prompt: false,
                enable_thinking: false,
            },
        );
        assert_eq!(
            own,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n\
             <|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n"
        );
    }

    #[test]
    fn qwen3_thinking_switch() {
        let t = ChatTemplate::from_template_text(Some(QWEN3)).expect("chatml");
        assert_eq!(t.default_system(), None);
        assert!(t.supports_thinking());
        let msgs = [
            Message::user("2+2?"),
            Message::assistant("<think>\nadd\n</think>\n\n4"),
            Message::user("3+3?"),
        ];
        let off = t.render(&msgs, ChatOptions::default());
        assert_eq!(
            off,
            "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>\n\
             <|im_start|>user\n3+3?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
        );
        let on = t.render(
            &msgs[..1],
            ChatOptions {
                add_generation_prompt: true,
                enable_thinking: true,
            },
        );
        assert_eq!(
            on,
            "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn templates_and_think_stripping() {
        assert_eq!(
            ChatTemplate::from_template_text(None).expect("fallback"),
            ChatTemplate::chatml()
        );
        let llama3 = "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>' }}";
        assert!(matches!(
            ChatTemplate::from_template_text(Some(llama3)),
            Err(LlmError::UnsupportedChatTemplate { .. })
        ));
        assert_eq!(strip_think("plain"), "plain");
        assert_eq!(strip_think("<think>x</think>\n\nanswer"), "answer");
        assert_eq!(strip_think("<think>never closed"), "");
        assert_eq!(
            strip_think("a <think>b</think>"),
            "a <think>b</think>",
            "only a leading block"
        );
    }
    /// Llama 3.2 Instruct's template, the parts that write turns.
    const LLAMA32: &str = "{{- bos_token }}\n{%- if not date_string is defined %}{%- set date_string = \"26 Jul 2024\" %}{%- endif %}\n{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}\n{%- for message in messages %}\n{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n{%- endif %}";

    /// TinyLlama-1.1B-Chat's (Zephyr) template.
    const ZEPHYR: &str = "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + eos_token }}\n{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n{% endif %}\n{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}";

    /// Phi-3's template.
    const PHI3: &str = "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}";

    fn conversation() -> [Message; 4] {
        [
            Message::system("Be brief."),
            Message::user("Hi"),
            Message::assistant("Hello!"),
            Message::user("Bye"),
        ]
    }

    #[test]
    fn llama3_turns() {
        let t = ChatTemplate::from_template_text(Some(LLAMA32)).expect("llama 3");
        assert_eq!(t.format(), &TurnFormat::Llama3);
        assert_eq!(t.default_system(), None);
        assert_eq!(
            t.render(&conversation(), ChatOptions::default()),
            "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n"
        );
        assert_eq!(
            t.user_header(),
            "<|start_header_id|>user<|end_header_id|>\n\n"
        );
    }

    #[test]
    fn zephyr_and_phi3_turns() {
        let z = ChatTemplate::recognize(Some(ZEPHYR), Some("</s>")).expect("zephyr");
        assert_eq!(
            z.render(&conversation(), ChatOptions::default()),
            "<|system|>\nBe brief.</s>\n<|user|>\nHi</s>\n<|assistant|>\nHello!</s>\n\
             <|user|>\nBye</s>\n<|assistant|>\n"
        );
        let p = ChatTemplate::from_template_text(Some(PHI3)).expect("phi-3");
        assert_eq!(
            p.format(),
            &TurnFormat::Tagged {
                end: "<|end|>".into()
            }
        );
        assert_eq!(
            p.render(&conversation()[1..2], ChatOptions::default()),
            "<|user|>\nHi<|end|>\n<|assistant|>\n"
        );
        assert_eq!(p.user_header(), "<|user|>\n");
        // The eos text comes from the model: a Zephyr template over another vocabulary.
        let other = ChatTemplate::recognize(Some(ZEPHYR), Some("<|endoftext|>")).expect("zephyr");
        assert!(
            other
                .render(&conversation()[1..2], ChatOptions::default())
                .starts_with("<|user|>\nHi<|endoftext|>\n")
        );
    }

    #[test]
    fn unknown_templates_name_the_supported_formats() {
        let mistral = "{{ bos_token }}{% for message in messages %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% endfor %}";
        let Err(LlmError::UnsupportedChatTemplate { reason }) =
            ChatTemplate::from_template_text(Some(mistral))
        else {
            panic!("[INST] templates are not supported");
        };
        assert!(
            reason.contains("ChatML") && reason.contains("Llama 3") && reason.contains("[INST]")
        );
    }
}
