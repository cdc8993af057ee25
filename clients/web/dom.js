// HTML from templates with every interpolated value escaped (names are typed by players),
// unless it is itself made by `html` (or passed through `raw`, for our own server's SVG).
// Also the notice line every screen shares.

import { ApiError } from "./api.js";

class Html {
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

export const raw = (text) => new Html(String(text));

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

function show(value) {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(show).join("");
  return esc(value);
}

export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((value, i) => {
    out += show(value) + strings[i + 1];
  });
  return new Html(out);
}

/** Put `content` (an Html) into `element`, keeping the scroll of its `[data-keep-scroll]`
 * children (the log, long lists), which a re-render would otherwise reset. Nothing is
 * replaced when nothing changed: a button under the pointer stays the same button. */
const shown = new WeakMap();
export function mount(element, content) {
  const text = show(content);
  if (shown.get(element) === text && element.innerHTML) return;
  shown.set(element, text);
  const kept = {};
  for (const el of element.querySelectorAll("[data-keep-scroll]")) {
    const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
    kept[el.dataset.keepScroll] = { top: el.scrollTop, atEnd };
  }
  // a reader on the log (or another kept list) stays on it across the redraw
  const active = element.contains(document.activeElement) ? document.activeElement : null;
  const focused = active?.closest("[data-keep-scroll]")?.dataset.keepScroll;
  element.innerHTML = text;
  if (focused) element.querySelector(`[data-keep-scroll="${focused}"]`)?.focus({ preventScroll: true });
  for (const el of element.querySelectorAll("[data-keep-scroll]")) {
    const was = kept[el.dataset.keepScroll];
    // a log ([data-follow]) follows the news unless its reader scrolled up to read
    if ("follow" in el.dataset) el.scrollTop = !was || was.atEnd ? el.scrollHeight : was.top;
    else if (was) el.scrollTop = was.top;
  }
}

/** "snake_case_words" -> "Snake case words" */
export const words = (key) => {
  const text = String(key).replace(/[_-]+/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** Tell the person something (a problem's detail, a stale version...) until the next one. */
export function tell(text, kind = "info") {
  const notice = document.getElementById("notice");
  notice.textContent = text;
  notice.className = `notice ${kind}`;
  notice.hidden = !text;
}

/** A problem's detail (and its code), as a person reads it. */
export function problemText(err) {
  if (err instanceof ApiError) return err.code ? `${err.message} (${err.code})` : err.message;
  return String(err?.message || err);
}
