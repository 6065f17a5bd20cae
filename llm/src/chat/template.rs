//! ChatML prompt rendering (`<|im_start|>role\ncontent<|im_end|>\n`), configured from the
//! model's `tokenizer.chat_template`: its default system prompt and whether it has Qwen3's
//! `enable_thinking` switch.

use crate::LlmError;
use crate::gguf::Metadata;

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

/// A ChatML chat template.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatTemplate {
    default_system: Option<String>,
    thinking: bool,
}

const IM_START: &str = "<|im_start|>";
const IM_END: &str = "<|im_end|>";

impl ChatTemplate {
    /// Plain ChatML: no default system prompt, no thinking switch.
    pub fn chatml() -> Self {
        Self::default()
    }

    /// ChatML with the given default system prompt and thinking switch.
    pub fn new(default_system: Option<String>, thinking: bool) -> Self {
        Self {
            default_system,
            thinking,
        }
    }

    /// The template of a model, read from `tokenizer.chat_template` (plain ChatML if the
    /// file has none).
    pub fn from_metadata(meta: &Metadata) -> Result<Self, LlmError> {
        Self::from_template_text(meta.get_opt::<&str>("tokenizer.chat_template")?)
    }

    /// Recognizes a Jinja chat template: it must be ChatML (`<|im_start|>`). The default
    /// system prompt is the literal system turn it writes when the conversation has none;
    /// `enable_thinking` in the template means it has the thinking switch.
    pub fn from_template_text(template: Option<&str>) -> Result<Self, LlmError> {
        let Some(t) = template else {
            return Ok(Self::chatml());
        };
        if !t.contains(IM_START) {
            return Err(LlmError::UnsupportedChatTemplate {
                reason: "only ChatML (<|im_start|>role ... <|im_end|>) templates are supported"
                    .into(),
            });
        }
        Ok(Self {
            default_system: literal_system_prompt(t),
            thinking: t.contains("enable_thinking"),
        })
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
            push_turn(out, Role::System, system);
        }
        for m in messages {
            let content = if m.role == Role::Assistant {
                strip_think(&m.content)
            } else {
                &m.content
            };
            push_turn(out, m.role, content);
        }
        if opts.add_generation_prompt {
            self.generation_prompt_into(opts.enable_thinking, out);
        }
    }

    /// Appends just the generation prompt: `<|im_start|>assistant\n`, plus the empty think
    /// block when thinking is off and the template has the switch.
    pub fn generation_prompt_into(&self, enable_thinking: bool, out: &mut String) {
        out.push_str(IM_START);
        out.push_str("assistant\n");
        if self.thinking && !enable_thinking {
            out.push_str("<think>\n\n</think>\n\n");
        }
    }
}

fn push_turn(out: &mut String, role: Role, content: &str) {
    out.push_str(IM_START);
    out.push_str(role.as_str());
    out.push('\n');
    out.push_str(content);
    out.push_str(IM_END);
    out.push('\n');
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
}
