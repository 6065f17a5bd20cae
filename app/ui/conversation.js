// The conversation view: user turns with their live partial transcript, and assistant replies
// that stream in and are highlighted as they are spoken (cut replies keep what was heard).

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** Number of characters of `full` that cover the first `heard` words (spaces ignored). */
export function spokenPrefix(full, heard) {
  let need = heard.replace(/\s+/g, "").length;
  let i = 0;
  while (i < full.length && need > 0) {
    if (!/\s/.test(full[i])) need--;
    i++;
  }
  return i;
}

export class Conversation {
  constructor(root, emptyHint) {
    this.root = root;
    this.emptyHint = emptyHint;
    this.partial = null; // the user bubble being heard
    this.replies = new Map(); // turn -> { node, text, spoken, state }
  }

  clear() {
    this.root.replaceChildren(this.emptyHint);
    this.emptyHint.hidden = false;
    this.partial = null;
    this.replies.clear();
  }

  add(node) {
    this.emptyHint.hidden = true;
    this.root.append(node);
    this.root.scrollTop = this.root.scrollHeight;
    return node;
  }

  system(text) {
    this.add(el("div", "msg system", text));
  }

  userBubble() {
    const node = el("div", "msg user partial");
    node.append(el("span", "who", "You"), el("span", "text", "…"));
    return node;
  }

  speechStarted() {
    if (!this.partial) this.partial = this.add(this.userBubble());
  }

  partialTranscript(text) {
    this.speechStarted();
    this.partial.querySelector(".text").textContent = text || "…";
    this.root.scrollTop = this.root.scrollHeight;
  }

  /** A final transcript; an empty one removes the bubble (it was not speech after all). */
  finalTranscript(text, turn) {
    const node = this.partial || (text ? this.add(this.userBubble()) : null);
    this.partial = null;
    if (!node) return;
    if (!text) {
      node.remove();
      return;
    }
    node.classList.remove("partial");
    node.querySelector(".text").textContent = text;
    if (turn != null) this.replyFor(turn);
  }

  replyFor(turn) {
    let r = this.replies.get(turn);
    if (r) return r;
    const node = el("div", "msg assistant thinking");
    const text = el("span", "text");
    const typing = el("span", "typing");
    typing.append(el("i"), el("i"), el("i"));
    node.append(el("span", "who", "Assistant"), text, typing);
    r = { node, textNode: text, text: "", spoken: 0, state: "thinking", typing };
    this.replies.set(turn, r);
    this.add(node);
    return r;
  }

  assistantText(turn, piece) {
    const r = this.replyFor(turn);
    r.text += piece;
    if (r.typing) {
      r.typing.remove();
      r.typing = null;
    }
    this.render(r);
  }

  audioStarted(turn) {
    const r = this.replyFor(turn);
    r.state = "speaking";
    r.node.classList.remove("thinking");
    r.node.classList.add("speaking");
  }

  spoken(turn, heard) {
    const r = this.replies.get(turn);
    if (!r || r.state === "done" || r.state === "interrupted") return;
    r.spoken = Math.max(r.spoken, spokenPrefix(r.text, heard));
    this.render(r);
  }

  audioFinished(turn) {
    const r = this.replyFor(turn);
    r.state = "done";
    r.spoken = r.text.length;
    r.node.classList.remove("speaking", "thinking");
    r.node.classList.add("done");
    this.render(r);
  }

  interrupted(turn, heard, cause) {
    const r = this.replyFor(turn);
    r.state = "interrupted";
    r.spoken = spokenPrefix(r.text, heard);
    if (r.typing) {
      r.typing.remove();
      r.typing = null;
    }
    r.node.classList.remove("speaking", "thinking");
    r.node.classList.add("interrupted");
    const why = {
      user_speech: "interrupted — you spoke",
      stop_requested: "stopped",
      superseded: "replaced by your next question",
      output_lost: "cut off — the speaker went away",
      continued: "you went on — answered with the rest of what you said",
    }[cause] || "interrupted";
    r.node.append(el("span", "tag", heard ? `${why}; heard up to here` : `${why} before it was heard`));
    this.render(r);
  }

  latency(turn, ms) {
    const r = this.replies.get(turn);
    if (!r || ms == null) return;
    let lat = r.node.querySelector(".lat");
    if (!lat) lat = r.node.appendChild(el("span", "lat"));
    lat.textContent = `first audio after ${Math.round(ms)} ms`;
  }

  render(r) {
    const spoken = r.text.slice(0, r.spoken);
    const rest = r.text.slice(r.spoken);
    r.textNode.replaceChildren(el("span", "spoken", spoken), el("span", "unspoken", rest));
    this.root.scrollTop = this.root.scrollHeight;
  }
}
