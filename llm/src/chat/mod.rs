//! Chat prompts and reply filtering: templating in ChatML, Llama 3 and Zephyr/Phi-3 turn
//! formats (system/user/assistant turns,
//! generation prompt, Qwen3's thinking switch) and a streaming filter that removes
//! `<think>...</think>` content from generated text, so it is never spoken; the history
//! policy (which earlier turns the model sees); whether a question repeats the last one; the
//! opening of the user's words a reply may not echo.

pub(crate) mod history;
mod opening;
mod repeat;
mod template;
mod think;

pub use history::HistoryPolicy;
pub use opening::echo_openings;
pub use repeat::same_question;
pub use template::{ChatOptions, ChatTemplate, Message, Role, TurnFormat, strip_think};
pub use think::ThinkFilter;
